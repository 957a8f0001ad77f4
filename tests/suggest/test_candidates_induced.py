from dataclasses import replace

from fortap.sheet.model import Cell
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.induced import candidates
from fortap.suggest.candidates.template import candidates as template_candidates
from fortap.suggest.candidates.values import numbers_near
from fortap.suggest.context import BookContext, Target
from fortap.suggest.train import examples, labels_of
from tests.suggest.sheets_ranker import book, sheet


def computed(text: str, value: float) -> Cell:
    """A formula cell with the value the spreadsheet program cached for it."""
    return Cell(value, "number", formula=text)


def context(values: dict[str, object], formulas: dict[tuple[int, int], Cell]) -> BookContext:
    """A one-sheet book ("S") of `values` (as `sheets_ranker.sheet` reads them) and formula
    cells with their cached values at 0-based (row, col)."""
    s = sheet("S", values)
    grid = {**s.cells, **formulas}
    rows, cols = max(r for r, _ in grid) + 1, max(c for _, c in grid) + 1
    return BookContext.from_workbook(book(replace(s, n_rows=rows, n_cols=cols, cells=grid)))


def change_book(target_value: float = 0.0) -> BookContext:
    """Jan in B, Feb in C, D = C - B in rows 2-5 (D5 is the target, cached `target_value`)."""
    values = {
        "A1": "Item", "B1": "Jan", "C1": "Feb", "D1": "Change",
        "B2": 1, "C2": 4, "B3": 2, "C3": 7, "B4": 3, "C4": 11, "B5": 5, "C5": 6,
    }  # fmt: skip
    block = {(r, 3): computed(f"=C{r + 1}-B{r + 1}", c - b)
             for r, (b, c) in enumerate(((1, 4), (2, 7), (3, 11)), start=1)}  # fmt: skip
    return context(values, {**block, (4, 3): computed("=C5-B5", target_value)})


TARGET = Target("S", 4, 3)  # D5
HIDDEN = frozenset({("S", 4, 3)})


def test_a_block_seen_through_its_values_is_moved_to_the_target():
    cands = candidates(change_book(), TARGET, HIDDEN)
    assert cands[0].formula == "=C5-B5"
    assert cands[0].features["ind_col"] == 3.0  # D2, D3 and D4 all equal C - B
    assert cands[0].features["ind_row"] == 0.0
    assert cands[0].features["ind_near"] == 1.0
    assert cands[0].reason == "computes the values of 3 neighbouring cells"
    assert all(c.source == "induced" for c in cands)


def test_the_target_value_is_never_read():
    # 11 would make D5 = C4 and = B5 + B5 + 1 ...; whatever it holds, nothing changes, even
    # when the caller forgets to hide the target
    texts = [c.formula for c in candidates(change_book(0.0), TARGET, HIDDEN)]
    for value in (1.0, 11.0, 123.0):
        assert texts == [c.formula for c in candidates(change_book(value), TARGET, HIDDEN)]
        assert texts == [c.formula for c in candidates(change_book(value), TARGET, frozenset())]


def test_a_constant_needs_two_anchors_that_agree():
    values = {"A1": 10, "A2": 20, "A3": 40}
    ctx = context(values, {(0, 1): computed("=A1*0.8", 8.0)})
    texts = [c.formula for c in candidates(ctx, Target("S", 2, 1), frozenset({("S", 2, 1)}))]
    assert "=A3*0.8" not in texts  # only B1 says 0.8
    ctx = context(values, {(0, 1): computed("=A1*0.8", 8.0), (1, 1): computed("=A2*0.8", 16.0)})
    cands = candidates(ctx, Target("S", 2, 1), frozenset({("S", 2, 1)}))
    by_text = {c.formula: c for c in cands}
    assert by_text["=A3*0.8"].features["ind_col"] == 2.0
    assert by_text["=A3/1.25"].features["ind_col"] == 2.0  # the same constant, divided


