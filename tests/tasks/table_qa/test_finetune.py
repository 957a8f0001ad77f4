"""End to end on a tiny HiTab folder: finetune (stopped and resumed), evaluate, and `fortap ask`
on a HiTab JSON and on a generated workbook."""

from __future__ import annotations

import json

import openpyxl
from typer.testing import CliRunner

from fortap.cli import app
from fortap.tasks.run_config import load_run_config
from fortap.tasks.table_qa.answerer import TableAnswerer
from fortap.tasks.table_qa.ask import ask, read_table, render
from fortap.tasks.table_qa.config import QARunConfig
from fortap.tasks.table_qa.run import run_finetune
from tests.tasks.table_qa.tiny import write_hitab

SETTINGS = ["encoder.name=random", "training.steps=6", "training.save_every=3",
            "training.dev_checks=2", "training.progress=false", "evaluation.max_dev=6"]  # fmt: skip


def test_finetune_resumes_then_evaluates(tmp_path):
    hitab = write_hitab(tmp_path / "hitab", copies=2)
    cfg = load_run_config(QARunConfig, overrides=SETTINGS)
    out = tmp_path / "run"
    assert run_finetune([hitab], out, cfg, stop_at=3) is None
    assert (out / "training" / "checkpoints").is_dir()
    systems = run_finetune([hitab], out, cfg)
    steps = [json.loads(line)["step"] for line in (out / "training" / "metrics.jsonl").open()]
    assert steps.count(3) >= 1 and max(steps) == 6 and 1 not in steps[steps.index(3) + 1 :]
    assert set(systems) == {"dev", "test", "test_qc"}
    assert set(systems["test"]) == {"model", "overlap rule", "majority op"}
    assert systems["test"]["overlap rule"]["n"] == 6
    assert systems["test"]["overlap rule"]["accuracy"] == 3 / 6  # q1, q2, q6 by their crossing
    assert (out / "report.md").read_text().startswith("# Table QA on HiTab")
    evaluated = CliRunner().invoke(
        app, ["evaluate", "table-qa", str(hitab), "-o", str(tmp_path / "eval"),
              "--model", str(out / "model")],
    )  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    again = json.loads((tmp_path / "eval" / "metrics.json").read_text())["systems"]
    assert again["test"]["model"]["accuracy"] == systems["test"]["model"]["accuracy"]
    found = CliRunner().invoke(app, ["ask", str(hitab / "tables" / "raw" / "tiny.json"),
                                     "how many people lived in ontario in 2016?",
                                     "--model", str(out / "model")])  # fmt: skip
    assert found.exit_code == 0, found.output
    assert "answer: " in found.output and "operation: " in found.output
    checked = CliRunner().invoke(app, ["check-model", str(out / "model")])
    assert checked.exit_code == 0, checked.output
    assert "met: dev execution accuracy" in checked.output
    assert "in full" in checked.output  # no sample stored yet
    header = json.loads((out / "model" / "metrics.json").read_text())
    assert (header["task"], header["kind"], header["split"]) == ("table-qa", "encoder",
                                                                 "HiTab dev, test, test_qc")  # fmt: skip
    assert set(header["metrics"]) == {"dev_accuracy", "test_accuracy", "test_qc_accuracy"}
    stored = CliRunner().invoke(app, ["check-model", str(out / "model"), "--store-sample"])
    assert stored.exit_code == 0, stored.output
    sample = json.loads((out / "model" / "metrics.json").read_text())["check"]
    assert sample["sample"] == "6 dev questions spread over the file"
    quick = CliRunner().invoke(app, ["check-model", str(out / "model")])
    assert quick.exit_code == 0, quick.output
    assert "re-scoring its stored sample (6 dev questions" in quick.output
    assert "--full" in quick.output and "met: dev execution accuracy" in quick.output
    card = (out / "model" / "README.md").read_text()
    assert "fortap finetune table-qa" in card and "--set training.steps=6" in card
    answerer = TableAnswerer.load(out / "model")
    table = read_table(hitab / "tables" / "raw" / "tiny.json")
    first = answerer.answer(table, "how many people lived in ontario in 2016?")
    answerer.save(tmp_path / "again")
    second = TableAnswerer.load(tmp_path / "again").answer(table, first_question())
    assert (first.op, first.cells) == (second.op, second.cells)


def first_question() -> str:
    return "how many people lived in ontario in 2016?"


def test_ask_by_the_rule_on_hitab_json(tmp_path):
    hitab = write_hitab(tmp_path / "hitab")
    found = CliRunner().invoke(app, ["ask", str(hitab / "tables" / "raw" / "tiny.json"),
                                     "how many people lived in ontario in 2016?", "--rule"])  # fmt: skip
    assert found.exit_code == 0, found.output
    assert found.output.splitlines()[:3] == [
        "answer: 50",
        "operation: none",
        "= C3 (canada ontario 2016)",
    ]
    assert "  C3 = 50   [2016 > canada > ontario]" in found.output
    assert "header-overlap rule" in found.output


def test_ask_on_a_workbook_sheet(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Population"
    for row in [["Province", "2015", "2016"], ["Canada", 100, 120], ["Ontario", 40, 50],
                ["Quebec", 30, 45]]:  # fmt: skip
        sheet.append(row)
    path = tmp_path / "population.xlsx"
    book.save(path)
    answer = ask(read_table(path, "Population"), "how many people in Quebec in 2016?", rule=True)
    lines = render(answer)
    assert lines[0] == "answer: 45" and lines[2].startswith("= C4 (")
    found = CliRunner().invoke(app, ["ask", str(path), "quebec 2016?", "--sheet", "Nope"])
    assert found.exit_code != 0 and "no sheet 'Nope'" in found.output


def test_the_decoding_of_the_config_is_the_folders_and_its_card_says_so(tmp_path):
    from dataclasses import asdict

    hitab = write_hitab(tmp_path / "hitab")
    decoding = ["decoding.unmatched_weight=1.0", "decoding.prefix_weight=1.0",
                "decoding.op_shapes=true"]  # fmt: skip
    settings = [s for s in SETTINGS if not s.startswith(("training.steps", "training.save"))]
    cfg = load_run_config(QARunConfig, overrides=[*settings, "training.steps=2", *decoding])
    run_finetune([hitab], tmp_path / "run", cfg)
    folder = tmp_path / "run" / "model"
    head = json.loads((folder / "model.json").read_text())["head"]
    assert head["decoding"] == asdict(cfg.decoding)
    assert TableAnswerer.load(folder).model.decoding == cfg.decoding
    card = (folder / "README.md").read_text()
    assert all(f"--set {s}" in card or f"--set {s.replace('true', 'True')}" in card
               for s in decoding)  # fmt: skip
