"""Formula text -> exact prefix tokens, sketch, ranges and verdict (table-driven)."""

import pytest

from fortap.formula import FORMULA_VOCAB, parse_formula
from fortap.sheet.model import a1

# text, prefix token texts, sketch without [START]/[END], ranges (A1), verdict
CASES = [
    ("=SUM(B2:B5)/B6", "/ SUM : B2 B5 B6", "/ SUM : R R R", "B2 B5 B6", "keep"),
    ("=A1+B1*C1", "+ A1 * B1 C1", "+ R * R R", "A1 B1 C1", "keep"),
    ("=(A1+B1)*C1", "* + A1 B1 C1", "* + R R R", "A1 B1 C1", "keep"),
    ("=A1-B1-C1", "- - A1 B1 C1", "- - R R R", "A1 B1 C1", "keep"),
    ("=A1^2^3", "^ ^ A1 2 3", "^ ^ R C-NUM C-NUM", "A1", "keep"),
    # unary minus binds tighter than ^ and is merged with binary "-" in the vocabulary
    ("=-A1^2", "^ u- A1 2", "^ - R C-NUM", "A1", "keep"),
    ("=-(A1^2)", "u- ^ A1 2", "- ^ R C-NUM", "A1", "keep"),
    ("=+A1", "u+ A1", "+ R", "A1", "keep"),
    ("=--A1", "u- u- A1", "- - R", "A1", "keep"),
    # formualizer reads -A1% as -(A1%)
    ("=-A1%", "u- % A1", "- % R", "A1", "keep"),
    ("=(-A1)%", "% u- A1", "% - R", "A1", "keep"),
    ("=A1*10%", "* A1 % 10", "* R % C-NUM", "A1", "keep"),
    ("=A1>=B1", ">= A1 B1", ">= R R", "A1 B1", "keep"),
    ("=A1=B1<>TRUE", "<> = A1 B1 TRUE", "<> = R R C-BOOL", "A1 B1", "keep"),
    ("=A1+1<B1&C1", '< + A1 1 & B1 C1', "< + R C-NUM & R R", "A1 B1 C1", "keep"),
    ('=A1&" kg"', '& A1 " kg"', "& R C-STR", "A1", "keep"),
    ("=SUM(A1:C3 B2:B4)", "SUM   : A1 C3 : B2 B4", "SUM UNKOP : R R : R R", "A1 C3 B2 B4", "keep"),
    ("=SUM((A1,C3))", "SUM , A1 C3", "SUM UNKOP R R", "A1 C3", "keep"),
    ("=SUM(A:A)", "SUM : A A", "SUM : R R", "A1 A1048576", "keep"),
    ("=SUM($2:2)", "SUM : 2 2", "SUM : R R", "A2 XFD2", "keep"),
    ("=A1:INDEX(B:B,3)", ": A1 INDEX : B B 3", ": R INDEX : R R C-NUM", "A1 B1 B1048576", "keep"),
    ("=VLOOKUP(A1,$B$2:$C$9,2,FALSE)", "VLOOKUP A1 : B2 C9 2 FALSE",
     "VLOOKUP R : R R C-NUM C-BOOL", "A1 B2 C9", "keep"),
    ('=COUNTIF(A1:A9,">0")', 'COUNTIF : A1 A9 ">0"', "UNKOP : R R C-STR", "A1 A9", "keep"),
    ("=ROUND(A1,)", "ROUND A1", "ROUND R", "A1", "keep"),
    ("=IF(A1,INDEX(B:B,2),OFFSET(A1,1,1))", "IF A1 INDEX : B B 2 OFFSET A1 1 1",
     "IF R INDEX : R R C-NUM OFFSET R C-NUM C-NUM", "A1 B1 B1048576 A1", "keep"),
    ("=_xlfn.STDEV.S(A1:A3)", "STDEV.S : A1 A3", "UNKOP : R R", "A1 A3", "keep"),
    ("=IF(A1=#N/A,1,0)", "IF = A1 #N/A 1 0", "IF = R C-STR C-NUM C-NUM", "A1", "keep"),
    # discarded, each with its reason
    ("=1+2", "+ 1 2", "+ C-NUM C-NUM", "", "no_reference"),
    ("=TODAY()", "TODAY", "UNKOP", "", "no_reference"),
    ("=Sheet2!A1+1", "+ Sheet2!A1 1", "+ R C-NUM", "A1", "cross_sheet"),
    ("=[1]Sheet1!A1", "[1]Sheet1!A1", "R", "", "external_workbook"),
    ("=SUM(Jan:Dec!B2)", "SUM Jan:Dec!B2", "SUM R", "", "three_d"),
    ("=MYFUNC(A1)", "MYFUNC A1", "UNKOP R", "A1", "user_defined_function"),
    ("=rate*A1", "* rate A1", "* R R", "A1", "named_range"),
    ("=Table1[Amount]*2", "* Table1[Amount] 2", "* R C-NUM", "", "structured_reference"),
    ("=T[[#This Row],[Col]]", "T[[#This Row],[Col]]", "R", "", "structured_reference"),
    ("=#REF!+A1", "+ #REF! A1", "+ C-STR R", "A1", "broken_reference"),
]  # fmt: skip


