"""The shipped cell-type model (`models/cell-types`): what its folder says, and `fortap
cell-types` using it by default on a real workbook, as a grid and as JSON."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from fortap.cli import app
from fortap.tasks.cell_types.cell_typer import SHIPPED
from fortap.tasks.cell_types.labels import CELL_TYPES

BOOK = "hitab/annotation_examples/Sentence Revision Alignment Conversion-StatCan/10.xlsx"


def test_the_shipped_folder_is_small_and_its_card_gives_its_numbers_and_command():
    size = sum(p.stat().st_size for p in SHIPPED.rglob("*") if p.is_file())
    assert size < 25e6
    meta = json.loads((SHIPPED / "model.json").read_text())
    metrics = json.loads((SHIPPED / "metrics.json").read_text())
    assert meta["kind"] == "boosted" and metrics["fold"] == "all"
    assert metrics["data"] == "../shared/data/saus_ctc" and metrics["held_out"]["folds"] == [
        0,
        1,
        2,
        3,
        4,
    ]
    card = (SHIPPED / "README.md").read_text()
    assert "fortap finetune cell-types ../shared/data/saus_ctc -o OUT" in card
    assert "data.all_folds=True" in card
    assert f"macro-F1 {metrics['held_out']['macro_f1']:.3f}" in card


def test_cell_types_uses_the_shipped_model_without_model(data_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["cell-types", str(data_dir / BOOK), "--rows", "8"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "typed by models/cell-types (shipped): boosted: LightGBM alone" in result.output.replace(
        "\n", " "
    )
    assert "Agaricus" in result.output and "types: metadata" in result.output
    assert list(tmp_path.iterdir()) == []  # a picture only when asked
    again = CliRunner().invoke(app, args)  # so the same command runs again, as it did
    assert again.exit_code == 0 and again.output == result.output
    drawn = CliRunner().invoke(app, [*args, "--png", str(tmp_path / "types.png")])
    assert drawn.exit_code == 0, drawn.output
    assert (tmp_path / "types.png").stat().st_size > 10_000


def test_json_gives_each_cells_address_type_and_probability_and_nothing_else(
    data_dir, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["cell-types", str(data_dir / BOOK), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)  # the whole of stdout is one JSON record
    assert (record["sheet"], record["kind"]) == ("labeling", "boosted")
    assert record["model"] == "models/cell-types (shipped)"
    cells = record["cells"]
    assert cells[0]["cell"] == "A1" and cells[0]["type"] == "metadata"  # the table's title
    assert all(re.fullmatch(r"[A-Z]+[1-9][0-9]*", c["cell"]) for c in cells)
    assert all(c["type"] in CELL_TYPES and 0 < c["probability"] <= 1 for c in cells)
    assert len({c["cell"] for c in cells}) == len(cells) > 100
    assert list(tmp_path.iterdir()) == []  # no PNG unless --png


def test_the_grid_pages_by_its_top_left_cell_and_says_what_it_shows(data_dir, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    book = str(data_dir / "euses_excelint/subjects_xlsx/04%20En%20R&D-CRB-SOR#A8312.xlsx")
    first = CliRunner().invoke(app, ["cell-types", book, "--rows", "5"])
    assert first.exit_code == 0, first.output
    said = " ".join(first.output.split())
    assert "(rows 1-5 of 201 and columns A-D of 15 shown; --start E1 shows the next" in said
    paged = CliRunner().invoke(app, ["cell-types", book, "--rows", "5", "--start", "E3"])
    assert paged.exit_code == 0, paged.output
    header = next(line for line in paged.output.splitlines() if "┃ E" in line)
    assert [c.strip() for c in header.strip("┃").split("┃")][1:] == ["E", "F", "G", "H"]
    assert "rows 3-7 of 201 and columns E-H of 15 shown; --start I3" in " ".join(
        paged.output.split())
    bad = CliRunner().invoke(app, ["cell-types", book, "--start", "E3:F4"])
    assert bad.exit_code == 1 and "--start takes one cell such as E20" in bad.output
