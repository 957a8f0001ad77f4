"""The `short_totals` check: a column total whose range stops short of its numbers or reaches
past them into empty cells (`aggregates.shorts`).

It comes before `breaks` in `CHECKS`: a total stopping short names the rows it leaves out, so
where both flag a cell it stands for the cell over a break of a block. The pick is by structure,
not by score, so the findings the weights are fitted on do not depend on the weights (one cell
picked by score moved the held-out precision by 0.02).
"""

from __future__ import annotations

from fortap.audit.aggregates import Short, shorts
from fortap.audit.checks.base import AuditedSheet, Check, Fact, Found
from fortap.audit.findings import INCONSISTENT
from fortap.sheet.model import a1

FACTS = (
    Fact("stops_short", "numbers left out above the range: 1 for one, 0.5 for more, else 0"),
    Fact("short_below", "numbers left out between the range and the total"),
    Fact("left_out", "rows of numbers left out, above and below", count=True),
    Fact("blank_ends", "the range starts or ends with empty cells"),
)


def find(sheet: AuditedSheet) -> list[Found]:
    """One finding per short total; the sheet's labels head their blocks, they are no numbers
    a total leaves out."""
    return [_found(s) for s in shorts(sheet.context, sheet.labels)]


def _found(s: Short) -> Found:
    # one number left out above is the common slip (the first row under a header); a longer
    # stretch is as often a sub-total of its own group
    above = (1.0 if s.left_out == 1 else 0.5) if s.left_out else 0.0
    facts = {"stops_short": above, "short_below": float(s.below > 0),
             "left_out": float(s.left_out + s.below),
             "blank_ends": float(s.lead + s.trail > 0)}  # fmt: skip
    said = [f"leaves out the {n} number{'s' * (n != 1)} {side} its range"
            for n, side in ((s.left_out, "above"), (s.below, "below")) if n]  # fmt: skip
    what = ["a range stopping short"] * bool(said)
    if s.lead + s.trail:
        said.append(f"reaches past its numbers into empty cells ({', '.join(s.empty)})")
        what.append("reaching past its numbers" if what else "a range reaching past its numbers")
    text = f"{a1(*s.cell)}: {s.text} {' and '.join(said)}: {' and '.join(what)}; expected {s.fix}"
    return Found(s.cell, facts, text, s.fix)


CHECK = Check("short_totals", INCONSISTENT, FACTS, find)
