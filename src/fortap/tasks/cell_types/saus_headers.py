"""Header detection scored against SAUS's cell labels: which cells a detector calls headers.

`predicted_labels(tables)` labels, in sheet coordinates, every cell in a table's top header
rows `header` (SAUS's name for top attributes) and every cell of its left header columns below
them `attributes` (left attributes); `baseline_labels` does the same for the first row and the
first column of each table. `count_sheet` adds one sheet's true positives, false positives and
misses, per kind (`top`, `left`, and header-vs-not `overall`), over the labelled cells only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from fortap.table.model import Table

RC = tuple[int, int]
KINDS = ("top", "left", "overall")  # what `count_sheet` counts


def predicted_labels(tables: Iterable[Table]) -> dict[RC, str]:
    out = {}
    for t in tables:
        for r in range(t.n_rows):
            for c in range(t.n_cols):
                key = (t.region.top + r, t.region.left + c)
                if r < t.top_header_rows:
                    out[key] = "header"
                elif c < t.left_header_cols:
                    out[key] = "attributes"
    return out


def baseline_labels(tables: Iterable[Table]) -> dict[RC, str]:
    out = {}
    for t in tables:
        for r in range(t.n_rows):
            for c in range(t.n_cols):
                key = (t.region.top + r, t.region.left + c)
                if r == 0:
                    out[key] = "header"
                elif c == 0:
                    out[key] = "attributes"
    return out


def count_sheet(per: Mapping[str, list[int]], pred: Mapping[RC, str],
                annotations: Sequence[Sequence[str | None]]) -> None:  # fmt: skip
    """Add one sheet's [true positives, false positives, misses] of each of `KINDS` to `per`
    (`annotations`: SAUS's label of each cell, None where unlabelled)."""
    for r, row in enumerate(annotations):
        for c, gold in enumerate(row):
            if gold is None:
                continue
            p = pred.get((r, c))
            for name, cls in (("top", {"header"}), ("left", {"attributes"})):
                _count(per[name], p in cls, gold in cls)
            both = {"header", "attributes"}
            _count(per["overall"], p in both, gold in both)


def _count(cell: list[int], predicted: bool, gold: bool) -> None:
    cell[0] += predicted and gold
    cell[1] += predicted and not gold
    cell[2] += gold and not predicted
