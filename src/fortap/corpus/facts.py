"""What one formula tells about its table: the facts the ForTaP objectives are built from.

A formula cell of a table becomes a pretraining sample when its formula is *kept*:

- it parses and the paper's filters keep it (`fortap.formula.filters`);
- every reference lies inside this table (the reference code's INTABLE), else `outside_table`;
- its prefix token list is at most `max_formula_tokens` long, else `too_long`;
- it is among the first five occurrences of its `$`-aware R1C1 text in its row and column
  (`fortap.formula.occurrences`), else `repeated` (dragged copies would flood the corpus).

For a kept formula, `formula_facts` gathers, in table coordinates: the referenced cells
(ranges expanded, at most `max_referenced`), the NRP side and header pairs
(`fortap.corpus.headers`), the formula cell's row and column headers (NRP table-text prompt)
and the NCP groups (`fortap.formula.targets.ncp_groups`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from fortap.corpus.headers import Side, header_of, merged_anchor, orientation
from fortap.encoding.piece import RC
from fortap.errors import FortapError
from fortap.formula import Formula, parse_formula
from fortap.formula.occurrences import first_occurrences
from fortap.formula.references import to_table
from fortap.formula.targets import ncp_groups, referenced_cells
from fortap.table.model import Table


@dataclass(frozen=True)
class FactsConfig:
    """Which formulas are kept and how much of each is recorded."""

    max_formula_tokens: int = 30  # longer prefix token lists are discarded (the paper's 30)
    occurrence_limit: int = 5  # keep the first N copies of an R1C1 formula per row/column
    max_referenced: int = 256  # referenced cells recorded per formula (ranges expanded)

    def __post_init__(self) -> None:
        for name in ("max_formula_tokens", "occurrence_limit", "max_referenced"):
            if getattr(self, name) < 1:
                raise ValueError(f"FactsConfig.{name} must be >= 1, got {getattr(self, name)}")


@dataclass(frozen=True)
class FormulaFacts:
    """A kept formula's facts, table-relative (see module doc)."""

    cell: RC
    formula: Formula
    referenced: tuple[RC, ...]  # distinct referenced table cells, first-seen order
    side: Side  # where the formula cell and its references have non-shared headers
    formula_header: RC | None  # the formula cell's header on `side`
    positives: tuple[RC, ...]  # referenced cells' headers on `side` (not the formula header)
    negatives: tuple[RC, ...]  # other headers on `side` of data cells on the formula's row/column
    row_header: RC | None  # the formula cell's left header
    col_header: RC | None  # the formula cell's top header
    ncp: tuple[tuple[int, tuple[RC, ...]], ...]  # (NCP class id, operand cells)


def parse_cell(table: Table, rc: RC) -> Formula:
    """Parse the formula in table cell `rc` where it lives on its sheet (`FormulaError` if bad)."""
    cell = table.cell(*rc)
    assert cell.formula is not None, rc
    sheet_cell = (table.region.top + rc[0], table.region.left + rc[1])
    return parse_formula(cell.formula, table.sheet, sheet_cell, cell.array_formula)


def parsed_formulas(table: Table) -> dict[RC, Formula | None]:
    """Every formula cell of `table` parsed once, row-major; None where the text does not
    parse. Callers that read the table's formulas again (the rule baseline) take these."""
    out: dict[RC, Formula | None] = {}
    for r, row in enumerate(table.cells):
        for c, cell in enumerate(row):
            if cell.formula is not None:
                try:
                    out[r, c] = parse_cell(table, (r, c))
                except FortapError:
                    out[r, c] = None
    return out


def kept_formulas(
    table: Table, cfg: FactsConfig, parsed: dict[RC, Formula | None] | None = None
) -> tuple[dict[RC, Formula], Counter[str]]:
    """The table's kept formulas by cell, and a count of every verdict (`keep` included);
    `parsed` (`parsed_formulas(table)`) when the caller has parsed them already."""
    verdicts: Counter[str] = Counter()
    passed: dict[RC, Formula] = {}
    for (r, c), formula in (parsed_formulas(table) if parsed is None else parsed).items():
        if formula is None:
            verdicts["unparsable"] += 1
            continue
        reason = _reason(table, formula, cfg)
        if reason != "keep":
            verdicts[reason] += 1
        else:
            passed[r, c] = formula
    first = first_occurrences(((r, c, f.r1c1 or "") for (r, c), f in passed.items()),
                              cfg.occurrence_limit)  # fmt: skip
    kept = {rc: f for rc, f in passed.items() if rc in first}
    verdicts["repeated"] += len(passed) - len(kept)
    verdicts["keep"] += len(kept)
    return kept, +verdicts


def _reason(table: Table, formula: Formula, cfg: FactsConfig) -> str:
    if not formula.kept:
        return formula.verdict
    top, left = table.region.top, table.region.left
    for token in formula.tokens:
        if token.kind == "CELL" and (
            token.cell is None
            or to_table(token.cell, top, left, table.n_rows, table.n_cols) is None
        ):
            return "outside_table"
    if len(formula.tokens) > cfg.max_formula_tokens:
        return "too_long"
    return "keep"


def formula_facts(table: Table, rc: RC, formula: Formula, cfg: FactsConfig) -> FormulaFacts:
    """Facts of the kept formula `formula` in table cell `rc`."""
    top, left = table.region.top, table.region.left
    bounds = (top + table.n_rows, left + table.n_cols)
    referenced = []
    for sheet_rc in referenced_cells(formula, bounds, cfg.max_referenced + 1):
        at = to_table(sheet_rc, top, left, table.n_rows, table.n_cols)
        if at is not None and at != rc:
            referenced.append(at)
    referenced = referenced[: cfg.max_referenced]
    anchor = merged_anchor(table)
    side = orientation(rc, referenced)
    own = header_of(table, rc, side, anchor)
    positives: dict[RC, None] = {}
    for at in referenced:
        header = header_of(table, at, side, anchor)
        if header is not None and header != own:
            positives[header] = None
    line = (  # data cells along the formula's row (top) or column (left), not the header corner
        [(rc[0], c) for c in range(table.left_header_cols, table.n_cols)]
        if side == "top"
        else [(r, rc[1]) for r in range(table.top_header_rows, table.n_rows)]
    )
    negatives: dict[RC, None] = {}
    for at in line:
        header = header_of(table, at, side, anchor)
        if header is not None and header != own and header not in positives:
            negatives[header] = None
    return FormulaFacts(
        cell=rc,
        formula=formula,
        referenced=tuple(referenced),
        side=side,
        formula_header=own,
        positives=tuple(positives) if own is not None else (),
        negatives=tuple(negatives) if own is not None else (),
        row_header=header_of(table, rc, "left", anchor),
        col_header=header_of(table, rc, "top", anchor),
        ncp=_ncp(table, formula),
    )


def _ncp(table: Table, formula: Formula) -> tuple[tuple[int, tuple[RC, ...]], ...]:
    top, left = table.region.top, table.region.left

    def at(sheet_rc: tuple[int, int]) -> RC | None:
        return to_table(sheet_rc, top, left, table.n_rows, table.n_cols)

    def is_numeric(sheet_rc: tuple[int, int]) -> bool:
        rc = at(sheet_rc)
        return rc is not None and table.cell(*rc).kind == "number"

    groups = []
    for group in ncp_groups(formula, is_numeric):
        cells = tuple(dict.fromkeys(at(c) for c in group.cells))
        groups.append((group.label, cells))  # every cell is in the table: is_numeric said so
    return tuple(groups)  # type: ignore[return-value]
