"""An encoder whose word table stayed at MiniLM's is stored without it and rebuilt on loading."""

from __future__ import annotations

import pytest
import torch

from fortap.errors import CheckpointError
from fortap.model.encoder import FortapEncoder
from fortap.model.minilm_words import WORD_EMBEDDINGS
from fortap.model.pretrained import load_minilm
from fortap.model.state_file import read_tensors


@pytest.fixture(scope="module")
def minilm() -> FortapEncoder:
    return load_minilm()[0]


def test_round_trip_leaves_the_table_out_and_rebuilds_it(minilm, tmp_path):
    minilm.save_pretrained(tmp_path, words_from="minilm")
    assert WORD_EMBEDDINGS not in read_tensors(tmp_path / "model.safetensors")[0]
    back = FortapEncoder.from_pretrained(tmp_path)
    assert back.config.words_from == "minilm"
    for name, tensor in minilm.state_dict().items():
        assert torch.equal(back.state_dict()[name], tensor), name


def test_a_bf16_table_is_rebuilt_rounded(minilm, tmp_path):
    rounded = load_minilm()[0]
    with torch.no_grad():  # what a run started from MiniLM carried in bf16 holds
        table = read_tensors(_minilm_file())[0][WORD_EMBEDDINGS].to(torch.bfloat16).float()
        rounded.embeddings.word_embeddings.weight.copy_(table)
        from fortap.model.minilm_words import embed_added_tokens

        embed_added_tokens(rounded.embeddings.word_embeddings.weight)
    rounded.save_pretrained(tmp_path, dtype=torch.bfloat16, words_from="minilm-bf16")
    back = FortapEncoder.from_pretrained(tmp_path)
    assert torch.equal(
        back.embeddings.word_embeddings.weight, rounded.embeddings.word_embeddings.weight
    )
    with pytest.raises(CheckpointError, match="differs from MiniLM"):
        rounded.save_pretrained(tmp_path / "other", words_from="minilm")


def test_a_changed_table_is_refused(minilm, tmp_path):
    changed = load_minilm()[0]
    with torch.no_grad():
        changed.embeddings.word_embeddings.weight[5] += 1.0
    with pytest.raises(CheckpointError, match="word table differs"):
        changed.save_pretrained(tmp_path, words_from="minilm")


def test_a_stored_table_beside_words_from_is_refused(minilm, tmp_path):
    minilm.save_pretrained(tmp_path)
    text = (tmp_path / "config.json").read_text().replace('"added_from_words"',
                                                           '"words_from": "minilm",\n  "added_from_words"')  # fmt: skip
    (tmp_path / "config.json").write_text(text)
    with pytest.raises(CheckpointError, match="config rebuilds it"):
        FortapEncoder.from_pretrained(tmp_path)


def _minilm_file():
    from fortap.model.minilm_words import minilm_dir

    return minilm_dir() / "model.safetensors"


def test_an_encoder_loaded_without_its_table_saves_with_it(minilm, tmp_path):
    minilm.save_pretrained(tmp_path / "lean", words_from="minilm")
    loaded = FortapEncoder.from_pretrained(tmp_path / "lean")
    loaded.save_pretrained(tmp_path / "whole")  # e.g. a fine-tuned model folder's encoder
    assert WORD_EMBEDDINGS in read_tensors(tmp_path / "whole" / "model.safetensors")[0]
    again = FortapEncoder.from_pretrained(tmp_path / "whole")
    assert again.config.words_from == ""
    assert torch.equal(
        again.embeddings.word_embeddings.weight, minilm.embeddings.word_embeddings.weight
    )
