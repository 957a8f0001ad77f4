from fortap.suggest.candidates import generate
from fortap.suggest.candidates.keyed import candidates as keyed_candidates
from fortap.suggest.context import BookContext, Target
from tests.suggest.sheets_ranker import book, sheet

REGIONS = {
    "A1": "Region", "B1": "Sales", "E1": "Region", "F1": "Sales",
    "E2": "North", "F2": 10, "E3": "South", "F3": 20, "E4": "North", "F4": 5,
    "A2": "North", "B2": '=SUMIF($E$2:$E$4,"North",$F$2:$F$4)',
    "A3": "South",
}  # fmt: skip


def test_keyed_puts_the_target_rows_label_in_the_text_constant():
    ctx = BookContext.from_workbook(book(sheet("S", REGIONS)))
    target = Target("S", 2, 1)  # B3, in the South row
    cands = keyed_candidates(ctx, target, frozenset({("S", 2, 1)}))
    assert [c.formula for c in cands] == ['=SUMIF($E$2:$E$4,"South",$F$2:$F$4)']
    assert cands[0].reason == "as in B2, with this row's label"
    assert cands[0].features["keyed_by_row"] == 1.0
    assert cands[0].features["keyed_changed"] == 1.0
    # merged with the other sources under one text, flagged as keyed
    merged = [c for c in generate(ctx, target) if "South" in c.formula]
    assert len(merged) == 1 and merged[0].features["src_keyed"] == 1.0


def test_keyed_keeps_the_case_the_constant_wrote_and_moves_references():
    cells = {
        "A1": "DGATE", "B1": 2.0, "C1": '=DDE("srv","data","dgate.LAST")*B1',
        "A2": "KRDMA", "B2": 3.0,
    }  # fmt: skip
    ctx = BookContext.from_workbook(book(sheet("S", cells)))
    cands = keyed_candidates(ctx, Target("S", 1, 2), frozenset({("S", 1, 2)}))  # C2
    assert [c.formula for c in cands] == ['=DDE("srv","data","krdma.LAST")*B2']


def test_keyed_by_column_label_and_nothing_without_a_label_or_constant():
    cells = {"B1": "Jan", "C1": "Feb", "B2": '=COUNTIF($A$5:$A$9,"Jan")', "A2": "n"}
    ctx = BookContext.from_workbook(book(sheet("S", cells)))
    cands = keyed_candidates(ctx, Target("S", 1, 2), frozenset())  # C2, the Feb column
    assert [c.formula for c in cands] == ['=COUNTIF($A$5:$A$9,"Feb")']
    assert cands[0].features["keyed_by_row"] == 0.0
    # D2 has no label above it, and a sheet without text constants gives nothing
    assert keyed_candidates(ctx, Target("S", 1, 3), frozenset()) == []
    plain = BookContext.from_workbook(book(sheet("S", {"A1": "x", "B1": "=1+2", "A2": "y"})))
    assert keyed_candidates(plain, Target("S", 1, 1), frozenset()) == []


def test_keyed_never_reads_a_hidden_label():
    ctx = BookContext.from_workbook(book(sheet("S", REGIONS)))
    # the target and the row's two "South" cells (A3, and E3 of the data beside it)
    hidden = frozenset({("S", 2, 1), ("S", 2, 0), ("S", 2, 4)})
    assert keyed_candidates(ctx, Target("S", 2, 1), hidden) == []