def test_constants_added_and_plainly_written():
    values = {"A1": 1, "A2": 2, "A3": 3, "C1": 2e6, "C2": 4e6, "C3": 5e6}
    formulas = {(0, 1): computed("=A1+1", 2.0), (1, 1): computed("=A2+1", 3.0),  # B: A + 1
                (0, 3): computed("=C1/1000000", 2.0), (1, 3): computed("=C2/1000000", 4.0)}  # fmt: skip
    ctx = context(values, formulas)
    texts = [c.formula for c in candidates(ctx, Target("S", 2, 1), frozenset())]
    assert "=A3+1" in texts
    texts = [c.formula for c in candidates(ctx, Target("S", 2, 3), frozenset())]
    assert "=C3/1000000" in texts  # not 1e+06


def test_a_pair_never_uses_one_cell_twice():
    # B1 = 8 = A1 + A1 and B2 = 6 = A2 + A2: only pairs of two different cells may explain them
    ctx = context({"A1": 4, "A2": 3, "A3": 5}, {(0, 1): computed("=A1*2", 8.0),
                                                (1, 1): computed("=A2*2", 6.0)})  # fmt: skip
    texts = [c.formula for c in candidates(ctx, Target("S", 2, 1), frozenset())]
    assert "=A3+A3" not in texts and "=A3*2" in texts


def test_zero_anchors_and_hidden_cells_explain_nothing():
    ctx = context({"A1": 0, "A2": 0, "A3": 0, "B3": 0}, {})
    assert candidates(ctx, Target("S", 2, 1), frozenset({("S", 2, 1)})) == []
    hidden = HIDDEN | {("S", r, 3) for r in range(1, 4)}  # the whole block: no anchor left
    assert not [c for c in candidates(change_book(), TARGET, hidden) if c.formula == "=C5-B5"]


def test_the_paper_setting_proposes_induced_formulas_and_sees_no_formula():
    cands = generate(change_book(), TARGET, setting="paper")
    induced = {c.formula: c for c in cands if c.features.get("src_induced")}
    assert induced["=C5-B5"].features["ind_col"] == 3.0
    assert all(c.features["q_log_formulas"] == 0.0 for c in cands)  # no formula is counted
    sheet = generate(change_book(), TARGET, setting="sheet")
    assert sheet[0].features["q_log_formulas"] > 0.0
    # the block SUM template stops at a formula only where formulas are seen
    ctx = context({"A6": "Total", "B1": 1, "B3": 2, "B5": 4}, {(3, 1): computed("=B3", 2.0)})
    target = Target("S", 5, 1)
    seen = [
        c.formula for c in template_candidates(ctx, target, frozenset()) if "across" in c.reason
    ]
    blind = template_candidates(ctx, target, frozenset(), formulas_seen=False)
    assert seen == []  # B4's formula closes the block at once
    assert "=SUM(B1:B5)" in [c.formula for c in blind if "across" in c.reason]
    for setting, found in (("sheet", False), ("paper", True)):  # what `generate` passes on
        texts = [c.formula for c in generate(ctx, target, setting=setting) if c.source == "template"]
        assert ("=SUM(B1:B5)" in texts) is found


def share_book(
    total_at: str = "A5", target_value: float = 0.0, extra=None, gold: str = "=A4/$A$5"
) -> BookContext:
    """A1:A4 amounts, their total 760.5 in `total_at`; B1:B3 each amount's share of it (B4, the
    target: formula `gold`, cached `target_value`)."""
    amounts = (120.5, 230.25, 310.0, 99.75)
    values = {f"A{i + 1}": v for i, v in enumerate(amounts)} | {total_at: 760.5} | (extra or {})
    shares = {(r, 1): computed(f"=A{r + 1}/{total_at}", v / 760.5)
              for r, v in enumerate(amounts[:3])}  # fmt: skip
    return context(values, {**shares, (3, 1): computed(gold, target_value)})


SHARE = Target("S", 3, 1)  # B4


