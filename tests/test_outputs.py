"""Outputs are never silently overwritten: every writing command refuses a non-empty folder (or an
existing file) that is not its own run, changes nothing in it, replaces it with --overwrite,
and resumes its own run (`fortap.outputs`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.errors import FortapError
from fortap.outputs import MARKER, atomic_path, check_file, claim_folder, file_part
from fortap.table.io import write_jsonl

from .suggest.engine_books import sales_book
from .tasks.expense_table import expense_table


def _book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    ws.append(["Item", "Jan", "Feb"])
    for i, item in enumerate(["Rent", "Food", "Travel"]):
        ws.append([item, 100 + i, 200 + i])
    ws.append(["Total", "=SUM(B2:B4)", "=SUM(C2:C4)"])
    wb.save(path)
    return path


def _foreign(folder: Path) -> dict[str, str]:
    """A folder of the user's own files; returns what it holds, to compare after."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tables.jsonl").write_text("the user's own file\n")
    (folder / "report.json").write_text('{"mine": true}\n')
    return _contents(folder)


def _contents(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def _run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def _refused(result, out: Path) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert f"{out}: the folder is not empty" in result.output.replace("\n", " "), result.output
    assert "--overwrite" in result.output


@pytest.fixture
def book(tmp_path) -> Path:
    return _book(tmp_path / "budget.xlsx")


# each writing command with a folder output, and what it needs besides -o
COMMANDS = {
    "ingest": lambda tmp, book: ["ingest", book],
    "build-corpus": lambda tmp, book: ["build-corpus", tmp / "tables.jsonl", "--no-progress"],
    "pretrain": lambda tmp, book: ["pretrain", "--tables", tmp / "tables.jsonl", "--steps", "1"],
    "finetune": lambda tmp, book: ["finetune", "formula-prediction", tmp / "t.jsonl"],
    "evaluate": lambda tmp, book: ["evaluate", "formula-prediction", tmp / "t.jsonl"],
    "audit": lambda tmp, book: ["audit", book],
    "demo": lambda tmp, book: ["demo"],
    "train-ranker": lambda tmp, book: ["train-ranker", book],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_folder_command_refuses_a_foreign_folder_and_changes_nothing(command, tmp_path, book):
    out = tmp_path / "out"
    before = _foreign(out)
    result = _run(*COMMANDS[command](tmp_path, book), "-o", out)
    _refused(result, out)
    assert _contents(out) == before


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_folder_command_says_so_in_its_help(command):
    result = _run(command, "--help")
    text = " ".join(result.output.replace("│", " ").split())  # rich's box, unwrapped
    assert "--overwrite" in text and "own run" in text, text


def test_ingest_overwrite_replaces_and_its_own_run_resumes(tmp_path, book):
    out = tmp_path / "out"
    _foreign(out)
    result = _run("ingest", book, "-o", out, "--overwrite")
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["files"][0]["status"] == "ok" and (out / "tables.jsonl").is_dir()
    again = _run("ingest", book, "-o", out)  # the same inputs: resumes, every task done
    assert again.exit_code == 0, again.output
    before = _contents(out / "tables.jsonl")
    other = _run("ingest", _book(tmp_path / "other.xlsx"), "-o", out)
    assert other.exit_code == 1 and "holds an ingest of other inputs" in other.output
    assert _contents(out / "tables.jsonl") == before  # the earlier output is kept


def test_a_stopped_ingest_resumes_without_overwrite(tmp_path, book):
    out = tmp_path / "out"
    assert _run("ingest", book, "-o", out).exit_code == 0
    shard = next((out / "tables.jsonl").iterdir())
    (out / "report.json").unlink()  # as a run killed before its report
    assert _run("ingest", book, "-o", out).exit_code == 0
    assert (out / "report.json").is_file() and shard.is_file()


def test_audit_overwrite_replaces_and_a_rerun_replaces_its_own_report(tmp_path, book):
    out = tmp_path / "report"
    _foreign(out)
    result = _run("audit", book, "-o", out, "--overwrite")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir() if p.name != MARKER)[-2:] == [
        "report.md",
        "sheet1-Budget.png",
    ]
    assert _run("audit", book, "-o", out).exit_code == 0  # its own report: written again


# each folder command's tiny real run: its arguments besides -o (from the module's inputs), the
# file it writes, and the folders whose files a resumed run leaves as they were (none: the run is
# written again)
TRAIN = ["--no-progress", "--threads", "1"]
RUNS = {
    "ingest": (lambda i: ["ingest", i["book"]], "report.json", ()),
    "build-corpus": (
        lambda i: ["build-corpus", i["tables"], "--no-progress"],
        "index.json",
        ("tasks", "shards"),
    ),
    "pretrain": (
        lambda i: (
            ["pretrain", "--tables", i["tables"], "--steps", "1", *TRAIN]
            + ["--set", "data.eval_tables=2"]
        ),
        "encoder/model.safetensors",
        ("checkpoints",),
    ),
    "finetune": (
        lambda i: (
            ["finetune", "formula-prediction", i["tables"], "--steps", "2", *TRAIN]
            + ["--set", "training.dev_checks=0"]
        ),
        "model/head.safetensors",
        ("training",),
    ),
    "evaluate": (
        lambda i: (
            ["evaluate", "formula-prediction", i["tables"], "--model", i["model"]]
            + ["--threads", "1"]
        ),
        "metrics.json",
        (),
    ),
    "audit": (lambda i: ["audit", i["book"]], "report.md", ()),
    "demo": (lambda i: ["demo"], "tables/report.json", ()),
    "train-ranker": (lambda i: ["train-ranker", i["sales"]], "model.txt", ()),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """Four one-table workbooks' tables (the fallback split: 2 train, 1 dev, 1 test), a budget
    workbook and a sales workbook with formulas (on train-ranker's train side)."""
    folder = tmp_path_factory.mktemp("inputs")
    tables = folder / "tables.jsonl"
    write_jsonl(tables, [dataclasses.replace(expense_table(), book=f"{name}.xlsx")
                         for name in "abcd"])  # fmt: skip
    return {"tables": tables, "book": _book(folder / "budget.xlsx"),
            "sales": sales_book(folder / "sales.xlsx")}  # fmt: skip


@pytest.fixture(scope="module")
def finetuned(inputs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finetuned")
    result = _run(*RUNS["finetune"][0](inputs), "-o", out)
    assert result.exit_code == 0, result.output
    return out / "model"


def _files(out: Path, folders: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """(modification time, size) of every file under `out`'s `folders`."""
    files = [p for folder in folders for p in sorted((out / folder).rglob("*")) if p.is_file()]
    return {str(p.relative_to(out)): (p.stat().st_mtime_ns, p.stat().st_size) for p in files}


@pytest.mark.parametrize("command", sorted(RUNS))
def test_every_folder_command_empties_a_foreign_folder_with_overwrite_and_takes_its_own_run(
    command, tmp_path, inputs, request, monkeypatch
):
    """--overwrite empties a foreign folder and the command writes its output there; a second
    run into its own folder is taken without --overwrite (build-corpus, pretrain and finetune
    resume: what the first run wrote is left as it was)."""
    if command == "evaluate":
        inputs = {**inputs, "model": request.getfixturevalue("finetuned")}
    if command == "demo":  # the demo's books and ingest only: its training steps take a minute
        from fortap.demo import run

        real = run.run_demo
        quick = run.DemoConfig(formula=False, cell_types=False, table_qa=False)
        monkeypatch.setattr(run, "run_demo", lambda out: real(out, quick))
    args, written, resumed = RUNS[command]
    out = tmp_path / "out"
    before = _foreign(out)
    (out / "mine.txt").write_text("the user's notes\n")
    done = _run(*args(inputs), "-o", out, "--overwrite")
    assert done.exit_code == 0, done.output
    assert not (out / "mine.txt").exists()
    for name, text in before.items():  # gone, or the command's own file of that name
        assert not (out / name).is_file() or (out / name).read_text() != text, name
    assert (out / written).is_file(), sorted(p.name for p in out.iterdir())
    assert json.loads((out / MARKER).read_text()) == {"command": command}
    kept = _files(out, resumed)
    assert kept or not resumed
    again = _run(*args(inputs), "-o", out)
    assert again.exit_code == 0, again.output
    assert "not empty" not in again.output and (out / written).is_file()
    assert _files(out, resumed) == kept  # resumed, not started over


@pytest.mark.parametrize(
    "where, message",
    [
        ("file", "is a file, not a folder"),
        ("under-file", "cannot create the folder"),
        ("proc", "cannot create the folder"),
    ],
)
def test_audit_refuses_an_unwritable_output_before_the_audit_runs(where, message, tmp_path, book):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = {"file": blocker, "under-file": blocker / "out", "proc": Path("/proc/fortap-out")}[where]
    result = _run("audit", book, "-o", out)
    assert result.exit_code == 1 and message in result.output, result.output
    assert "Traceback" not in result.output and "typed numbers read" not in result.output


def test_release_refuses_a_foreign_folder_before_reading_the_run(tmp_path):
    out = tmp_path / "out"
    before = _foreign(out)
    result = _run("release", tmp_path / "no-run", "-o", out, "--corpus", tmp_path / "no-corpus")
    _refused(result, out)
    assert _contents(out) == before
    text = " ".join(_run("release", "--help").output.replace("│", " ").split())
    assert "--overwrite" in text and "own run" in text, text


def test_formula_report_refuses_an_existing_file_unless_overwrite(tmp_path):
    src = tmp_path / "formulas.txt"
    src.write_text("SUM(A1:A3)\n")
    report = tmp_path / "counts.json"
    report.write_text("mine")
    result = _run("formula", "--file", src, "--report", report)
    assert result.exit_code == 1 and "the file exists; give --overwrite" in result.output
    assert report.read_text() == "mine"
    assert _run("formula", "--file", src, "--report", report, "--overwrite").exit_code == 0
    assert json.loads(report.read_text())["lines"] == 1


def test_claim_folder_keeps_its_own_run_and_empties_only_with_overwrite(tmp_path):
    out = tmp_path / "run"
    claim_folder(out, "pretrain")
    (out / "checkpoints").mkdir()
    claim_folder(out, "pretrain")  # its own run: kept, to resume
    assert (out / "checkpoints").is_dir()
    with pytest.raises(FortapError, match="holds no `fortap ingest` run"):
        claim_folder(out, "ingest")
    claim_folder(out, "ingest", overwrite=True)
    assert [p.name for p in out.iterdir()] == [MARKER]


def test_a_run_written_before_the_marker_is_recognised_by_its_files(tmp_path):
    out = tmp_path / "old-run"
    (out / "training").mkdir(parents=True)
    claim_folder(out, "finetune")
    assert json.loads((out / MARKER).read_text()) == {"command": "finetune"}


def test_overwrite_never_empties_a_folder_holding_the_inputs_or_the_working_folder(
    tmp_path, monkeypatch
):
    data = tmp_path / "data"
    data.mkdir()
    book = _book(data / "budget.xlsx")
    with pytest.raises(FortapError, match="would delete the input"):
        claim_folder(tmp_path, "ingest", overwrite=True, inputs=[book])
    monkeypatch.chdir(data)
    with pytest.raises(FortapError, match="holds far more than an output"):
        claim_folder(tmp_path, "ingest", overwrite=True)
    assert book.is_file()


def test_check_file_and_atomic_path(tmp_path):
    with pytest.raises(FortapError, match="must end in .png"):
        check_file(tmp_path / "x.txt", "--png", suffix=".png")
    with pytest.raises(FortapError, match="does not exist"):
        check_file(tmp_path / "none" / "x.png", "--png")
    target = tmp_path / "x.png"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("the write failed")
    assert list(tmp_path.iterdir()) == []  # no half file, no temporary left
    with atomic_path(target) as tmp:
        tmp.write_bytes(b"whole")
    assert target.read_bytes() == b"whole"


def test_file_part_keeps_sheet_names_inside_the_folder():
    assert file_part("a/b") == "a_b"
    assert file_part("../../x") == "x"
    assert file_part("Q1 2024 (draft)") == "Q1_2024_draft"
    assert file_part("///") == "sheet"


def test_check_file_refuses_a_folder_that_takes_no_file(tmp_path):
    if not Path("/proc").is_dir():
        pytest.skip("no /proc on this system")
    with pytest.raises(FortapError, match="its folder /proc (takes no file|is not writable)"):
        check_file(Path("/proc/x.png"), "--png", suffix=".png")
    assert check_file(tmp_path / "x.png", "--png", suffix=".png") == tmp_path / "x.png"
    assert list(tmp_path.iterdir()) == []  # the probe leaves nothing behind
