"""The arity table of the formula vocabulary: what each function and operator takes and gives.

Every token of `FORMULA_VOCAB` that stands for a value is either a leaf (`[RANGE]`, a constant)
or takes arguments (`[SUM]`, `[+]`, `[:]`). A `Signature` says how many arguments (`min_args`
..`max_args`) and what may stand in each position (`Slot`); each token also gives a value of
some `Value` kind, and `FITS` says which values a slot accepts:

- `scalar`: one value. A cell, a constant, a scalar expression, a reference function's result
  (`INDEX`/`OFFSET` are usually one cell) — not a multi-cell range (`ROUND(B7:B10,0)`);
- `any`: a scalar or a range (`SUM`'s arguments, `MATCH`'s lookup array);
- `ref`: a reference (`SUBTOTAL`'s ranges, `VLOOKUP`'s table, `OFFSET`'s base) — no constant
  or arithmetic;
- `end`: an end of the range operator `[:]`: a cell or a reference function (`B1:INDEX(...)`).

The table is the conventional use of each function, stricter than what Excel accepts: Excel
also takes ranges as operands in array formulas (`SUM(IF(A1:A9>0,1))`), which the decoder is
not asked to write. Excel's own limits (argument counts) are what `validity` checks on parsed
formulas. `[+]` and `[-]` are unary or binary: ForTaP merges the two (see `tokens`).
`[UNKOP]` (any other function or operator) has a signature only on request
(`signatures(unknown=True)`): it cannot be printed as an Excel formula.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fortap.formula.tokens import C_BOOL, C_NUM, C_STR, COLON, RANGE, UNKOP

Slot = Literal["scalar", "any", "ref", "end"]
Value = Literal["cell", "area", "scalar", "reference", "unknown"]
MANY = 255  # Excel's argument limit

FITS: dict[Slot, frozenset[Value]] = {
    "scalar": frozenset(["cell", "scalar", "reference", "unknown"]),
    "any": frozenset(["cell", "area", "scalar", "reference", "unknown"]),
    "ref": frozenset(["cell", "area", "reference", "unknown"]),
    "end": frozenset(["cell", "reference", "unknown"]),
}


@dataclass(frozen=True)
class Signature:
    """How many arguments a function or operator takes, what each position accepts, what it gives.

    `slots` are the first positions' kinds; every later position takes `rest`.
    """

    min_args: int
    max_args: int
    slots: tuple[Slot, ...] = ()
    rest: Slot = "scalar"
    gives: Value = "scalar"

    def slot(self, i: int) -> Slot:
        """What argument position `i` (0-based) accepts."""
        return self.slots[i] if i < len(self.slots) else self.rest


def _fixed(n: int, *slots: Slot, gives: Value = "scalar") -> Signature:
    return Signature(n, n, slots, gives=gives)


_AGGREGATE = Signature(1, MANY, rest="any")
# keyed by vocabulary token; leaves (`[RANGE]`, constants) have no signature
SIGNATURES: dict[str, Signature] = {
    "[SUM]": _AGGREGATE, "[AVERAGE]": _AGGREGATE, "[MAX]": _AGGREGATE, "[MIN]": _AGGREGATE,
    "[AND]": _AGGREGATE,
    "[SUBTOTAL]": Signature(2, MANY, ("scalar",), rest="ref"),
    "[IF]": Signature(2, 3),
    "[ROUND]": _fixed(2), "[EOMONTH]": _fixed(2), "[EDATE]": _fixed(2),
    "[ABS]": _fixed(1), "[LN]": _fixed(1), "[SQRT]": _fixed(1), "[MONTH]": _fixed(1),
    "[YEAR]": _fixed(1), "[ISERROR]": _fixed(1),
    "[VLOOKUP]": Signature(3, 4, ("scalar", "ref")),
    "[MATCH]": Signature(2, 3, ("scalar", "any")),
    "[INDEX]": Signature(2, 4, ("any",), gives="reference"),
    "[OFFSET]": Signature(3, 5, ("ref",), gives="reference"),
    "[+]": Signature(1, 2), "[-]": Signature(1, 2), "[%]": _fixed(1),
    "[*]": _fixed(2), "[/]": _fixed(2), "[^]": _fixed(2), "[&]": _fixed(2),
    "[=]": _fixed(2), "[<>]": _fixed(2), "[>]": _fixed(2), "[>=]": _fixed(2),
    "[<]": _fixed(2), "[<=]": _fixed(2),
    COLON: _fixed(2, "end", "end", gives="area"),
}  # fmt: skip
UNKNOWN = Signature(0, MANY, rest="any", gives="unknown")
LEAVES: dict[str, Value] = {RANGE: "cell", C_NUM: "scalar", C_STR: "scalar", C_BOOL: "scalar"}
# the formula itself: one value in one cell
FORMULA_SLOT: Slot = "scalar"


def signatures(unknown: bool = False) -> dict[str, Signature]:
    """The table, with `[UNKOP]` as a function of any arguments when `unknown`."""
    return SIGNATURES | {UNKOP: UNKNOWN} if unknown else dict(SIGNATURES)


def gives(token: str, table: dict[str, Signature]) -> Value | None:
    """The kind of value a vocabulary token gives (None: not a value, e.g. `[END]`)."""
    if token in LEAVES:
        return LEAVES[token]
    sig = table.get(token)
    return None if sig is None else sig.gives


def function_arity(name: str) -> tuple[int, int] | None:
    """(min, max) argument count of a vocabulary function named as in Excel (`ROUND`), else None."""
    sig = SIGNATURES.get(f"[{name}]")
    return None if sig is None or not name.isalpha() else (sig.min_args, sig.max_args)
