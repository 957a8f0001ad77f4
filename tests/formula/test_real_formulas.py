"""Real formulas from ../shared/data survive the whole path."""

import pytest

from fortap.formula.report import read_formula_lines, summarise

pytestmark = pytest.mark.slow


def test_euses_formula_list_parses_and_round_trips(data_dir):
    lines = read_formula_lines(data_dir / "xlparser-formulas/euses/formulas.txt")
    sample = lines[::7]  # every 7th line keeps this test to a couple of seconds
    s = summarise(sample)
    assert s["parse_rate"] >= 0.997
    assert set(s["failures"]) <= {"external_workbook", "invalid_text"}
    assert s["round_trip"]["identical"] == s["parsed"]


def test_structured_references_parse(data_dir):
    lines = read_formula_lines(
        data_dir / "xlparser-formulas/testformulas/structured_references.txt"
    )
    s = summarise(lines)
    assert s["parsed"] == len(lines) == 73
    assert s["round_trip"]["identical"] == 73
    assert s["verdicts"].get("structured_reference", 0) >= 60
