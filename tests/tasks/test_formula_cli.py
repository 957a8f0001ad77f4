"""`fortap finetune/evaluate formula-prediction` on four copies of the literal expense table,
each in its own workbook: the fallback split, the files written, and the config checks."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.config import ConfigError
from fortap.corpus.split import book_key
from fortap.errors import FortapError
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.table.io import write_jsonl
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPData
from fortap.tasks.formula_prediction.examples import FormulaExamplesConfig
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.tasks.formula_prediction.run import load_split
from fortap.tasks.formula_prediction.split import corpus_sides, leaked_books, split_for_run, spread
from fortap.tasks.recipe import Optim
from fortap.tasks.run_config import load_run_config
from fortap.training.optim import build_optimizer, set_lr

from .expense_table import expense_table

BOOKS = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")


def four_books():
    return [dataclasses.replace(expense_table(), book=name) for name in BOOKS]


def test_split_falls_back_to_name_order_by_workbook(tokenizer):
    split, note = split_for_run(four_books(), tokenizer, FormulaExamplesConfig(), seed=0)
    books = {side: {ex.meta["book"] for ex in split[side]} for side in split}
    assert books == {"train": {"a.xlsx", "b.xlsx"}, "dev": {"c.xlsx"}, "test": {"d.xlsx"}}
    assert "assigned in name order" in note and "2 train, 1 dev, 1 test" in note
    per_book = len(split["test"])
    assert per_book >= 4 and len(split["train"]) == 2 * per_book == 2 * len(split["dev"])


def test_finetune_then_evaluate_write_their_files(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, four_books())
    runner = CliRunner()
    out = tmp_path / "ft"
    args = ["finetune", "formula-prediction", str(tables), "-o", str(out), "--steps", "2"]
    done = runner.invoke(app, [*args, "--curve", "0.5"])
    assert done.exit_code == 0, done.output
    assert "rules (sheet)" in done.output and "best formula top-1" in done.output
    for name in ("predictions.jsonl", "metrics.json", "report.md", "learning_curve.png",
                 "accuracy_by_sketch_length.png", "model/head.safetensors",
                 "model/model.json"):  # fmt: skip
        assert (out / name).is_file(), name
    metrics = json.loads((out / "metrics.json").read_text())
    systems = metrics["systems"]
    assert set(systems) == {"model", "rules (paper)", "rules (sheet)", "sketch prior"}
    n_test = metrics["split"]["test"]
    assert all(m["n"] == n_test for m in systems.values())
    assert all(0 <= m["formula_top1_per_workbook"] <= 1 and m["books"] == 1
               for m in systems.values())  # fmt: skip
    gaps = systems["model"]["formula_top1_gaps"]
    assert set(gaps) == {"rules (paper)", "rules (sheet)"}
    assert all(g["low"] <= g["gap"] <= g["high"] for g in gaps.values())
    # every top-k metric pooled and per workbook; one test workbook: both are the pooled value
    fill = systems["rules (sheet)"]
    assert set(fill["by_workbook"]) == {f"{kind}_top{k}" for kind in ("formula", "sketch", "range")
                                        for k in (1, 5)}  # fmt: skip
    for name in ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5"):
        got = fill["by_workbook"][name]
        assert got["pooled"] == got["per_workbook"] == fill[name] == got["pooled_low"], name
    prior = systems["model"]["gaps"]["sketch prior"]["sketch_top1"]
    want = systems["model"]["sketch_top1"] - systems["sketch prior"]["sketch_top1"]
    assert prior["pooled"]["gap"] == pytest.approx(want) == prior["per_workbook"]["gap"]
    assert [p["share"] for p in metrics["curve"]] == [0.5, 1.0]
    records = (out / "predictions.jsonl").read_text().splitlines()
    assert len(records) == n_test and json.loads(records[0])["book"] == "d.xlsx"
    assert "| rules (sheet) |" in (out / "report.md").read_text()

    ev = tmp_path / "ev"
    again = runner.invoke(
        app, ["evaluate", "formula-prediction", str(tables), "--model", str(out / "model"),
              "-o", str(ev), "--threads", "1"],
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    # the same saved model on the same split gives the same metrics
    assert json.loads((ev / "metrics.json").read_text())["systems"] == metrics["systems"]


def test_unknown_task_and_missing_checkpoint_are_rejected(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, four_books())
    runner = CliRunner()
    bad_task = runner.invoke(app, ["finetune", "cell-kind", str(tables), "-o", str(tmp_path)])
    assert bad_task.exit_code == 2
    no_ckpt = runner.invoke(
        app, ["finetune", "formula-prediction", str(tables), "-o", str(tmp_path / "x"),
              "--encoder", "fortap", "--steps", "1"],
    )  # fmt: skip
    assert no_ckpt.exit_code == 1 and "needs a checkpoint" in no_ckpt.output
    threads = runner.invoke(
        app, ["finetune", "formula-prediction", str(tables), "-o", str(tmp_path / "y"),
              "--threads", "-1"],
    )  # fmt: skip
    assert threads.exit_code == 1 and "--threads must be >= 0" in threads.output


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [("training.steps", "0", "TrainConfig.steps"), ("optim.lr", "0.0", "optim.lr and"),
     ("optim.encoder_lr", "-1", "optim.lr and optim.encoder_lr"), ("evaluation.curve", "[1.0]",
     "FPEvaluation.curve"), ("evaluation.max_test", "-1", "FPEvaluation.max_test")],
)  # fmt: skip
def test_config_rejects_nonsense(key, value, named):
    with pytest.raises(ConfigError, match=f"{key.split('.')[0]}: {named}"):
        load_run_config(FormulaRunConfig, None, [f"{key}={value}"])


def lr_by_part(cfg: FormulaRunConfig) -> dict[str, set[float]]:
    """The peak lr each parameter gets, grouped by encoder / decoder, for a tiny model."""
    optim = cfg.optim.optimizer()
    model = FormulaPredictionModel(FortapEncoder(ModelConfig.tiny(hidden_dropout=0.0)), cfg.decoder)
    optimizer = build_optimizer(model, optim)
    set_lr(optimizer, 1.0)  # the peak
    lr_of = {id(p): round(g["lr"], 12) for g in optimizer.param_groups for p in g["params"]}
    parts: dict[str, set[float]] = {"encoder": set(), "decoder": set()}
    for name, param in model.named_parameters():
        parts[name.split(".")[0]].add(lr_of[id(param)])
    return parts


def test_encoder_lr_sets_the_encoder_lr_and_the_decoder_keeps_lr():
    assert lr_by_part(FormulaRunConfig(optim=Optim(lr=1e-3, encoder_lr=1e-4))) == {
        "encoder": {1e-4},
        "decoder": {1e-3},
    }
    # the task's defaults give both parts 1e-3, as before the rates were shared
    assert lr_by_part(FormulaRunConfig()) == {
        "encoder": {1e-3},
        "decoder": {1e-3},
    }


def test_spread_takes_evenly_spaced_examples_in_order():
    assert spread(list(range(10)), 4) == [0, 2, 5, 7]
    assert spread(list(range(3)), 5) == [0, 1, 2]


def write_corpus_split(folder, sides: dict[str, str]) -> None:
    folder.mkdir()
    (folder / "split.json").write_text(json.dumps({"rule": "test", "splits": sides}))


def test_the_corpus_split_decides_each_workbook_side(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, four_books())
    a, b, c, d = (book_key(name) for name in BOOKS)
    write_corpus_split(tmp_path / "corpus", {a: "test", b: "dev", c: "train", d: "train"})
    cfg = FormulaRunConfig(data=FPData(corpus=str(tmp_path / "corpus")))
    loaded = load_split([tables], cfg)
    split, note = loaded.split, loaded.note
    books = {side: {ex.meta["book"] for ex in split[side]} for side in split}
    assert books == {"train": {"c.xlsx", "d.xlsx"}, "dev": {"b.xlsx"}, "test": {"a.xlsx"}}
    assert note == "split by workbook (the corpus's split)"
    assert leaked_books(split, corpus_sides(tmp_path / "corpus")) == {"dev": [], "test": []}
    # a corpus that trained on a and b: both evaluation books leak
    assert leaked_books(split, {a: "train", b: "train"}) == {"dev": [b], "test": [a]}


def test_a_corpus_without_split_json_is_named(tmp_path):
    with pytest.raises(FortapError, match="split.json"):
        corpus_sides(tmp_path)
    write_corpus_split(tmp_path / "bad", {"x": "holdout"})
    with pytest.raises(FortapError, match="must map workbook keys"):
        corpus_sides(tmp_path / "bad")


def test_cli_passes_corpus_and_encoder_lr_to_the_run(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, four_books())
    a, b, c, d = (book_key(name) for name in BOOKS)
    write_corpus_split(tmp_path / "corpus", {a: "test", b: "dev", c: "train", d: "train"})
    out = tmp_path / "ft"
    done = CliRunner().invoke(
        app, ["finetune", "formula-prediction", str(tables), "-o", str(out), "--steps", "1",
              "--corpus", str(tmp_path / "corpus"), "--encoder-lr", "1e-4"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert "the corpus's split" in metrics["notes"][0]
    assert metrics["config"]["optim"]["encoder_lr"] == 1e-4
    records = (out / "predictions.jsonl").read_text().splitlines()
    assert {json.loads(r)["book"] for r in records} == {"a.xlsx"}


def test_a_workbook_given_as_xls_and_xlsx_yields_one_set_of_examples(tmp_path):
    names = ("north", "south", "east", "west")
    copies = [dataclasses.replace(expense_table(), book=f"{name}.xlsx") for name in names]
    copies.append(dataclasses.replace(expense_table(), book="old/west.xls"))  # west again
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, copies)
    loaded = load_split([tables], load_run_config(FormulaRunConfig))
    books = sorted({ex.meta["book"] for side in loaded.split.values() for ex in side})
    assert books == ["east.xlsx", "north.xlsx", "south.xlsx", "west.xlsx"]
    per_book = Counter(ex.meta["book"] for side in loaded.split.values() for ex in side)
    assert len(set(per_book.values())) == 1  # west's examples once, as every other workbook's
    assert "1 copies of workbooks given twice (.xls and .xlsx) left out" in loaded.note
