"""Checkpoints: safetensors only, bit-exact round trips, errors naming the file and tensor."""

from __future__ import annotations

import json
import pickle

import pytest
import torch
from torch import nn

from fortap.errors import CheckpointError
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.model.pretrained import load_minilm
from fortap.model.state_file import load_state, save_state


@pytest.fixture(autouse=True)
def no_pickle(monkeypatch):
    """Any unpickling during these tests fails loudly."""

    def refuse(*args, **kwargs):
        raise AssertionError("pickle/torch.load must never run on a checkpoint")

    monkeypatch.setattr(torch, "load", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)


def assert_same_weights(a: nn.Module, b: nn.Module) -> None:
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys()
    for name in sa:
        assert torch.equal(sa[name], sb[name]), name


def test_save_and_load_tiny_round_trip(tmp_path, tiny_config, tiny_batch):
    torch.manual_seed(0)
    model = FortapEncoder(tiny_config).eval()
    model.save_pretrained(tmp_path / "ckpt")
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == [
        "config.json",
        "model.safetensors",
    ]
    loaded = FortapEncoder.from_pretrained(tmp_path / "ckpt")
    assert loaded.config == tiny_config and not loaded.training
    assert_same_weights(model, loaded)
    assert torch.equal(loaded(tiny_batch).token_states, model(tiny_batch).token_states)


def test_minilm_load_save_load_is_bit_exact(tmp_path, tiny_batch):
    model, report = load_minilm(ModelConfig.minilm(hidden_dropout=0.0))
    assert len(report.loaded) == 3 + 6 * 16  # word emb + LayerNorm (2) + 16 tensors per layer
    assert "encoder.layer.5.output.LayerNorm.weight" in report.loaded
    assert report.partial == []
    assert sorted(report.new) == sorted(
        f"embeddings.{name}.weight"
        for name in [
            "number_embeddings.0", "number_embeddings.1", "number_embeddings.2",
            "number_embeddings.3", "in_cell_embeddings", "row_embeddings", "col_embeddings",
            "left_tree_embeddings", "top_tree_embeddings", "format_embeddings",
        ]
    )  # fmt: skip
    assert report.unused == [
        "embeddings.position_embeddings.weight", "embeddings.position_ids",
        "embeddings.token_type_embeddings.weight", "pooler.dense.bias", "pooler.dense.weight",
    ]  # fmt: skip
    # trained weights, not an init: MiniLM's embedding LayerNorm is far from identity
    assert (model.embeddings.LayerNorm.weight - 1).abs().mean() > 0.1
    model.eval().save_pretrained(tmp_path / "minilm")
    again = FortapEncoder.from_pretrained(tmp_path / "minilm")
    assert_same_weights(model, again)
    batch = tiny_batch  # ids < 1000 fit the MiniLM vocab; ranges fit the default config
    assert torch.equal(again(batch).token_states, model(batch).token_states)


def test_minilm_into_a_larger_vocab_keeps_its_rows():
    model, report = load_minilm(ModelConfig.minilm(vocab_size=30600, layers=1))
    assert report.partial == ["embeddings.word_embeddings.weight"]
    assert "encoder.layer.1.attention.self.query.weight" in report.unused


def test_added_tokens_start_from_the_words_naming_them():
    from fortap.model.pretrained import WEIGHTS_FILE, minilm_dir
    from fortap.model.state_file import read_tensors
    from fortap.text.tokenizer import load_tokenizer

    tok = load_tokenizer()
    shipped = read_tensors(minilm_dir() / WEIGHTS_FILE)[0]["embeddings.word_embeddings.weight"]
    named = load_minilm(ModelConfig.minilm(layers=1))[0].embeddings.word_embeddings.weight
    plain = load_minilm(ModelConfig.minilm(layers=1, added_from_words=False))[0]
    plain = plain.embeddings.word_embeddings.weight
    sum_, div, ne = (tok.formula_token_id(n) for n in ("SUM", "/", "<>"))
    assert torch.equal(named[sum_], shipped[tok.id_of("sum")])
    assert torch.allclose(named[ne], shipped[[tok.id_of("<"), tok.id_of(">")]].mean(0))
    assert torch.equal(named[tok.id_of("the")], shipped[tok.id_of("the")])  # words untouched
    assert torch.equal(plain[sum_], shipped[sum_])  # off: MiniLM's unused rows as shipped
    cosine = torch.nn.functional.cosine_similarity
    assert cosine(plain[sum_], plain[div], dim=0) > 0.7  # unused rows look alike ...
    assert cosine(named[sum_], named[div], dim=0) < 0.3  # ... the words do not


