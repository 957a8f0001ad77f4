"""`bench/fp_vs_engine.py` on a tiny finished sheet-setting run over real .xlsx files: the model
is read from the run's own predictions, the engine is asked for the same cells of the same
workbooks, and both are scored with the run's metric."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bench import fp_vs_engine
from fortap.corpus.split import book_key
from fortap.sheet.read import read_workbook
from fortap.table import detect_tables
from fortap.table.io import write_jsonl
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPData, FPTraining
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.run import run_finetune
from tests.sheet.sheet_builders import with_cached
from tests.suggest.engine_books import REGIONS, sales_book

SIDES = {"a": "train", "b": "train", "c": "dev", "d": "test"}


def tiny_run(tmp_path, setting: str):
    """A finished tiny formula-prediction run in `setting` over four small .xlsx books."""
    tables = []
    for name in SIDES:
        path = sales_book(tmp_path / f"{name}.xlsx")
        with_cached(path, {f"D{r}": (str(q1 + q2), None)  # what =B+C computed
                           for r, (_, q1, q2) in enumerate(REGIONS, start=2)})  # fmt: skip
        for sheet in read_workbook(path).sheets:
            tables += [dataclasses.replace(t, book=str(path)) for t in detect_tables(sheet)]
    write_jsonl(tmp_path / "tables.jsonl", tables)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    splits = {book_key(str(tmp_path / f"{k}.xlsx")): side for k, side in SIDES.items()}
    (corpus / "split.json").write_text(json.dumps({"splits": splits}))
    cfg = FormulaRunConfig(
        training=FPTraining(steps=4, batch_size=2, dev_checks=0, progress=False),
        data=FPData(corpus=str(corpus), setting=setting),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0, copy=setting == "sheet"),
    )
    assert run_finetune([tmp_path / "tables.jsonl"], tmp_path / "run", cfg) is not None


def test_the_model_and_the_engine_are_scored_on_the_same_targets(tmp_path, monkeypatch):
    tiny_run(tmp_path, "sheet")
    monkeypatch.chdir(tmp_path)  # the run's workbook paths are absolute here anyway
    out = tmp_path / "cmp.json"
    fp_vs_engine.main([str(tmp_path / "run"), "--json", str(out)])
    result = json.loads(out.read_text())
    rows = {r["system"]: r for r in result["results"] if "system" in r}
    model = json.loads((tmp_path / "run" / "metrics.json").read_text())["systems"]["model"]
    assert rows["model"]["formula_top1"] == model["formula_top1"]
    assert rows["model"]["formula_top5"] == model["formula_top5"]
    assert rows["model"]["sketch_top1"] == model["sketch_top1"]
    read = next(r["read"] for r in result["results"] if "read" in r)
    assert read["scored"] == read["targets"] == model["n"] and read["unreadable"] == []
    assert (
        rows["engine"]["formula_top1"] == 1.0
    )  # D and E of the test book: filled from a neighbour
    with pytest.raises(
        SystemExit, match="sheet-setting run"
    ):  # the engine must see what the model saw
        fp_vs_engine.main([str(tmp_path / "run"), "--setting", "paper"])
    names = [t["name"] for t in result["targets"]]
    assert names == ["model formula top1 - engine >= +0 points, pooled",
                     "model formula top1 - engine >= +0 points, per workbook"]  # fmt: skip


def test_the_paper_setting_scores_the_engine_against_autosum_and_the_prior(tmp_path):
    tiny_run(tmp_path, "paper")
    out = tmp_path / "cmp.json"
    fp_vs_engine.main([str(tmp_path / "run"), "--setting", "paper", "--json", str(out)])
    result = json.loads(out.read_text())
    rows = {r["system"]: r for r in result["results"] if "system" in r}
    systems = json.loads((tmp_path / "run" / "metrics.json").read_text())["systems"]
    assert set(rows) == {"model", "engine", "AutoSum", "values, hand order", "sketch prior"}
    assert rows["model"]["formula_top1"] == systems["model"]["formula_top1"]
    # the same AutoSum on the same cells, read from the table or from the workbook
    assert rows["AutoSum"]["formula_top1"] == systems["rules (paper)"]["formula_top1"]
    assert rows["sketch prior"]["sketch_top1"] == systems["sketch prior"]["sketch_top1"]
    gaps = {(g["gap"]["minus"], g["gap"]["mode"]) for g in result["results"] if "gap" in g}
    assert ("AutoSum", "pooled") in gaps and ("sketch prior", "per_workbook") in gaps
    # the four totals in D (= B + C) are induced from their neighbours' cached values; E's
    # growth cells cache nothing, so nothing shows their formula
    assert rows["engine"]["formula_top5"] == rows["values, hand order"]["formula_top5"] == 0.5
    split = {
        b["by_first"]["engine_first"]: b["by_first"] for b in result["results"] if "by_first" in b
    }
    assert sum(b["targets"] for b in split.values()) == 8
    names = [t["name"] for t in result["targets"]]
    assert names[0] == "engine formula top1 - AutoSum >= +5 points, pooled, interval > 0"
    assert len(names) == 4
