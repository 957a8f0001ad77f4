"""`bench/fp_vs_engine.py` on a tiny finished sheet-setting run over real .xlsx files: the model
is read from the run's own predictions, the engine is asked for the same cells of the same
workbooks, and both are scored with the run's metric."""

from __future__ import annotations

import dataclasses
import json

from bench import fp_vs_engine
from fortap.corpus.split import book_key
from fortap.model.formula_decoder import DecoderConfig
from fortap.sheet.read import read_workbook
from fortap.table import detect_tables
from fortap.table.io import write_jsonl
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPData, FPTraining
from fortap.tasks.formula_prediction.run import run_finetune
from tests.sheet.sheet_builders import with_cached
from tests.suggest.engine_books import sales_book

SIDES = {"a": "train", "b": "train", "c": "dev", "d": "test"}


def test_the_model_and_the_engine_are_scored_on_the_same_targets(tmp_path, monkeypatch):
    tables = []
    for name in SIDES:
        path = sales_book(tmp_path / f"{name}.xlsx")
        with_cached(path, {f"D{r}": (str(10 * r), None) for r in range(2, 6)})
        for sheet in read_workbook(path).sheets:
            tables += [dataclasses.replace(t, book=str(path)) for t in detect_tables(sheet)]
    write_jsonl(tmp_path / "tables.jsonl", tables)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    splits = {book_key(str(tmp_path / f"{k}.xlsx")): side for k, side in SIDES.items()}
    (corpus / "split.json").write_text(json.dumps({"splits": splits}))
    cfg = FormulaRunConfig(
        training=FPTraining(steps=4, batch_size=2, dev_checks=0, progress=False),
        data=FPData(corpus=str(corpus), setting="sheet"),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0, copy=True),
    )
    assert run_finetune([tmp_path / "tables.jsonl"], tmp_path / "run", cfg) is not None
    monkeypatch.chdir(tmp_path)  # the run's workbook paths are absolute here anyway
    out = tmp_path / "cmp.json"
    fp_vs_engine.main([str(tmp_path / "run"), "--json", str(out)])
    result = json.loads(out.read_text())
    rows = {r["system"]: r for r in result["results"] if "system" in r}
    model = json.loads((tmp_path / "run" / "metrics.json").read_text())["systems"]["model"]
    assert rows["model"]["top1"] == model["formula_top1"]
    assert rows["model"]["top5"] == model["formula_top5"]
    read = next(r["read"] for r in result["results"] if "read" in r)
    assert read["scored"] == read["targets"] == model["n"] and read["unreadable"] == []
    assert rows["engine"]["top1"] == 1.0  # D and E of the test book: filled from a neighbour
    names = [t["name"] for t in result["targets"]]
    assert names == ["model formula top-1 >= engine, pooled",
                     "model formula top-1 >= engine, per workbook"]  # fmt: skip
