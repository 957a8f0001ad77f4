"""The rule-based formula suggester: what "fill down / fill right" or AutoSum would give.

For a target cell of a table, ranked suggestions:

1. *fill* (sheet setting only, where the sheet's other formulas are visible): the other formula
   cells in the target's column within `reach` cells (nearest first, above wins a tie), then
   those in its row (left wins), each re-anchored to the target through its `$`-aware R1C1 form:
   relative row/column parts move with the cell, `$` parts stay (what copying the cell gives);
2. *AutoSum*: `SUM` over the contiguous run of numbers directly above the target, and over the
   one directly left; the side Excel would pick comes first (above when the cell above holds a
   number). In the paper setting (no other formula visible) this is all the rules can do;
   numbers computed by formulas still count, as their values are visible.

`hide_block` removes the target's dragged block (the contiguous run of cells in its column and
in its row whose R1C1 text equals the target's) so the rules must write the formula anew
instead of continuing a block (`notes/formula_statistics.md`). Suggestions are deduplicated by
their prefix key; each carries its Excel text and its `Guess` for the metrics.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from fortap.encoding.example import Example
from fortap.encoding.piece import RC
from fortap.errors import FortapError
from fortap.evaluation.metrics import Gold, Guess, formula_key, formula_metrics
from fortap.formula import Formula, parse_formula
from fortap.formula.nodes import Address, Ref
from fortap.formula.printer import to_text
from fortap.formula.references import MAX_COLS, MAX_ROWS, ref_a1
from fortap.sheet.model import a1
from fortap.table.model import Table
from fortap.tasks.formula_finetune import gold_of

RULE_SETTINGS = ("sheet", "paper")


@dataclass(frozen=True)
class Suggestion:
    text: str  # Excel formula text
    source: str  # "fill:<A1 of the copied cell>", "autosum:above" or "autosum:left"
    guess: Guess


def suggest(
    table: Table, rc: RC, setting: str = "sheet", hide_block: bool = False, reach: int = 10
) -> list[Suggestion]:
    """Ranked rule suggestions for table cell `rc` (see module doc)."""
    if setting not in RULE_SETTINGS:
        raise ValueError(f"suggest: setting must be one of {RULE_SETTINGS}, got {setting!r}")
    out: list[Suggestion] = []
    seen: set[tuple[str, ...]] = set()
    candidates = []
    if setting == "sheet":
        hidden = dragged_block(table, rc) if hide_block else {rc}
        for src in neighbours(table, rc, reach):
            if src not in hidden:
                candidates.append((fill_text(table, src, rc), f"fill:{_sheet_a1(table, src)}"))
    candidates += autosum_texts(table, rc)
    for text, source in candidates:
        formula = _parse(table, rc, text)
        if formula is None:
            continue
        guess = Guess(formula.sketch, formula.ranges)
        key = formula_key(guess)
        if key not in seen:
            seen.add(key)
            out.append(Suggestion(text, source, guess))  # type: ignore[arg-type]
    return out


def neighbours(table: Table, rc: RC, reach: int) -> Iterator[RC]:
    """Formula cells in `rc`'s column (nearest first, above first), then in its row (left first)."""
    r, c = rc
    for d in range(1, reach + 1):
        for at in ((r - d, c), (r + d, c)):
            if 0 <= at[0] < table.n_rows and table.cell(*at).formula is not None:
                yield at
    for d in range(1, reach + 1):
        for at in ((r, c - d), (r, c + d)):
            if 0 <= at[1] < table.n_cols and table.cell(*at).formula is not None:
                yield at


def fill_text(table: Table, src: RC, dst: RC) -> str | None:
    """The formula of `src` copied to `dst` (relative parts shift, `$` parts stay); None when it
    does not parse or a shifted reference leaves the sheet."""
    formula = _parse(table, src, table.cell(*src).formula or "")
    if formula is None:
        return None
    dr, dc = dst[0] - src[0], dst[1] - src[1]
    try:
        return to_text(formula.ast, lambda ref: ref_a1(_shift(ref, dr, dc)))
    except ValueError:
        return None


def _shift(ref: Ref, dr: int, dc: int) -> Ref:
    def move(a: Address | None) -> Address | None:
        if a is None:
            return None
        row = a.row if a.row is None or a.abs_row else a.row + dr
        col = a.col if a.col is None or a.abs_col else a.col + dc
        if (row is not None and not 0 <= row < MAX_ROWS) or (
            col is not None and not 0 <= col < MAX_COLS
        ):
            raise ValueError("reference leaves the sheet")
        return replace(a, row=row, col=col)

    if ref.start is None:
        return ref
    return replace(ref, start=move(ref.start), end=move(ref.end))


def autosum_texts(table: Table, rc: RC) -> list[tuple[str, str]]:
    """`=SUM(...)` over the numbers directly above and directly left, Excel's pick first."""
    r, c = rc
    above = _run(table, [(i, c) for i in range(r - 1, -1, -1)])
    left = _run(table, [(r, j) for j in range(c - 1, -1, -1)])
    out = []
    for cells, side in ((above, "above"), (left, "left")):
        if cells:
            first, last = _sheet_a1(table, cells[-1]), _sheet_a1(table, cells[0])
            out.append(
                (f"=SUM({first}:{last})" if first != last else f"=SUM({first})", f"autosum:{side}")
            )
    return out


def _run(table: Table, cells: list[RC]) -> list[RC]:
    """The leading cells of `cells` that hold numbers."""
    run = []
    for at in cells:
        if table.cell(*at).kind != "number":
            break
        run.append(at)
    return run


def dragged_block(table: Table, rc: RC) -> set[RC]:
    """`rc` and the contiguous cells of its column and row sharing its `$`-aware R1C1 text."""
    own = _r1c1(table, rc)
    block = {rc}
    if own is None:
        return block
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = rc[0] + dr, rc[1] + dc
        while 0 <= r < table.n_rows and 0 <= c < table.n_cols and _r1c1(table, (r, c)) == own:
            block.add((r, c))
            r, c = r + dr, c + dc
    return block


def _r1c1(table: Table, rc: RC) -> str | None:
    text = table.cell(*rc).formula
    formula = _parse(table, rc, text) if text else None
    return None if formula is None else formula.r1c1


def _parse(table: Table, rc: RC, text: str | None) -> Formula | None:
    if not text:
        return None
    try:
        return parse_formula(
            text, table.sheet, (table.region.top + rc[0], table.region.left + rc[1])
        )
    except FortapError:
        return None


def _sheet_a1(table: Table, rc: RC) -> str:
    return a1(table.region.top + rc[0], table.region.left + rc[1])


def evaluate_rules(
    tables: Sequence[Table],
    examples: Sequence[Example],
    setting: str = "sheet",
    hide_block: bool = False,
    top_k: int = 5,
) -> tuple[dict, list[Gold], list[list[Guess]]]:
    """The rules on the targets of formula-prediction `examples` (same golds as the model)."""
    by_place = {(t.book, t.sheet, t.region.a1): t for t in tables}
    golds, guesses = [], []
    for example in examples:
        meta = example.meta
        table = by_place.get((meta["book"], meta["sheet"], meta["region"]))
        if table is None:
            raise ValueError(
                f"evaluate_rules: no table {meta['sheet']}!{meta['region']} of {meta['book']}"
            )
        rc = (meta["target"][0] - table.region.top, meta["target"][1] - table.region.left)
        golds.append(gold_of(example))
        guesses.append([s.guess for s in suggest(table, rc, setting, hide_block)])
    return formula_metrics(golds, guesses, k=top_k), golds, guesses
