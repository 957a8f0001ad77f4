"""Formula shapes: text up to cell addresses, and reuse that gives the same `Formula`."""

from fortap.formula import parse_formula
from fortap.formula.formula import _SHAPES
from fortap.formula.shape import SLOT, scan


def shape_and_cells(text):
    shape, slots = scan(text)
    return shape.replace(SLOT, "@"), [s[4] for s in slots]


def test_scan_replaces_only_cell_addresses():
    assert shape_and_cells("=SUM(B2:$B$5)/b6") == ("=SUM(@:@)/@", ["B2", "B5", "B6"])
    assert shape_and_cells("=LOG10(A1)+ATAN2(B1,C1)") == (
        "=LOG10(@)+ATAN2(@,@)",
        ["A1", "B1", "C1"],
    )
    assert shape_and_cells('=IF(A1="B2",Sheet1!C3,1E5)') == (
        '=IF(@="B2",Sheet1!@,1E5)',
        ["A1", "C3"],
    )
    assert shape_and_cells("='A1 x'!D4+T[C5]") == ("='A1 x'!@+T[C5]", ["D4"])
    assert shape_and_cells("=SUM(A:A)+rate2") == ("=SUM(A:A)+rate2", [])
    assert scan("=XFE1+A1") is None  # beyond the last column: a name, not a cell


def test_dragged_copies_share_one_shape():
    _SHAPES.clear()
    a = parse_formula("=B7*$S$2", "Sheet1", (6, 3))
    b = parse_formula("=B8*$S$2", "Sheet1", (7, 3))
    assert len(_SHAPES) == 1
    assert b == parse_formula("=B8*$S$2", "Sheet1", (7, 3), reuse_shapes=False)
    assert b.ast == parse_formula("=B8*$S$2", reuse_shapes=False).ast
    assert a.r1c1 == b.r1c1 and b.ranges == ((7, 1), (1, 18))


def test_shapes_that_do_not_match_the_parse_are_not_reused():
    _SHAPES.clear()
    f = parse_formula("=[1]Sheet1!A1+B1")  # the external address is no slot of ours
    assert f.verdict == "external_workbook"
    parse_formula("=[1]Sheet1!A3+B3")  # the second sighting tries to learn the shape
    assert list(_SHAPES.values()) == [None]
    assert parse_formula("=[1]Sheet1!A2+B2") == parse_formula(
        "=[1]Sheet1!A2+B2", reuse_shapes=False
    )