def test_minilm_shape_mismatch_names_the_tensor():
    with pytest.raises(
        CheckpointError,
        match=r"model\.safetensors: tensor 'embeddings\.word_embeddings\.weight' has shape \[30522, 384\], the model expects \[1000, 64\]",
    ):
        load_minilm(ModelConfig.tiny())


@pytest.fixture
def saved(tmp_path, tiny_config):
    torch.manual_seed(0)
    FortapEncoder(tiny_config).save_pretrained(tmp_path)
    return tmp_path


def test_flipped_byte_names_the_corrupt_tensor(saved):
    path = saved / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF  # inside the last tensor's bytes
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"model\.safetensors: tensor '.+' is corrupt"):
        FortapEncoder.from_pretrained(saved)


@pytest.mark.parametrize("cut", [0, 7, 200, -100])
def test_truncated_file_is_a_checkpoint_error(saved, cut):
    path = saved / "model.safetensors"
    data = path.read_bytes()
    path.write_bytes(data[:cut] if cut >= 0 else data[:cut])
    with pytest.raises(CheckpointError, match=r"model\.safetensors"):
        FortapEncoder.from_pretrained(saved)


def test_a_file_that_is_not_safetensors_is_a_checkpoint_error(saved):
    # its first 8 bytes read as a header length far past the end of the file
    (saved / "model.safetensors").write_bytes(b"not safetensors at all")
    with pytest.raises(CheckpointError, match=r"model\.safetensors is not a readable safetensors"):
        FortapEncoder.from_pretrained(saved)


def test_file_cut_inside_the_data_names_the_tensor(saved):
    path = saved / "model.safetensors"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(CheckpointError, match=r"tensor '.+' is cut short"):
        FortapEncoder.from_pretrained(saved)


def test_mismatched_config_names_the_tensor(saved):
    config = json.loads((saved / "config.json").read_text())
    (saved / "config.json").write_text(json.dumps(config | {"ffn": 96}))
    with pytest.raises(
        CheckpointError,
        match=r"'encoder\.layer\.0\.intermediate\.dense\.weight' has shape \[128, 64\]",
    ):
        FortapEncoder.from_pretrained(saved)


def test_missing_and_unexpected_tensors_are_named(saved):
    config = json.loads((saved / "config.json").read_text())
    (saved / "config.json").write_text(json.dumps(config | {"layers": 3}))
    with pytest.raises(CheckpointError, match=r"tensor 'encoder\.layer\.2\..+' is missing"):
        FortapEncoder.from_pretrained(saved)
    (saved / "config.json").write_text(json.dumps(config | {"layers": 1}))
    with pytest.raises(CheckpointError, match=r"unexpected tensor 'encoder\.layer\.1\."):
        FortapEncoder.from_pretrained(saved)


def test_missing_files_are_named(tmp_path):
    with pytest.raises(CheckpointError, match="config.json"):
        FortapEncoder.from_pretrained(tmp_path)
    ModelConfig.tiny().save(tmp_path / "config.json")
    with pytest.raises(CheckpointError, match="not found.*model.safetensors"):
        FortapEncoder.from_pretrained(tmp_path)


class TiedHead(nn.Module):
    """An MLM-style head whose decoder shares the word embeddings (as objectives will do)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.decoder = nn.Linear(4, 10)
        self.decoder.weight = self.embed.weight


def test_any_module_round_trips_with_tied_weights(tmp_path):
    torch.manual_seed(0)
    head = TiedHead()
    save_state(head, tmp_path / "head.safetensors")
    torch.manual_seed(1)
    other = TiedHead()
    load_state(other, tmp_path / "head.safetensors")
    assert_same_weights(head, other)
    assert other.decoder.weight is other.embed.weight
    with pytest.raises(CheckpointError, match=r"head\.safetensors: tensor 'weight' is missing"):
        load_state(nn.Linear(4, 10), tmp_path / "head.safetensors")


def test_dtype_mismatch_names_the_tensor(tmp_path):
    save_state(nn.Linear(2, 2).to(torch.float16), tmp_path / "lin.safetensors")
    with pytest.raises(CheckpointError, match=r"'weight' has dtype torch.float16"):
        load_state(nn.Linear(2, 2), tmp_path / "lin.safetensors")
    # bfloat16 for float32 is the one narrowing accepted (a released checkpoint), not the reverse
    save_state(nn.Linear(2, 2), tmp_path / "lin.safetensors")
    with pytest.raises(CheckpointError, match=r"'weight' has dtype torch.float32"):
        load_state(nn.Linear(2, 2).to(torch.bfloat16), tmp_path / "lin.safetensors")
