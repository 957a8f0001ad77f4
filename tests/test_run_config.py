"""Run configs: defaults, presets (overrides only), dotted overrides, errors naming the key."""

from __future__ import annotations

import pytest

from fortap.config import ConfigError
from fortap.training.run_config import load_config


def test_defaults_compose_every_component():
    cfg = load_config()
    assert cfg.model.hidden == 384 and cfg.serialize.max_cell_tokens == 8
    assert cfg.use == ("mlm", "cell_cloze", "table_context")
    assert cfg.objectives["mlm"].weight == 1.0
    assert cfg.objectives["cell_cloze"].config.max_cells == 6
    assert cfg.optim.weight_decay == 0.01


def test_tiny_preset_overrides_only_what_it_names():
    cfg = load_config("tiny")
    assert (cfg.model.hidden, cfg.model.layers, cfg.model.vocab_size) == (64, 2, 30522)
    assert cfg.serialize.max_seq_len == 96
    assert cfg.serialize.max_cell_tokens == 8  # untouched default
    assert load_config("small").model.hidden == 384


def test_dotted_overrides_take_the_type_of_the_default():
    cfg = load_config(
        "tiny",
        [
            "optim.lr=1e-4",  # YAML reads this as a string
            "training.steps=12",
            "objectives.use=mlm,table_context",
            "objectives.mlm.weight=0.3",
            "model.tree_degrees=[32, 32, 64, 128]",
            "training.progress=false",
        ],
    )
    assert cfg.optim.lr == 1e-4 and cfg.training.steps == 12
    assert cfg.use == ("mlm", "table_context")
    assert cfg.objectives["mlm"].weight == 0.3
    assert cfg.model.tree_degrees == (32, 32, 64, 128)
    assert cfg.training.progress is False


def test_round_trip_through_a_dict():
    from fortap.training.run_config import from_dict

    cfg = load_config("tiny", ["objectives.cell_cloze.max_cells=4"])
    assert from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("optim.lrr=1", "unknown key 'optim.lrr'"),
        ("nothing.lr=1", "unknown key 'nothing'"),
        ("training.steps=many", "bad value for 'training.steps'"),
        ("training.steps=0", "TrainConfig.steps must be >= 1"),
        ("objectives.use=mlm,nope", "objectives.use names 'nope'"),
        ("optim.lr", "is not KEY=VALUE"),
    ],
)
def test_bad_overrides_name_the_key(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config("tiny", [override])


def test_unknown_preset_and_bad_yaml(tmp_path):
    with pytest.raises(
        ConfigError, match=r"unknown config preset 'huge'; choose from .*small, tiny"
    ):
        load_config("huge")
    bad = tmp_path / "bad.yaml"
    bad.write_text("model:\n  hiden: 3\n")
    with pytest.raises(ConfigError, match="unknown key 'model.hiden'"):
        load_config(str(bad))
