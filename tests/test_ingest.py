"""Ingest: folders -> Table JSONL + report; bad files are recorded with reasons, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fortap.sheet
import fortap.table
from fortap.cli import app
from fortap.demo.samples import SamplesConfig, write_samples
from fortap.errors import FortapError
from fortap.ingest import expand_paths, run_ingest, skip_lines
from fortap.table.io import read_jsonl


@pytest.fixture
def mixed_folder(tmp_path) -> Path:
    """A good workbook, a truncated one, a picture named .xlsx and a text file."""
    folder = tmp_path / "in"
    good = write_samples(folder, SamplesConfig(books=("budget",)))[0]
    data = good.read_bytes()
    (folder / "corrupt.xlsx").write_bytes(data[: len(data) // 2])
    (folder / "picture.xlsx").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (folder / "readme.txt").write_text("not a workbook\n")
    return folder


def read_report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def table_lines(out: Path) -> list[str]:
    """Every Table JSON line of an ingest output, shards in name order."""
    return [line for p in sorted((out / "tables.jsonl").glob("*.jsonl"))
            for line in p.read_text().splitlines()]  # fmt: skip


def untimed(report: dict) -> dict:
    for file in report["files"]:
        file.pop("seconds")
    report["totals"].pop("seconds")
    return report


def test_expand_paths_walks_folders_and_keeps_named_files(tmp_path):
    (tmp_path / "sub").mkdir()
    for name in ("b.xlsx", "sub/a.CSV", "notes.txt", "~$b.xlsx", ".hidden.xlsx"):
        (tmp_path / name).write_bytes(b"x")
    named = tmp_path / "notes.txt"
    files, ignored = expand_paths([tmp_path, tmp_path / "b.xlsx", named])
    assert [p.relative_to(tmp_path).as_posix() for p in files] == [
        "b.xlsx",
        "sub/a.CSV",
        "notes.txt",
    ]
    assert sorted(p.name for p in ignored) == [".hidden.xlsx", "notes.txt", "~$b.xlsx"]


def test_bad_files_are_recorded_and_good_tables_written(mixed_folder, tmp_path):
    out = tmp_path / "out"
    report = run_ingest([mixed_folder], out, progress=False)
    by_name = {Path(f.path).name: f for f in report.files}
    assert list(by_name) == ["budget.xlsx", "corrupt.xlsx", "picture.xlsx"]
    assert by_name["budget.xlsx"].status == "ok"
    assert (by_name["corrupt.xlsx"].status, by_name["corrupt.xlsx"].reason) == (
        "skipped",
        "corrupt_zip",
    )
    assert (by_name["picture.xlsx"].status, by_name["picture.xlsx"].reason) == (
        "skipped",
        "not_a_spreadsheet",
    )
    assert "corrupt.xlsx" in by_name["corrupt.xlsx"].message
    assert report.files_read == 1 and report.files_skipped == 2

    lines = table_lines(out)
    assert len(lines) == by_name["budget.xlsx"].tables == 3  # Staffing holds two tables
    assert all(Path(json.loads(line)["book"]).name == "budget.xlsx" for line in lines)
    saved = read_report(out)
    assert saved["totals"]["skipped_by_reason"] == {"corrupt_zip": 1, "not_a_spreadsheet": 1}
    assert saved["totals"]["formula_cells"] == 72 + 31
    assert [Path(p).name for p in saved["ignored"]] == ["readme.txt"]
    assert [s["name"] for s in saved["files"][0]["sheets"]] == ["FY2024 Budget", "Staffing"]
    whole = json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n"
    assert (out / "report.json").read_text() == whole  # written file by file, the same bytes


def test_an_unexpected_exception_skips_only_its_file(tmp_path, monkeypatch):
    paths = write_samples(tmp_path / "in", SamplesConfig(books=("loan", "sales")))
    real = fortap.sheet.read_workbook

    def flaky(path, *args, **kwargs):
        if Path(path).name == "loan.xlsx":
            raise RuntimeError("reader bug")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fortap.sheet, "read_workbook", flaky)
    report = run_ingest(paths, tmp_path / "out", progress=False)
    loan, sales = report.files
    assert (loan.status, loan.reason, loan.message) == (
        "skipped",
        "internal_error",
        "RuntimeError: reader bug",
    )
    assert sales.status == "ok" and sales.tables >= 1


def test_a_detection_failure_is_kept_on_its_sheet(tmp_path, monkeypatch):
    path = write_samples(tmp_path / "in", SamplesConfig(books=("budget",)))[0]
    detect = fortap.table.detect_tables

    def picky(sheet):
        if sheet.name == "Staffing":
            raise ValueError("odd layout")
        return detect(sheet)

    monkeypatch.setattr(fortap.table, "detect_tables", picky)
    (file,) = run_ingest([path], tmp_path / "out", progress=False).files
    budget, staffing = file.sheets
    assert file.status == "ok" and budget.tables and budget.error is None
    assert staffing.error == "internal_error: ValueError: odd layout" and staffing.tables == ()
    assert staffing.formula_cells == 31


def test_no_spreadsheet_files_is_an_error(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(FortapError, match="no spreadsheet files found"):
        run_ingest([tmp_path], tmp_path / "out", progress=False)


def test_workers_must_be_positive(tmp_path):
    with pytest.raises(ValueError, match="IngestConfig.workers"):
        run_ingest([tmp_path], tmp_path / "out", workers=0)


def test_two_workers_write_what_one_writes(mixed_folder, tmp_path):
    write_samples(mixed_folder / "more", SamplesConfig(books=("sales", "energy", "gradebook")))
    one = tmp_path / "one"
    two = tmp_path / "two"
    run_ingest([mixed_folder], one, workers=1, progress=False, files_per_task=2)
    run_ingest([mixed_folder], two, workers=2, progress=False, files_per_task=2)
    shards = sorted(p.name for p in (one / "tables.jsonl").iterdir())
    assert shards == ["part-00000.jsonl", "part-00001.jsonl", "part-00002.jsonl"]
    for name in shards:
        assert (one / "tables.jsonl" / name).read_bytes() == (
            two / "tables.jsonl" / name
        ).read_bytes()
    assert untimed(read_report(one)) == untimed(read_report(two))
    assert read_report(two)["totals"]["files_read"] == 4


def test_tables_read_back_as_detected(tmp_path):
    path = write_samples(tmp_path / "in", SamplesConfig(books=("gradebook",)))[0]
    run_ingest([path], tmp_path / "out", progress=False)
    back = list(read_jsonl(tmp_path / "out" / "tables.jsonl"))
    sheets = fortap.sheet.read_workbook(path).sheets
    assert back == [t for sheet in sheets for t in fortap.table.detect_tables(sheet)]
    assert [t.region.a1 for t in back] == ["A4:I20", "A23:B27", "A3:C9"]


def test_real_workbooks_survive(data_dir, tmp_path):
    """The three smallest EUSES workbooks: read, tables found, and the JSONL reads back."""
    folder = data_dir / "euses_excelint" / "subjects_xlsx"
    smallest = sorted(folder.glob("*.xlsx"), key=lambda p: (p.stat().st_size, p.name))[:3]
    report = run_ingest(smallest, tmp_path / "out", progress=False)
    assert report.files_read == 3
    back = list(read_jsonl(tmp_path / "out" / "tables.jsonl"))
    assert len(back) == report.totals()["tables"] > 0
    assert {t.book for t in back} <= {str(p) for p in smallest}


def test_cli_prints_each_skipped_file_with_its_reason(mixed_folder, tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["ingest", str(mixed_folder), "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:2] == [
        f"skipped {mixed_folder / 'corrupt.xlsx'} (corrupt_zip): corrupt or truncated zip archive "
        "(File is not a zip file)",
        f"skipped {mixed_folder / 'picture.xlsx'} (not_a_spreadsheet): not a spreadsheet: the "
        "content is unrecognised binary data, not a .xlsx workbook",
    ]
    # the summary stays one line in a file or pipe, however long its paths
    assert lines[2].startswith("read 1 of 3 files in ") and lines[2].endswith(
        f"skipped: corrupt_zip 1, not_a_spreadsheet 1; wrote {out / 'tables.jsonl'} and "
        f"{out / 'report.json'}"
    )
    assert len(lines) == 3
    quiet = CliRunner().invoke(app, ["ingest", str(mixed_folder), "-o", str(out), "--no-progress"])
    assert quiet.exit_code == 0 and quiet.output.splitlines()[-1].startswith("read 1 of 3 files")


def test_skip_lines_name_a_sheet_whose_detection_failed(tmp_path, monkeypatch):
    path = write_samples(tmp_path / "in", SamplesConfig(books=("budget",)))[0]

    def broken(sheet):
        raise ValueError("odd layout")

    monkeypatch.setattr(fortap.table, "detect_tables", broken)
    report = run_ingest([path], tmp_path / "out", progress=False)
    assert skip_lines(report) == [
        f"skipped sheet 'FY2024 Budget' of {path}: internal_error: ValueError: odd layout",
        f"skipped sheet 'Staffing' of {path}: internal_error: ValueError: odd layout",
    ]


def test_a_killed_run_resumes_its_unfinished_tasks_only(tmp_path, monkeypatch):
    paths = write_samples(tmp_path / "in", SamplesConfig(books=("loan", "sales", "budget")))
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    run_ingest(paths, clean, progress=False, files_per_task=1)
    run_ingest(paths, killed, progress=False, files_per_task=1)
    # a run killed while writing task 1: its marker is missing, its shard half written
    (killed / "tasks" / "00001.json").unlink()
    shard = killed / "tables.jsonl" / "part-00001.jsonl"
    shard.write_bytes(shard.read_bytes()[:100])
    read = []
    real = fortap.sheet.read_workbook
    monkeypatch.setattr(fortap.sheet, "read_workbook", lambda p: read.append(p) or real(p))
    run_ingest(paths, killed, progress=False, files_per_task=1)
    assert read == [str(paths[1])]
    assert table_lines(killed) == table_lines(clean)
    assert untimed(read_report(killed)) == untimed(read_report(clean))


def test_other_inputs_replace_the_old_output(tmp_path):
    paths = write_samples(tmp_path / "in", SamplesConfig(books=("loan", "sales", "budget")))
    out = tmp_path / "out"
    run_ingest(paths, out, progress=False, files_per_task=1)
    run_ingest(paths[:1], out, progress=False, files_per_task=1)
    assert [p.name for p in (out / "tables.jsonl").iterdir()] == ["part-00000.jsonl"]
    assert [p.name for p in (out / "tasks").iterdir()] == ["00000.json"]
    assert len(read_report(out)["files"]) == 1


def test_every_reader_takes_the_output_folder_and_only_its_tables(tmp_path):
    from fortap.table.inputs import table_inputs
    from fortap.table.io import read_tables

    paths = write_samples(tmp_path / "in", SamplesConfig(books=("loan", "sales", "budget")))
    out = tmp_path / "out"
    report = run_ingest(paths, out, progress=False, files_per_task=2)
    jsonl, hitab = table_inputs([out])
    assert [p.name for p in jsonl] == ["part-00000.jsonl", "part-00001.jsonl"] and hitab == []
    tables = read_tables([out])
    assert len(tables) == report.totals()["tables"]
    assert tables == read_tables([out / "tables.jsonl"]) == list(read_jsonl(out / "tables.jsonl"))
