"""The last step of ranking: circular candidates are dropped, degenerate ones go after the rest,
and the order is kept otherwise."""

from __future__ import annotations

from fortap.formula import parse_formula
from fortap.formula.references import refers_to
from fortap.tasks.formula_prediction.evaluate import usable_order
from fortap.tasks.formula_prediction.metrics import Guess

C38 = (37, 2)  # 0-based (row, col) of C38


def copy(text: str) -> tuple[Guess, dict]:
    return Guess(("[START]", "[END]"), ()), {"formula": text, "source": "copy:X1"}


def written(sketch: tuple[str, ...], cells: tuple) -> tuple[Guess, dict]:
    return Guess(("[START]", *sketch, "[END]"), cells), {"source": "written"}


def texts(ranked):
    return [info.get("formula") or " ".join(g.sketch[1:-1]) for g, info in ranked]


def test_circular_ones_are_dropped_and_degenerate_ones_come_last():
    ranked = [
        copy("=SUM(C39:C37)"),  # its moved range runs over C38 itself
        copy("=B38/B38"),  # same operands: always 1
        copy("=C36/C37"),
        written(("[SUM]", "[:]", "[RANGE]", "[RANGE]"), ((30, 2), (36, 2))),  # SUM(C31:C37)
        written(("[SUM]", "[RANGE]"), ((37, 2),)),  # =SUM(C38): circular
        written(("[SUM]", "[C-NUM]"), ()),  # a placeholder: nothing to judge, it stays
    ]
    out = usable_order(ranked, C38, top_k=5)
    assert texts(out) == ["=C36/C37", "[SUM] [:] [RANGE] [RANGE]", "[SUM] [C-NUM]", "=B38/B38"]
    assert texts(usable_order(ranked, C38, top_k=1)) == ["=C36/C37"]


def test_refers_to_reads_areas_and_the_sheet():
    assert refers_to(parse_formula("=SUM(C30:C40)").ast, C38)
    assert not refers_to(parse_formula("=SUM(D30:D40)").ast, C38)
    assert not refers_to(parse_formula("=Other!C38+1").ast, C38, "Main")
    assert refers_to(parse_formula("=Main!C38+1").ast, C38, "Main")


def test_a_reference_naming_the_targets_own_sheet_is_circular_too():
    ranked = [copy("=Main!C38+1"), copy("=Other!C38+1")]
    assert texts(usable_order(ranked, C38, top_k=5, sheet="Main")) == ["=Other!C38+1"]
