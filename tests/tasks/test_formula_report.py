"""Formula-prediction reports: the comparison table, report.md and its PNG plots."""

from __future__ import annotations

from fortap.tasks.formula_prediction.report import (
    TERMS,
    CurvePoint,
    best_system,
    comparison_markdown,
    leaders,
    write_report,
)


def metrics(top1: float, top5: float) -> dict:
    return {
        "n": 4, "formula_top1": top1, "formula_top1_per_workbook": top1 / 2, "formula_top5": top5,
        "sketch_top1": 0.5,
        "sketch_top5": 1.0, "range_acc": 0.25,
        "by_sketch_length": {"1": {"n": 1, "formula_top1": 1.0}, "3": {"n": 3, "formula_top1": 0.0}},
    }  # fmt: skip


SYSTEMS = {"model": metrics(0.25, 0.5), "rules (paper)": metrics(0.5, 0.5)}


def test_comparison_markdown_is_exact():
    assert comparison_markdown(SYSTEMS).splitlines() == [
        "| system | n | formula top-1 | top-1 per workbook | formula top-5 | sketch top-1 "
        "| sketch top-5 | range acc |",
        "|---|---|---|---|---|---|---|---|",
        "| model | 4 | 25.0% | 12.5% | 50.0% | 50.0% | 100.0% | 25.0% |",
        "| rules (paper) | 4 | 50.0% | 25.0% | 50.0% | 50.0% | 100.0% | 25.0% |",
    ]
    assert best_system(SYSTEMS) == "rules (paper)"


def test_a_tie_is_named_a_tie(tmp_path):
    tied = {**SYSTEMS, "rules (sheet)": metrics(0.5, 1.0)}
    assert leaders(tied) == ["rules (paper)", "rules (sheet)"]
    assert best_system(tied) == "rules (paper) and rules (sheet) (tie)"
    text = write_report(tmp_path, tied).read_text()
    assert "Best formula top-1: **rules (paper) and rules (sheet) (tie)**." in text


def test_write_report_draws_both_plots(tmp_path):
    curve = [CurvePoint(0.5, 10, 0.1), CurvePoint(1.0, 20, 0.25)]
    path = write_report(tmp_path, SYSTEMS, curve, notes=["tiny run"])
    text = path.read_text()
    assert "Best formula top-1: **rules (paper)**." in text and "- tiny run" in text
    assert "| 0.5 | 10 | 10.0% |" in text
    assert TERMS == (
        "sketch: the formula with each cell reference replaced by [RANGE] (=SUM(B7:B8) has the "
        "sketch SUM([RANGE]:[RANGE])); sketch top-k counts the right shape",
        "range acc: of the formulas whose top-1 sketch is right, the share whose cell references "
        "are all right too",
    )
    assert f"- {TERMS[0]}\n- {TERMS[1]}\n" in text
    for name in ("accuracy_by_sketch_length.png", "learning_curve.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    write_report(tmp_path / "no_curve", SYSTEMS)
    assert not (tmp_path / "no_curve" / "learning_curve.png").exists()
