"""The paper's keep/discard decision, each discard with a named reason.

ForTaP keeps a formula only when all its references can be pointed at cells of the formula's
own table. The reasons, in the order they are decided (the first that applies is the verdict):

- `wrong_arity`, `union_as_value`, `non_reference_range`, `non_reference_argument`: text
  that Excel rejects or that can only give an error (`fortap.formula.validity`);
- `external_workbook`: a reference into another file (`[1]Sheet!A1`);
- `three_d`: a reference across a span of sheets (`Jan:Dec!A1`);
- `cross_sheet`: a reference to another sheet (a qualifier naming the host sheet is fine;
  without a known host sheet every qualifier counts as another sheet);
- `array_formula`: a CSE/array formula (known only from the cell, not from the text);
- `user_defined_function`: a function that is not an Excel built-in (`_xll.` add-ins too;
  `[1]!F(...)`, a function of another workbook, counts as `external_workbook`);
- `named_range`: a defined name, which cannot be resolved from the text alone;
- `structured_reference`: a table reference (`Table1[Col]`);
- `broken_reference`: a `#REF!` constant, left where Excel deleted a referenced cell;
- `no_reference`: no cell reference at all (`=1+2`, `=TODAY()`).
"""

from __future__ import annotations

from collections.abc import Iterable

from fortap.formula.excel_functions import EXCEL_FUNCTIONS
from fortap.formula.nodes import Const, Func, Node, Ref, walk
from fortap.formula.validity import REASONS as INVALID_REASONS
from fortap.formula.validity import invalid_reasons

KEEP = "keep"
REASONS = (
    *INVALID_REASONS,
    "external_workbook",
    "three_d",
    "cross_sheet",
    "array_formula",
    "user_defined_function",
    "named_range",
    "structured_reference",
    "broken_reference",
    "no_reference",
)
_RANK = {r: i for i, r in enumerate(REASONS)}
_REF_REASON = {
    "external": "external_workbook",
    "3d": "three_d",
    "name": "named_range",
    "table": "structured_reference",
}


def reasons_of(ast: Node, host_sheet: str | None = None, array: bool = False) -> set[str]:
    """Every discard reason that applies to a parsed formula (empty set: keep)."""
    found: set[str] = {"array_formula"} if array else set()
    found |= invalid_reasons(ast)
    host = host_sheet.casefold() if host_sheet is not None else None
    has_cell = False
    for n in walk(ast):
        if isinstance(n, Ref):
            reason = _REF_REASON.get(n.kind)
            if reason is not None:
                found.add(reason)
            else:
                has_cell = True
            if n.sheet is not None and (host is None or n.sheet.casefold() != host):
                found.add("cross_sheet")
        elif isinstance(n, Func) and n.name not in EXCEL_FUNCTIONS:
            # `[1]!MYFUNC(...)`: a macro function of another workbook
            external = "!" in n.name and "[" in n.name
            found.add("external_workbook" if external else "user_defined_function")
        elif isinstance(n, Const) and n.kind == "err" and n.value == "#REF!":
            found.add("broken_reference")
    if not has_cell:
        found.add("no_reference")
    return found


def first_reason(reasons: Iterable[str]) -> str:
    """The verdict: `keep` or the highest-ranked discard reason."""
    return min(reasons, key=_RANK.__getitem__, default=KEEP)


def verdict(ast: Node, host_sheet: str | None = None, array: bool = False) -> str:
    """`keep` or the reason the paper's filters discard this formula."""
    return first_reason(reasons_of(ast, host_sheet, array))


def is_local(ref: Ref, host_sheet: str | None) -> bool:
    """True when a reference points at the host sheet (no qualifier, or one naming it)."""
    if ref.sheet is None:
        return True
    return host_sheet is not None and ref.sheet.casefold() == host_sheet.casefold()