def _vocab(short: str) -> tuple[str, ...]:
    return tuple("[RANGE]" if s == "R" else f"[{s}]" for s in short.split())


@pytest.mark.parametrize(("text", "prefix", "sketch", "ranges", "verdict"), CASES)
def test_formula_representation(text, prefix, sketch, ranges, verdict):
    f = parse_formula(text, host_sheet="Sheet1")
    assert " ".join(t.text for t in f.tokens) == prefix
    assert f.sketch == ("[START]", *_vocab(sketch), "[END]")
    assert " ".join(a1(r, c) for r, c in f.ranges) == ranges
    assert f.verdict == verdict
    assert all(t.vocab in FORMULA_VOCAB for t in f.tokens)


def test_token_kinds_and_cells():
    f = parse_formula('=IF($C$4>0,C4/B4,"n/a")')
    assert [(t.kind, t.text, t.vocab, t.cell) for t in f.tokens] == [
        ("FUNC", "IF", "[IF]", None),
        ("OP", ">", "[>]", None),
        ("CELL", "C4", "[RANGE]", (3, 2)),
        ("CONST", "0", "[C-NUM]", None),
        ("OP", "/", "[/]", None),
        ("CELL", "C4", "[RANGE]", (3, 2)),
        ("CELL", "B4", "[RANGE]", (3, 1)),
        ("CONST", '"n/a"', "[C-STR]", None),
    ]


def test_sheet_qualifier_naming_the_host_sheet_is_not_cross_sheet():
    assert parse_formula("='My Sheet'!A1*2", host_sheet="my sheet").verdict == "keep"
    assert parse_formula("='My Sheet'!A1*2", host_sheet="Other").verdict == "cross_sheet"
    assert parse_formula("='My Sheet'!A1*2").verdict == "cross_sheet"


def test_array_formula_is_known_from_the_cell_not_the_text():
    assert parse_formula("=SUM(A1:A3*B1:B3)", array=True).verdict == "array_formula"
    assert parse_formula("=SUM(A1:A3*B1:B3)").verdict == "keep"


def test_first_reason_wins_when_several_apply():
    # external beats cross-sheet beats no-reference
    assert parse_formula("=[1]S!A1+Sheet2!B1").verdict == "external_workbook"
    assert parse_formula("=Sheet2!B1+MYF(1)").verdict == "cross_sheet"


def test_vocabulary_has_41_tokens_in_reference_order():
    assert len(FORMULA_VOCAB) == 41
    assert FORMULA_VOCAB[:7] == (
        "[START]",
        "[END]",
        "[:]",
        "[RANGE]",
        "[C-STR]",
        "[C-NUM]",
        "[C-BOOL]",
    )
    assert FORMULA_VOCAB[7] == "[%]" and FORMULA_VOCAB[19] == "[<=]"
    assert FORMULA_VOCAB[20] == "[SUM]" and FORMULA_VOCAB[39] == "[SUBTOTAL]"
    assert FORMULA_VOCAB[-1] == "[UNKOP]"


def test_r1c1_is_dollar_aware():
    # the paper's dragged example: same R1C1 for every copy down the column
    a = parse_formula("=B7*$S$2", cell=(6, 3))
    b = parse_formula("=B8*$S$2", cell=(7, 3))
    assert a.r1c1 == b.r1c1 == "=RC[-2]*R2C19"
    assert parse_formula("=SUM(B$2:B6)", cell=(6, 1)).r1c1 == "=SUM(R2C:R[-1]C)"
    assert parse_formula("=SUM(A:A)", cell=(0, 2)).r1c1 == "=SUM(C[-2]:C[-2])"
    assert parse_formula("=A1").r1c1 is None
