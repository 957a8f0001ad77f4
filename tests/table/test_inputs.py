from pathlib import Path

import pytest

from fortap.errors import FortapError
from fortap.table.inputs import table_inputs


def test_ingest_report_is_not_a_hitab_table(tmp_path: Path) -> None:
    ingest = tmp_path / "ingest"
    ingest.mkdir()
    (ingest / "tables.jsonl").write_text("")
    (ingest / "report.json").write_text("{}")
    hitab = tmp_path / "hitab"
    hitab.mkdir()
    (hitab / "report.json").write_text("{}")  # no tables.jsonl beside it: a table like any other
    (hitab / "t1.json").write_text("{}")

    jsonl, json_files = table_inputs([ingest, hitab, ingest / "tables.jsonl"])

    assert jsonl == [ingest / "tables.jsonl"]
    assert json_files == [hitab / "report.json", hitab / "t1.json"]


def test_missing_and_empty_inputs_are_named(tmp_path: Path) -> None:
    with pytest.raises(FortapError, match="table input not found: .*nope"):
        table_inputs([tmp_path / "nope"])
    with pytest.raises(FortapError, match="no Table JSONL or HiTab JSON files in"):
        table_inputs([tmp_path])


def test_the_output_marker_of_a_folder_is_not_a_table(tmp_path: Path) -> None:
    """`fortap ingest -o D` claims D with a marker; `build-corpus D` must not read it."""
    from fortap.outputs import claim_folder

    ingest = tmp_path / "ingest"
    claim_folder(ingest, "ingest")
    (ingest / "tables.jsonl").write_text("")
    (ingest / "report.json").write_text("{}")

    assert table_inputs([ingest]) == ([ingest / "tables.jsonl"], [])
