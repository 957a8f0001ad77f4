"""ModelConfig: presets, validation naming the field, JSON round trip."""

from __future__ import annotations

import json

import pytest

from fortap.errors import CheckpointError
from fortap.model.config import ModelConfig


def test_presets():
    minilm = ModelConfig.minilm()
    assert (minilm.vocab_size, minilm.hidden, minilm.layers, minilm.heads, minilm.ffn) == (
        30522, 384, 6, 12, 1536,
    )  # fmt: skip
    assert minilm.tree_degrees == (32, 32, 64, 256) and minilm.attention_distance == 8
    tiny = ModelConfig.tiny(layers=1)
    assert (tiny.hidden, tiny.layers, tiny.heads) == (64, 1, 2)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"hidden": 0}, "hidden"),
        ({"hidden": 65}, "hidden"),
        ({"tree_degrees": (32, 32, 64)}, "tree_degrees"),
        ({"attention_distance": 17}, "attention_distance"),
        ({"hidden_dropout": 1.0}, "hidden_dropout"),
        ({"vocab_size": 2.5}, "vocab_size"),
        ({"cell_pooling": "max"}, "cell_pooling"),
    ],
)
def test_rejects_nonsense_naming_the_field(overrides, field):
    with pytest.raises(ValueError, match=field):
        ModelConfig.tiny(**overrides)


def test_json_round_trip(tmp_path):
    config = ModelConfig.tiny(attention_distance=2, tree_attention=False)
    config.save(tmp_path / "config.json")
    assert ModelConfig.load(tmp_path / "config.json") == config


def test_unknown_or_bad_key_names_file_and_key(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(ModelConfig.tiny().to_dict() | {"hiden": 8}))
    with pytest.raises(CheckpointError, match=r"config\.json.*'hiden'"):
        ModelConfig.load(path)
    path.write_text(json.dumps(ModelConfig.tiny().to_dict() | {"heads": 3}))
    with pytest.raises(CheckpointError, match="divisible"):
        ModelConfig.load(path)
    path.write_text("{not json")
    with pytest.raises(CheckpointError, match="config.json"):
        ModelConfig.load(path)
