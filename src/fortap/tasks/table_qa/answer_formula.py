"""An answer as an Excel formula in its sheet's own A1 references (`answer_formula`).

Put into any free cell of the table's sheet, the formula computes the answer `operations.execute`
gave, from the cells it used (`Execution.operands`, in their order). Per operation:

- `none`: `=C7`; several cells: `=A3:A5` when they fill one range, else `=HSTACK(A3,C5)` (a
  list answer spills, as it does in Excel 365);
- `sum`, `average`, `max`, `min`, `count`: `=SUM(C4:C9)`, `AVERAGE`, `MAX`, `MIN`, `COUNTA`
  (HiTab's `counta`), each column's (or row's) run of cells written as one range;
- `diff`: `=ABS(C7-C5)`; `opposite`: `=-C7`;
- `ratio_down`, `ratio_up`: `=C7/C5`, the numerator `execute` chose first;
  `part_ratio`: `=SUM(C6:C7)/C5`, the parts over the whole;
- `argmax`, `argmin`, `pair_max`, `pair_min`: the header naming the best candidate
  (`operations.arg_header` of each candidate): `=INDEX(B4:B9,MATCH(MAX(C4:C9),C4:C9,0))` when
  the candidates fill one line and their headers another; `=CHOOSE(MATCH(...),B4,B4,B6)` when
  only the candidates do (headers shared by merged cells); otherwise a chain
  `=IF(C4=MAX(C4,E4),C1,E1)`. MATCH and the chain take the first best in table order, as
  `execute` does.

A HiTab table read from its JSON has no sheet: its references are those of its own grid (the
`texts` matrix, its row 0 as row 1), and `grid_note` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fortap.encoding.piece import RC
from fortap.table.model import Table
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.operations import ARG_OPS, Execution, arg_header

_AGGREGATES = {"sum": "SUM", "average": "AVERAGE", "max": "MAX", "min": "MIN", "count": "COUNTA"}


def answer_formula(op: str, run: Execution, paths: HeaderPaths) -> str:
    """The Excel formula computing `run`'s answer (see module doc)."""
    cells = list(run.operands)
    if not cells:
        raise ValueError(f"answer_formula: the {op} execution records no operands")
    ref = paths.a1
    if op == "none":
        if len(cells) == 1:
            return f"={ref(cells[0])}"
        block = _block(cells, paths)
        return f"={block}" if block else f"=HSTACK({','.join(ref(rc) for rc in cells)})"
    if op in _AGGREGATES:
        return f"={_AGGREGATES[op]}({_refs(cells, paths)})"
    if op == "opposite":
        return f"=-{ref(cells[0])}"
    if op == "diff":
        return f"=ABS({ref(cells[0])}-{ref(cells[1])})"
    if op in ("ratio_down", "ratio_up"):
        return f"={ref(cells[0])}/{ref(cells[1])}"
    if op == "part_ratio":
        return f"=SUM({_refs(cells[:-1], paths)})/{ref(cells[-1])}"
    if op in ARG_OPS:
        return _arg_formula(op, cells, paths)
    raise ValueError(f"answer_formula: unknown operation {op!r}")


def grid_note(table: Table) -> str:
    """How to read the formula's references: "" on a sheet; for a HiTab table JSON, that they
    are the table's own grid."""
    if Path(table.book).suffix.lower() == ".json":
        return "A1 of the HiTab table's own grid, its texts row 0 as row 1: it has no sheet"
    return ""


def _arg_formula(op: str, cells: list[RC], paths: HeaderPaths) -> str:
    fn = "MAX" if op in ("argmax", "pair_max") else "MIN"
    headers = [paths.a1(arg_header(rc, cells, paths)) for rc in cells]
    line = _block(cells, paths, one_line=True)
    if line is None:
        best = f"{fn}({','.join(paths.a1(rc) for rc in cells)})"
        chain = headers[-1]
        for rc, header in reversed(list(zip(cells[:-1], headers[:-1], strict=True))):
            chain = f"IF({paths.a1(rc)}={best},{header},{chain})"
        return f"={chain}"
    position = f"MATCH({fn}({line}),{line},0)"
    header_cells = [arg_header(rc, cells, paths) for rc in cells]
    header_line = _block(header_cells, paths, one_line=True)
    if header_line is not None and len(set(header_cells)) == len(cells):
        return f"=INDEX({header_line},{position})"
    return f"=CHOOSE({position},{','.join(headers)})"


def _block(cells: Sequence[RC], paths: HeaderPaths, one_line: bool = False) -> str | None:
    """`B4:B9` when the cells, in table order as given, fill exactly one rectangle (with
    `one_line`: one row or one column); else None."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    top, bottom, left, right = min(rows), max(rows), min(cols), max(cols)
    if list(cells) != sorted(cells) or len(set(cells)) != len(cells):
        return None
    if (bottom - top + 1) * (right - left + 1) != len(cells):
        return None
    if one_line and top != bottom and left != right:
        return None
    return _range((top, left), (bottom, right), paths)


def _refs(cells: Sequence[RC], paths: HeaderPaths) -> str:
    """The cells as references for an order-free function: one range when they fill a
    rectangle, else each column's runs of consecutive rows (each row's runs of consecutive
    columns when the cells lie in one row)."""
    ordered = sorted(set(cells))
    whole = _block(ordered, paths)
    if whole:
        return whole
    by_row = len({r for r, _ in ordered}) == 1
    key = (lambda rc: (rc[0], rc[1])) if by_row else (lambda rc: (rc[1], rc[0]))
    runs: list[list[RC]] = []
    for rc in sorted(ordered, key=key):
        last = runs[-1][-1] if runs else None
        step = (0, 1) if by_row else (1, 0)
        if last is not None and (last[0] + step[0], last[1] + step[1]) == rc:
            runs[-1].append(rc)
        else:
            runs.append([rc])
    return ",".join(_range(run[0], run[-1], paths) for run in runs)


def _range(first: RC, last: RC, paths: HeaderPaths) -> str:
    start, end = paths.a1(first), paths.a1(last)
    return start if start == end else f"{start}:{end}"
