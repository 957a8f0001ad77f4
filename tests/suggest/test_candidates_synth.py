"""The synthesis source inside the engine: found from values, placed at the target, `=+` too."""

from fortap.suggest.candidates import generate
from fortap.suggest.candidates.synth import FEATURES, PLUS, candidates
from fortap.suggest.context import BookContext, Target
from tests.suggest.sheets_ranker import book, sheet

ROWS = [(12, 4), (30, 5), (7, 2), (45, 9), (18, 6), (9, 3)]


def ratio_book() -> BookContext:
    """B and C typed, D = (B - C) / C as values only (no formula anywhere)."""
    cells: dict[str, object] = {"A1": "Item", "B1": "Now", "C1": "Before", "D1": "Change %"}
    for i, (b, c) in enumerate(ROWS, start=2):
        cells |= {f"A{i}": f"x{i}", f"B{i}": b, f"C{i}": c, f"D{i}": (b - c) / c}
    return BookContext.from_workbook(book(sheet("S", cells)))


def test_the_block_formula_and_its_plus_twin_come_first():
    ctx = ratio_book()
    target = Target("S", 4, 3)  # D5
    got = candidates(ctx, target, frozenset({("S", 4, 3)}))
    texts = [c.formula for c in got]
    assert texts[:2] == ["=(B5-C5)/C5", "=+(B5-C5)/C5"]
    assert got[0].features["syn_plus"] == 0.0 and got[1].features["syn_plus"] == 1.0
    assert got[0].reason == "reproduces the values of 5 cells of D2:D7"
    assert sum(c.features["syn_plus"] for c in got) <= PLUS
    assert all(set(c.features) == set(FEATURES) for c in got)


def test_it_proposes_in_the_paper_setting_and_hides_what_it_is_told():
    ctx = ratio_book()
    target = Target("S", 4, 3)
    paper = [c for c in generate(ctx, target, setting="paper") if c.source == "synth"]
    assert paper and paper[0].formula == "=(B5-C5)/C5"
    hidden = frozenset({("S", r, 3) for r in range(1, 7)})  # the whole block hidden
    assert "=(B5-C5)/C5" not in [c.formula for c in candidates(ctx, target, hidden)]
