from fortap.suggest.candidates import generate
from fortap.suggest.candidates.book import candidates as book_candidates
from fortap.suggest.candidates.verbatim import candidates as verbatim_candidates
from fortap.suggest.context import BookContext, Target
from tests.suggest.sheets_ranker import book, sheet


def test_verbatim_keeps_the_written_references_nearest_first():
    # =A1 typed in B3 and D5, =C1 in D2: three R1C1 forms, two written texts
    s = sheet("S", {"A1": 5, "C1": 7, "B3": "=A1", "D5": "=A1", "D2": "=C1", "A6": "x"})
    ctx = BookContext.from_workbook(book(s))
    target = Target("S", 5, 3)  # D6
    cands = verbatim_candidates(ctx, target, frozenset({("S", 5, 3)}))
    assert [c.formula for c in cands] == ["=A1", "=C1"]
    assert cands[0].features["verb_n"] == 2.0
    assert cands[0].features["verb_dist"] == 1.0
    assert cands[0].features["verb_in_col"] == 1.0
    assert cands[0].reason == "written as in D5 and 1 more"


def test_verbatim_and_copy_of_the_same_text_are_one_candidate():
    s = sheet("S", {"A1": 1, "A2": 2, "B1": "=$A$1*2", "B2": "=$A$1*2"})
    ctx = BookContext.from_workbook(book(s))
    target = Target("S", 2, 1)  # B3
    cands = generate(ctx, target)
    same = [c for c in cands if c.formula == "=$A$1*2"]
    assert len(same) == 1
    assert same[0].features["src_copy"] == 1.0 and same[0].features["src_verbatim"] == 1.0
    assert same[0].features["verb_n"] == 2.0


def test_book_copies_other_sheets_formulas_moved_to_the_target():
    north = sheet("North", {"A1": 1, "A2": 2, "B1": "x", "B4": "=SUM(B2:B3)", "B2": 1})
    south = sheet("South", {"A1": 1, "B6": 3, "B7": 4, "C1": "y"})
    ctx = BookContext.from_workbook(book(north, south))
    target = Target("South", 7, 1)  # B8: North's total two rows further down
    cands = book_candidates(ctx, target, frozenset({("South", 7, 1)}))
    assert [c.formula for c in cands] == ["=SUM(B6:B7)"]
    assert cands[0].reason == "as in 'North'!B4, moved to this cell"
    assert cands[0].features["book_dr"] == -4.0
    assert cands[0].features["land_numbers"] == 1.0
    # the target's own sheet is never a source, and one sheet gives nothing
    assert book_candidates(ctx, Target("North", 4, 1), frozenset()) == []
    assert book_candidates(BookContext.from_workbook(book(north)), target, frozenset()) == []


def test_verbatim_adds_the_most_repeated_text_beyond_the_nearest():
    cells = {"A1": 1, "C1": "=A1", "C2": "=A1", "D9": "=A1*3", "E9": "=A1*4", "B9": "x"}
    ctx = BookContext.from_workbook(book(sheet("S", cells)))
    cands = verbatim_candidates(ctx, Target("S", 8, 1), frozenset(), limit=1)
    assert [c.formula for c in cands] == ["=A1*3", "=A1"]
    assert [c.features["verb_frequent"] for c in cands] == [0.0, 1.0]
