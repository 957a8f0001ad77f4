"""`fortap release`: a finished sheet-setting run released in bfloat16, measured from the
stored weights, then checked again as a fresh clone would (`bench/fp_release.py check` and
`fortap check-model`)."""

from __future__ import annotations

import json

import torch
from typer.testing import CliRunner

from bench import fp_release
from fortap.cli import app
from fortap.corpus.split import book_key
from fortap.model.state_file import read_tensors
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPData, FPTraining
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.run import run_finetune
from tests.tasks.test_finetune_resume import tables_file


def test_release_stores_bf16_measures_the_stored_weights_and_check_reproduces(tmp_path):
    tables = tables_file(tmp_path)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    sides = dict(zip("abcd", ("train", "train", "dev", "test"), strict=True))
    (corpus / "split.json").write_text(
        json.dumps({"splits": {book_key(f"{k}.xlsx"): v for k, v in sides.items()}})
    )
    cfg = FormulaRunConfig(
        data=FPData(corpus=str(corpus), setting="sheet"),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0, copy=True),
        training=FPTraining(steps=6, batch_size=2, dev_checks=0, progress=False),
    )
    assert run_finetune([tables], tmp_path / "run", cfg) is not None
    dest, out = tmp_path / "release", tmp_path / "release.json"
    runner = CliRunner()
    made = runner.invoke(app, ["release", str(tmp_path / "run"), "-o", str(dest), "--tables",
                               str(tables), "--corpus", str(corpus)])  # fmt: skip
    assert made.exit_code == 0, made.output
    tensors, _ = read_tensors(dest / "encoder" / "model.safetensors")
    assert {t.dtype for t in tensors.values()} == {torch.bfloat16}
    assert (dest / "split.json").read_text() == (corpus / "split.json").read_text()
    released = json.loads((dest / "metrics.json").read_text())["systems"]["model"]
    assert f"stored {released['formula_top1']:.4f}" in made.output
    fp_release.main(["check", str(dest), "--tables", str(tables), "--json", str(out)])
    checked = json.loads(out.read_text())
    assert all(r["diff"] == 0.0 for r in checked["results"])  # the same weights, the same numbers
    assert all(t["met"] for t in checked["targets"][:-1])
    assert checked["parse"]["candidates"] > 0
    again = runner.invoke(app, ["check-model", str(dest), "--tables", str(tables), "--json",
                                str(out)])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert all(r["diff"] == 0.0 for r in json.loads(out.read_text())["results"])
