"""The page's "Recover formulas" button: the open sheet's typed numbers given back the formulas
their blocks obey, as `fortap recover BOOK --sheet NAME` puts them back (`recover_sheet`).

Recovery runs on the session's sheet as the engine holds it now, so formulas accepted earlier
are formulas, not typed numbers, and are never proposed again. Every cell of the sheet is read,
so a sheet with more than `MAX_RECOVERED_CELLS` cells with content is refused with a pointer to
the command.

Each formula is named as `fortap recover --json` names it (`sheet`, `cell`, `formula`, `value`,
`evidence`, `score`, `family`). The route caches the list per sheet and `min_score` in the session
(`OpenBook.recovered`) until a formula is written by any other route; accepting recovered formulas
keeps it, since each gives exactly the value its cell holds and so changes no value the rest of
the list was found from (the accepted cells leave the list: they hold formulas now). Accepting
goes through the same write as an accepted suggestion (`routes.accept_formula`), at most
`MAX_ACCEPTED` formulas per request so that one request holds the session's lock for seconds,
not minutes (each write recomputes the engine's context of the book); the page sends "Accept
all" in as many requests as it takes.
"""

from __future__ import annotations

import math
from typing import Any

from fortap.errors import FortapError
from fortap.recover import RecoverConfig, recover_sheet
from fortap.service.grid import json_value, parse_cell_a1, refuse_large
from fortap.sheet.model import Sheet, a1

# recovery searches each block of typed numbers (~100 numbers a second on one core on a sheet
# of 12,000 numbers); the cap is the cell types' and the audit's, past it `fortap recover` runs
MAX_RECOVERED_CELLS = 100_000
MAX_ACCEPTED = 500  # recovered formulas written per request (~20-50 ms each on a 12,000-cell sheet)
DEFAULT_MIN_SCORE = RecoverConfig().min_score  # as `fortap recover --min-score` defaults


class BadMinScore(FortapError):
    """A `min_score` outside 0..1."""


class NotRecovered(FortapError):
    """Cells asked to be accepted that are not among the formulas recovered."""


class SheetChanged(FortapError):
    """The sheet was written while its formulas were being recovered (a 409: try again)."""


def check_min_score(min_score: float) -> float:
    """`min_score` when it is a number in [0, 1]; else `BadMinScore` saying so."""
    if not (math.isfinite(min_score) and 0.0 <= min_score <= 1.0):
        raise BadMinScore(
            f"min_score must be between 0 and 1 (the score a recovered formula must reach; "
            f"default {DEFAULT_MIN_SCORE}), got {min_score!r}"
        )
    return float(min_score)


def recovered_rows(sheet: Sheet, min_score: float) -> list[dict]:
    """The formulas `fortap recover` puts back on `sheet` at `min_score`, as its `--json` lists
    them (row and column 0-based under `_at`, for the accept route)."""
    refuse_large(sheet, MAX_RECOVERED_CELLS, "formula recovery reads", "fortap recover")
    found = recover_sheet(sheet, RecoverConfig(min_score=min_score))
    return [
        {
            "sheet": f.sheet,
            "cell": a1(f.row, f.col),
            "formula": f.formula,
            "value": json_value(float(f.value)),
            "evidence": f.evidence,
            "score": round(float(f.score), 4),
            "family": f.family,
            "_at": (f.row, f.col),
        }
        for f in found
    ]


def still_typed(rows: list[dict], sheet: Sheet) -> list[dict]:
    """The rows whose cell is still a typed number (not accepted since the list was made)."""
    out = []
    for row in rows:
        cell = sheet.cells.get(row["_at"])
        if cell is not None and cell.formula is None:
            out.append(row)
    return out


def record(sheet: Sheet, min_score: float, rows: list[dict]) -> dict[str, Any]:
    """The route's answer: the rows without their internal position, and the sheet's count of
    typed numbers (what recovery searched)."""
    typed = sum(c.formula is None and c.kind == "number" and not isinstance(c.value, bool)
                for c in sheet.cells.values())  # fmt: skip
    shown = [{k: v for k, v in row.items() if k != "_at"} for row in rows]
    return {"sheet": sheet.name, "min_score": min_score, "typed_numbers": typed,
            "recovered": shown}  # fmt: skip


def chosen(rows: list[dict], cells: list[str] | None, sheet: str, min_score: float) -> list[dict]:
    """The rows to accept: all of them (`cells` None), else those of `cells` (canonical A1),
    in reading order; `NotRecovered` naming the cells that are not in the list."""
    if cells is None:
        return rows
    wanted = set(cells)
    missing = sorted(wanted - {row["cell"] for row in rows}, key=_reading_order)
    if missing:
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        shown = ", ".join(missing[:10]) + more
        raise NotRecovered(
            f"no recovered formula for {shown} on sheet {sheet!r} at min_score {min_score:g} "
            "(already accepted, or not found): recover again to see what can be accepted"
        )
    return [row for row in rows if row["cell"] in wanted]


def _reading_order(address: str) -> tuple[int, int]:
    return parse_cell_a1(address, "")