def test_a_constant_that_a_cell_holds_is_that_cell_fixed():
    by_text = {c.formula: c for c in candidates(share_book(), SHARE, frozenset())}
    fixed = by_text["=A4/$A$5"]
    assert fixed.reason == "computes the values of 3 neighbouring cells, with A5 as its constant"
    assert fixed.features["ind_col"] == 3.0 and fixed.features["ind_log_holders"] == 0.0
    assert fixed.features["ind_fixed_line"] == 1.0  # A5 closes A4's column
    assert fixed.features["ind_kind"] < by_text["=A4/760.5"].features["ind_kind"]
    far = {c.formula: c for c in candidates(share_book("D9"), SHARE, frozenset())}["=A4/$D$9"]
    assert far.features["ind_fixed_line"] == 0.0
    assert far.features["ind_fixed_far"] > fixed.features["ind_fixed_far"]


def test_a_fixed_cell_along_a_row():
    values = {"A1": 3.5, "B1": 7.25, "C1": 10.0, "D1": 4.0, "F3": 1.5}  # the rate in F3
    ctx = context(values, {(1, c): computed(f"=$F3*{a}1", v * 1.5)
                           for c, (a, v) in enumerate((("A", 3.5), ("B", 7.25), ("C", 10.0)))})  # fmt: skip
    texts = [c.formula for c in candidates(ctx, Target("S", 1, 3), frozenset())]
    assert "=D1*$F$3" in texts


def test_no_fixed_cell_when_it_is_hidden_the_target_or_too_common():
    def fixed(ctx, hidden=frozenset()):
        return [c.formula for c in candidates(ctx, SHARE, hidden) if "ind_fixed_far" in c.features]

    assert fixed(share_book(), frozenset({("S", 4, 0)})) == []  # A5 hidden
    # the target holding the constant is no holder, whatever it holds, hidden or not
    for value in (0.0, 760.5):
        assert fixed(share_book(target_value=value)) == ["=A4/$A$5"]
    four = {"D1": 760.5, "D2": 760.5, "D3": 760.5}  # four holders: a unit, not a cell's value
    assert fixed(share_book(extra=four)) == []
    assert set(fixed(share_book(extra={"D1": 760.5}))) == {"=A4/$A$5", "=A4/$D$1"}


def test_a_negative_fixed_cell_and_large_sums_are_found():
    # a balance column: B = A + D1, D1 = -150.5 (a negative adjustment kept in one cell)
    amounts = (1000.25, 2000.75, 1234.5, 980.0)
    values = {f"A{i + 1}": v for i, v in enumerate(amounts)} | {"D1": -150.5}
    ctx = context(values, {(r, 1): computed(f"=A{r + 1}+$D$1", v - 150.5)
                           for r, v in enumerate(amounts[:3])})  # fmt: skip
    by_text = {c.formula: c for c in candidates(ctx, SHARE, frozenset())}
    assert "=A4-150.5" in by_text
    assert by_text["=A4+$D$1"].features["ind_landed"] == 1.0  # A4 and D1 both hold numbers
    # amounts so large that `v - x` is off the holder's 12 digits: found by value all the same
    big = (1e9 + 0.1, 2e9 + 0.3, 3e9 + 0.7, 4e9 + 0.9)
    values = {f"A{i + 1}": v for i, v in enumerate(big)} | {"D1": 0.123456789}
    ctx = context(values, {(r, 1): computed(f"=A{r + 1}+$D$1", v + 0.123456789)
                           for r, v in enumerate(big[:3])})  # fmt: skip
    assert "=A4+$D$1" in [c.formula for c in candidates(ctx, SHARE, frozenset())]


def test_near_numbers_are_no_fixed_cells_beside_large_values():
    # anchors near 3e9: the module's equality allows +-3 there, but a holder must be the constant
    big = (2e9 + 0.25, 3e9 + 0.5, 4e9 + 0.75, 5e9)
    rates = {f"H{j + 1}": round(0.01 * j + 0.005, 3) for j in range(30)}  # 0.005 .. 0.295
    values = {f"A{i + 1}": v for i, v in enumerate(big)} | rates
    ctx = context(values, {(r, 1): computed(f"=A{r + 1}+0.5", v + 0.5)
                           for r, v in enumerate(big[:3])})  # fmt: skip
    texts = [c.formula for c in candidates(ctx, SHARE, frozenset())]
    assert "=A4+0.5" in texts and not any("$H$" in t for t in texts)


