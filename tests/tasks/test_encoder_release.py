"""`fortap release` of a pretraining run: the encoder folder it writes (bf16 weights, the corpus's
training workbooks, a card whose checksums and command make it again), and the word table left
out only when it is still MiniLM's."""

from __future__ import annotations

import json
import re
import shlex

from typer.testing import CliRunner

from fortap.cli import app
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.model.pretrained import load_minilm
from fortap.model.state_file import crc32
from fortap.tasks.encoder_release import words_source
from fortap.tasks.table_qa.leak import BOOKS_FILE
from tests.training.conftest import CORPUS_BOOKS, tiny_corpus  # noqa: F401  (fixture)


def test_a_pretraining_run_is_released_as_an_encoder_folder(tiny_corpus, tmp_path):  # noqa: F811
    run, dest = tmp_path / "run", tmp_path / "encoders" / "tiny-test"
    args = ["pretrain", "--corpus", str(tiny_corpus), "--out", str(run), "--config", "tiny",
            "--objectives", "mlm,nrp", "--steps", "2", "--no-progress", "--threads", "1",
            "--set", "training.eval_every=2", "--set", "training.batch_size=4"]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    result = CliRunner().invoke(app, ["release", str(run), "-o", str(dest), "--corpus",
                                      str(tiny_corpus)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "word table stored" in result.output
    released = FortapEncoder.from_pretrained(dest)
    trained = FortapEncoder.from_pretrained(run / "encoder")
    assert json.loads((dest / "config.json").read_text()).get("words_from", "") == ""
    for name, tensor in trained.state_dict().items():  # bf16: within its rounding
        assert torch_close(released.state_dict()[name], tensor), name
    books = json.loads((dest / BOOKS_FILE).read_text())
    assert sorted(b.rsplit("/", 1)[-1] for b in books) == [
        b for b, side in CORPUS_BOOKS.items() if side == "train"
    ]
    card = (dest / "README.md").read_text()
    sums = dict(re.findall(r"^(\S+) ([0-9a-f]{8})$", card.split("```")[1], flags=re.M))
    assert sums == {n: f"{crc32(t):08x}" for n, t in released.state_dict().items()}
    assert "- MLM accuracy: " in card and "- NRP F1: " in card
    command = next(line.strip() for line in card.splitlines() if "fortap pretrain" in line)
    words = shlex.split(
        command.replace("CORPUS", str(tiny_corpus)).replace("RUN", str(tmp_path / "again"))
    )
    assert CliRunner().invoke(app, [*words[1:], "--no-progress", "--threads", "1"]).exit_code == 0
    stored = [
        json.loads((r / "config.json").read_text())["config"] for r in (run, tmp_path / "again")
    ]
    assert stored[0] == stored[1]  # the card's command makes the same run again
    again = CliRunner().invoke(app, ["release", str(run), "-o", str(dest), "--corpus",
                                     str(tiny_corpus)])  # fmt: skip
    assert again.exit_code == 0, again.output  # its own release folder is taken again


def torch_close(a, b) -> bool:
    import torch

    return bool(torch.allclose(a.float(), b.float(), rtol=1e-2, atol=1e-2))


def test_the_word_table_is_left_out_only_while_it_is_minilms():
    encoder, _ = load_minilm(ModelConfig.minilm(layers=1))
    assert words_source(encoder) == "minilm"
    encoder.embeddings.word_embeddings.weight.data[5, 0] += 1.0
    assert words_source(encoder) == ""
    assert words_source(FortapEncoder(ModelConfig.tiny())) == ""  # another size than MiniLM's
