"""What the demo prints: the paper-setting sentence (a winner, or a tie when the counts are
equal) and the found-tables view, whose names use the width they are given."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from fortap.demo.explain import paper_setting_verdict
from fortap.demo.run import found_table, name_widths
from fortap.ingest_report import FileReport, IngestReport, SheetSummary, TableSummary


def top1(model: float, paper: float, sheet: float = 0.735) -> dict[str, float]:
    return {"model": model, "rules (paper)": paper, "rules (sheet)": sheet}


def test_equal_top1_is_a_tie():
    assert paper_setting_verdict(top1(4 / 83, 4 / 83)) == (
        "in the paper setting (no other formula visible) the model and the rules tie: model 4.8% "
        "vs rules 4.8% formula top-1; with the sheet's other formulas visible the rules reach 73.5%"
    )


def test_a_winner_is_named():
    assert "the rules win: model 4.8% vs rules 9.6%" in paper_setting_verdict(top1(4 / 83, 8 / 83))
    assert "the model wins: model 9.6% vs rules 4.8%" in paper_setting_verdict(top1(8 / 83, 4 / 83))


def test_found_tables_show_whole_names_in_a_wide_console():
    context = "City of Riverside - Annual Operating Budget FY2024"
    table = TableSummary("A4:I22", 2, 1, 2, 2, context, 72)
    sheet = SheetSummary("FY2024 Budget by Department", 22, 9, 180, 72, 72, (table,))
    report = IngestReport(Path("out"), (FileReport("in/budget.xlsx", "ok", sheets=(sheet,)),))
    assert name_widths(80) == (7, 8, 13) and name_widths(200) == (30, 30, 80)

    def rendered(width: int) -> str:
        console = Console(file=io.StringIO(), width=width)
        console.print(found_table(report, console.width))
        return console.file.getvalue()

    wide, narrow = rendered(200), rendered(80)
    assert "│ budget │ FY2024 Budget by Department │ A4:I22 │" in wide and context in wide
    assert "│ budget │ FY2024 … │ A4:I22 │" in narrow and "│ City of Rive… │" in narrow
    top = narrow.splitlines()[1]  # the table's top border, whole within 80 columns
    assert top.startswith("┏") and top.endswith("┓") and len(top) == 75