def test_both_operands_of_a_sum_count_beside_large_values():
    # C = A + B with A near 3e9: B = 0.5 counts and is found; D holds tiny numbers that the
    # 1e-9 of v (about 3) would also let pass, so `=A4+D4` must not be proposed
    big = (2e9 + 0.25, 3e9 + 0.5, 4e9 + 0.75, 5e9)
    values = {f"A{i + 1}": v for i, v in enumerate(big)}
    values |= {f"B{i + 1}": 0.5 for i in range(4)}
    values |= {f"D{i + 1}": 0.001 * (i + 1) for i in range(4)}
    ctx = context(values, {(r, 2): computed(f"=A{r + 1}+B{r + 1}", v + 0.5)
                           for r, v in enumerate(big[:3])})  # fmt: skip
    texts = [c.formula for c in candidates(ctx, Target("S", 3, 2), frozenset())]
    assert "=A4+B4" in texts and "=A4+D4" not in texts and "=D4+A4" not in texts


def test_sums_stored_with_15_digits_are_found():
    # LibreOffice writes values with 15 significant digits (a converted .xls): the stored sum
    # 10000001.0765432 is off A1 + B1 by more than one float rounding, and still their sum
    a_b = [(9999999.87654325 + 1.111 * r, 1.2 + 0.3 * r) for r in range(4)]
    values = {f"A{r + 1}": a for r, (a, _) in enumerate(a_b)}
    values |= {f"B{r + 1}": b for r, (_, b) in enumerate(a_b)}
    ctx = context(values, {(r, 2): computed(f"=A{r + 1}+B{r + 1}", float(f"{a + b:.15g}"))
                           for r, (a, b) in enumerate(a_b[:3])})  # fmt: skip
    assert "=A4+B4" in [c.formula for c in candidates(ctx, Target("S", 3, 2), frozenset())]


def test_numbers_near_finds_the_sheets_numbers_within_a_tolerance():
    ctx = context({"A1": 0.5, "A2": 0.5000001, "A3": -0.5, "A4": 7, "B1": "x"}, {})
    sc = ctx.sheets["S"]
    assert numbers_near(sc, 0.5, 1e-9) == [0.5]
    assert numbers_near(sc, 0.5, 1e-6) == [0.5, 0.5000001]
    assert numbers_near(sc, -0.5, 0.0) == [-0.5]
    assert numbers_near(sc, 7.0, 0.5) == []  # a small integer is no cell's value to point at


def test_small_integers_stay_constants():
    values = {"A1": 150.0, "A2": 300.0, "A3": 450.0, "D1": 12}  # 12 months, typed in D1 too
    ctx = context(values, {(0, 1): computed("=A1/12", 12.5), (1, 1): computed("=A2/12", 25.0)})
    texts = [c.formula for c in candidates(ctx, Target("S", 2, 1), frozenset())]
    assert "=A3/12" in texts and "=A3/$D$1" not in texts


def test_dollars_count_except_in_the_paper_setting():
    # no formula shows its `$` in the paper setting: there the gold is found whatever they are
    ctx = share_book()  # B4's gold: =A4/$A$5
    fixed = [c for c in generate(ctx, SHARE, setting="paper") if c.formula == "=A4/$A$5"]
    other = [replace(fixed[0], formula="=A4/A$5")]  # the same formula, other `$`
    assert labels_of(ctx, SHARE, fixed) == labels_of(ctx, SHARE, other, dollars=False) == [2]
    assert labels_of(ctx, SHARE, other) == [0]
    ctx = share_book(gold="=A4/A$5")  # written with the row fixed only
    assert examples(ctx, [SHARE], "paper")[2] == 0  # `=A4/$A$5` is its gold there
    assert examples(ctx, [SHARE], "sheet")[2] == 1  # not where formulas (and `$`) are seen
