from fortap.suggest.candidates.sibling import candidates
from fortap.suggest.context import BookContext, Target
from tests.suggest.sheets_ranker import book, sheet


def _month(name: str, with_total: bool, shift: int = 0):
    cells = {"A1": "Item", "B1": "Amount"}
    for i, item in enumerate(("rent", "food", "fun")):
        cells[f"A{2 + i + shift}"] = item
        cells[f"B{2 + i + shift}"] = 10 * (i + 1)
    cells[f"A{5 + shift}"] = "Total"
    if with_total:
        cells[f"B{5 + shift}"] = f"=SUM($B${2 + shift}:B{4 + shift})"
    return sheet(name, cells)


def test_same_address_in_other_sheets():
    ctx = BookContext.from_workbook(
        book(_month("Jan", True), _month("Feb", True), _month("Mar", False))
    )
    cands = candidates(ctx, Target("Mar", 4, 1), frozenset({("Mar", 4, 1)}))
    assert [c.formula for c in cands] == ["=SUM($B$2:B4)"]
    assert cands[0].reason == "same address in sheet 'Jan'"
    assert cands[0].features["sib_sheets"] == 2.0
    assert cands[0].features["sib_labels_match"] == 1.0


def test_same_labels_elsewhere_re_anchor_the_formula():
    # Jan's total sits one row lower; matched by (row label, column label) = ("total", "amount")
    ctx = BookContext.from_workbook(book(_month("Jan", True, shift=1), _month("Mar", False)))
    cands = candidates(ctx, Target("Mar", 4, 1), frozenset({("Mar", 4, 1)}))
    assert [c.formula for c in cands] == ["=SUM($B$3:B4)"]
    assert cands[0].reason == "same row and column labels in sheet 'Jan'"
