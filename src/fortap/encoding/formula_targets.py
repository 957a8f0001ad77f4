"""`FormulaTargets`: what a corpus formula sample tells the ForTaP objectives, as cell ids.

A formula sample (`fortap.corpus.samples.formula_sample`) stores one under
`example.targets[FORMULA_KEY]`. Cells are 1-based cell ids of the serialised example (indices
into `cell_coords` + 1; 0 = not in the input), which stay valid while objectives blank cells
or insert context, since those never renumber cells.

- `cell`, `mode` ("tokens", "tag", "value": the mode actually shown);
- `tokens`: in "tokens" mode one `(offset, kind, vocab, ref)` per formula token, `offset` its
  position after the formula cell's [SEP] (1-based), `kind` "op" (operator or function), "ref"
  (a reference end) or "other" (constant, `:`), `vocab` its `FORMULA_VOCAB` index, `ref` the
  cell id it points at (0 when that cell is not in the input); () otherwise;
- `side`, `formula_header`, `positives`, `negatives`: NRP (table-only);
- `row_header`, `col_header`, `referenced`: NRP (table-text) and reference tagging;
- `ncp`: `(class id, (cell ids))` groups whose operands are all in the input;
- `ncp_neighbours`: the same for the table's other kept formulas, whose cells show their
  values: groups of formulas the input does not spell out, whatever `mode` is.

Shards store it as a JSON object (`to_json` / `from_json`, an exact round trip); a corpus
written before `ncp_neighbours` existed reads it as empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FORMULA_KEY = "formula"  # key of the formula targets in `Example.targets`

TokenTarget = tuple[int, str, int, int]  # (offset, kind, vocab index, cell id)
Group = tuple[int, tuple[int, ...]]  # (NCP class id, operand cell ids)


@dataclass(frozen=True)
class FormulaTargets:
    """A formula sample's facts as cell ids of its example (see module doc)."""

    cell: int
    mode: str
    tokens: tuple[TokenTarget, ...] = ()
    side: str = "top"
    formula_header: int = 0
    positives: tuple[int, ...] = ()
    negatives: tuple[int, ...] = ()
    row_header: int = 0
    col_header: int = 0
    referenced: tuple[int, ...] = ()
    ncp: tuple[Group, ...] = ()
    ncp_neighbours: tuple[Group, ...] = ()

    def ncp_groups(self, own: bool = True) -> list[Group]:
        """The NCP groups: the formula's own (`ncp`, unless `own` is False), then the table's
        other formulas' (`ncp_neighbours`)."""
        return [*(self.ncp if own else ()), *self.ncp_neighbours]

    def needed_cells(self) -> list[int]:
        """Every cell id the ForTaP objectives read (0 for an absent header included)."""
        groups = [c for _, group in self.ncp_groups() for c in group]
        return [self.cell, self.formula_header, self.row_header, self.col_header,
                *self.positives, *self.negatives, *self.referenced, *groups]  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "cell": self.cell,
            "mode": self.mode,
            "tokens": [list(t) for t in self.tokens],
            "side": self.side,
            "formula_header": self.formula_header,
            "positives": list(self.positives),
            "negatives": list(self.negatives),
            "row_header": self.row_header,
            "col_header": self.col_header,
            "referenced": list(self.referenced),
            "ncp": [[label, list(cells)] for label, cells in self.ncp],
            "ncp_neighbours": [[label, list(cells)] for label, cells in self.ncp_neighbours],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FormulaTargets:
        def groups(key: str) -> tuple[Group, ...]:
            return tuple((int(label), tuple(cells)) for label, cells in data.get(key, ()))

        return cls(
            cell=data["cell"],
            mode=data["mode"],
            tokens=tuple((o, k, v, r) for o, k, v, r in data.get("tokens", ())),
            side=data.get("side", "top"),
            formula_header=data.get("formula_header", 0),
            positives=tuple(data.get("positives", ())),
            negatives=tuple(data.get("negatives", ())),
            row_header=data.get("row_header", 0),
            col_header=data.get("col_header", 0),
            referenced=tuple(data.get("referenced", ())),
            ncp=groups("ncp"),
            ncp_neighbours=groups("ncp_neighbours"),
        )
