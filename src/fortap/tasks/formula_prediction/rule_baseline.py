"""The rule-based formula suggester: what "fill down / fill right" or AutoSum would give.

For a target cell of a table, ranked suggestions in the rule's order (`fortap.formula.fill_rule`,
which the suggestion engine's rule order follows too):

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

Nothing here parses formula text: the table's formula cells come parsed
(`fortap.formula.table_formulas.parse_table_formulas`, once per table, shared with example building), a filled
copy is the source's AST with its references moved and an AutoSum is built as an AST; both
become a `Formula` through `fortap.formula.formula.formula_of_ast`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from fortap.encoding.example import Example
from fortap.encoding.piece import RC
from fortap.formula import Formula
from fortap.formula.fill import fill_formula, sheet_rc
from fortap.formula.fill_rule import REACH, autosum_runs, fill_scan, number_run, rule_key
from fortap.formula.formula import formula_of_ast
from fortap.formula.nodes import Address, Func, Ref
from fortap.formula.table_formulas import parse_table_formulas
from fortap.sheet.model import a1
from fortap.table.model import Table
from fortap.tasks.formula_prediction.evaluate import gold_of
from fortap.tasks.formula_prediction.metrics import Gold, Guess, formula_key, formula_metrics

RULE_SETTINGS = ("sheet", "paper")
RULE_SYSTEMS = {"rules (paper)": "paper", "rules (sheet)": "sheet"}  # system name -> setting
Cells = Mapping[RC, Formula | None]  # a table's parsed formula cells (None: does not parse)


@dataclass(frozen=True)
class Suggestion:
    text: str  # Excel formula text
    source: str  # "fill:<A1 of the copied cell>", "autosum:above" or "autosum:left"
    guess: Guess


def suggest(
    table: Table,
    rc: RC,
    setting: str = "sheet",
    hide_block: bool = False,
    reach: int = REACH,
    formulas: Cells | None = None,
) -> list[Suggestion]:
    """Ranked rule suggestions for table cell `rc` (see module doc); `formulas` are the table's
    parsed formula cells (parsed here when not given)."""
    if setting not in RULE_SETTINGS:
        raise ValueError(f"suggest: setting must be one of {RULE_SETTINGS}, got {setting!r}")
    cells = parse_table_formulas(table) if formulas is None else formulas
    out: list[Suggestion] = []
    seen: set[tuple[str, ...]] = set()
    candidates = []  # (rule order, formula, source)
    if setting == "sheet":
        hidden = dragged_block(table, rc, cells) if hide_block else {rc}
        for k, src in enumerate(neighbours(table, rc, reach)):
            if src not in hidden:
                filled = fill_formula(table, cells.get(src), src, rc)
                candidates.append((rule_key(k, None), filled, f"fill:{_sheet_a1(table, src)}"))
    for k, (total, source) in enumerate(autosum_formulas(table, rc)):
        candidates.append((rule_key(None, k), total, source))
    candidates.sort(key=lambda c: c[0])  # stable: already in the rule's order
    for _, formula, source in candidates:
        if formula is None:
            continue
        guess = Guess(formula.sketch, formula.ranges)
        key = formula_key(guess)
        if key not in seen:
            seen.add(key)
            out.append(Suggestion(formula.text, source, guess))  # type: ignore[arg-type]
    return out


def neighbours(table: Table, rc: RC, reach: int = REACH) -> Iterator[RC]:
    """The table's formula cells the fill rule looks at (`fill_rule.fill_scan`), in its order:
    in `rc`'s column (nearest first, above first), then in its row (left first)."""
    for at in fill_scan(*rc, reach):
        inside = 0 <= at[0] < table.n_rows and 0 <= at[1] < table.n_cols
        if inside and table.cell(*at).formula is not None:
            yield at


def fill_text(table: Table, src: RC, dst: RC, formulas: Cells | None = None) -> str | None:
    """Excel text of the formula of `src` copied to `dst` (`fill_formula`)."""
    cells = parse_table_formulas(table) if formulas is None else formulas
    formula = fill_formula(table, cells.get(src), src, dst)
    return None if formula is None else formula.text


def autosum_formulas(table: Table, rc: RC) -> list[tuple[Formula, str]]:
    """`=SUM(...)` over the numbers directly above and directly left, Excel's pick first
    (`fill_rule.autosum_runs`)."""
    r, c = rc

    def number(at: RC) -> bool:
        return table.cell(*at).kind == "number"

    above = number_run(number, [(i, c) for i in range(r - 1, -1, -1)])
    left = number_run(number, [(r, j) for j in range(c - 1, -1, -1)])
    out = []
    for side, cells in autosum_runs(above, left):
        first, last = (Address(*sheet_rc(table, at)) for at in (cells[-1], cells[0]))
        ref = Ref("cell", start=first) if first == last else Ref("area", None, first, last)
        total = formula_of_ast(Func("SUM", (ref,)), table.sheet, sheet_rc(table, rc))
        out.append((total, f"autosum:{side}"))
    return out


def dragged_block(table: Table, rc: RC, formulas: Cells | None = None) -> set[RC]:
    """`rc` and the contiguous cells of its column and row sharing its `$`-aware R1C1 text."""
    cells = parse_table_formulas(table) if formulas is None else formulas
    own = _r1c1(cells, rc)
    block = {rc}
    if own is None:
        return block
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = rc[0] + dr, rc[1] + dc
        while 0 <= r < table.n_rows and 0 <= c < table.n_cols and _r1c1(cells, (r, c)) == own:
            block.add((r, c))
            r, c = r + dr, c + dc
    return block


def _r1c1(cells: Cells, rc: RC) -> str | None:
    formula = cells.get(rc)
    return None if formula is None else formula.r1c1


def _sheet_a1(table: Table, rc: RC) -> str:
    return a1(*sheet_rc(table, rc))


def evaluate_rules(
    tables: Sequence[Table],
    examples: Sequence[Example],
    setting: str = "sheet",
    hide_block: bool = False,
    top_k: int = 5,
    formulas: Mapping[tuple[str, str, str], Cells] | None = None,
) -> tuple[dict, list[Gold], list[list[Guess]]]:
    """The rules on the targets of formula-prediction `examples` (same golds as the model).
    `formulas`: each table's parsed formula cells by (book, sheet, region A1), as example
    building made them; a table missing there is parsed once here."""
    by_place = {(t.book, t.sheet, t.region.a1): t for t in tables}
    parsed: dict[tuple[str, str, str], Cells] = dict(formulas or {})
    golds, guesses = [], []
    for example in examples:
        meta = example.meta
        table = by_place.get((meta["book"], meta["sheet"], meta["region"]))
        if table is None:
            raise ValueError(
                f"evaluate_rules: no table {meta['sheet']}!{meta['region']} of {meta['book']}"
            )
        rc = (meta["target"][0] - table.region.top, meta["target"][1] - table.region.left)
        place = (table.book, table.sheet, table.region.a1)
        if place not in parsed:
            parsed[place] = parse_table_formulas(table)
        golds.append(gold_of(example))
        guesses.append(
            [s.guess for s in suggest(table, rc, setting, hide_block, REACH, parsed[place])]
        )
    return formula_metrics(golds, guesses, k=top_k), golds, guesses
