"""What the `breaks` check says of a formula that differs from its block's in a part other
than a reference: its facts and its words.

`inconsistent.breaks` measures every cell breaking a dragged block; for one whose references
are all the block's but one other part differs (`differences`, `Break.differs`), the `breaks`
check adds one of these facts to the block's (its share of the run, inside it or not, ...),
so that the weights fitted on every break score it as a break of such a block:
- another function or operator (`=AVERAGE(B4:B9)` among `=SUM(B·:B·)`, `MIN` among `MAX`);
- a constant where the block reads a cell (`=B7*0.08` among `=B·*C·`), the more telling when
  the constant is the value that cell holds (a reference typed over with its number);
- another constant where the block has a constant;
- only the anchoring (`=B$7` among `=B·`): the same value where it stands, latent until the
  formula is filled on.
The fix is the block's formula re-anchored to the cell (`suggest.api.reanchor`), previewed
there as for any break (`fix_differs`).
"""

from __future__ import annotations

import math

from fortap.audit.checks.base import AuditedSheet, Fact
from fortap.audit.differences import ANCHORING, CONSTANT, FUNCTION, OTHER_CONSTANT, Part
from fortap.audit.inconsistent import Break
from fortap.audit.structure import AXIS_NAMES

FACT_OF = {FUNCTION: "other_function", CONSTANT: "constant_for_ref",
           OTHER_CONSTANT: "other_constant", ANCHORING: "anchoring"}  # fmt: skip

FACTS = (
    Fact("other_function", "another function or operator, every reference the block's"),
    Fact("constant_for_ref", "a constant where the block reads a cell"),
    Fact("constant_is_value", "that constant is the value the cell read holds"),
    Fact("other_constant", "another constant where the block has a constant"),
    Fact("anchoring", "only the `$`s differ: the same value here, another once filled"),
)


def facts_and_words(sheet: AuditedSheet, b: Break) -> tuple[dict[str, float], str]:
    """What differs of a break `b.differs`, as facts and in words: `AVERAGE where the 12 other
    cells of the column D4:D16 use SUM`."""
    part = b.parts[0]
    facts = {FACT_OF[b.differs]: 1.0}
    held = _held(sheet, part) if b.differs == CONSTANT else None
    if held is not None:
        facts["constant_is_value"] = float(math.isclose(held, float(part.own), rel_tol=1e-9))
    others = f"the {b.block_cells} other cells of the {AXIS_NAMES[b.run.axis]} {b.run.span()}"
    return facts, _said(b, part, others, held)


def _said(b: Break, part: Part, others: str, held: float | None) -> str:
    """`AVERAGE where the 11 other cells of the column D4:D16 use SUM`, and the like."""
    if b.differs == ANCHORING:
        own, theirs = ", ".join(p.own for p in b.parts), ", ".join(p.block for p in b.parts)
        return (f"{own} where {others} read {theirs}: anchored otherwise, the same value here "
                "and another once filled")  # fmt: skip
    if b.differs == CONSTANT:
        holds = "" if held is None else f", which holds {held:,.10g}"
        return f"the constant {part.own} where {others} read {part.block}{holds}"
    what = "use" if b.differs == FUNCTION else "have"
    return f"{part.own} where {others} {what} {part.block}"


def _held(sheet: AuditedSheet, part: Part) -> float | None:
    """The number in the cell the block's reference reads (same sheet, one cell), if any."""
    ref = part.ref
    if ref is None or ref.end is not None or ref.start is None:
        return None
    if ref.sheet not in (None, sheet.name) or ref.start.row is None or ref.start.col is None:
        return None
    value = sheet.context.sheet.cell(ref.start.row, ref.start.col).value
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if is_number and math.isfinite(value) else None

