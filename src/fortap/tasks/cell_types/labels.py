"""The six cell types and how SAUS names them.

ForTaP's cell type classification (after DeEx) gives every non-empty cell one of six types:
*metadata* (titles, sources), *notes* (footnotes), *data*, *left attribute* (row labels),
*top attribute* (column headers) and *derived* (totals, averages, shares: numbers computed
from other cells). SAUS's annotations use the same taxonomy under older names (`attributes`
for left attributes, `header` for top attributes) and `null` for an empty cell, which has no
type: it is never trained on or scored.
"""

from __future__ import annotations

TASK = "cell-types"  # the registry's name, and the task a model folder names
CELL_TYPES = ("metadata", "notes", "data", "left_attribute", "top_attribute", "derived")
CLASS_INDEX = {name: i for i, name in enumerate(CELL_TYPES)}
NO_LABEL = -100  # cross-entropy's ignore index: an empty, unlabelled or unscored cell
Typed = tuple[int, float]  # a typed cell: its class index and the model's probability of it
SAUS_NAMES = {
    "metadata": "metadata",
    "notes": "notes",
    "data": "data",
    "attributes": "left_attribute",
    "header": "top_attribute",
    "derived": "derived",
}


def saus_label(name: str | None) -> int:
    """Class index of a SAUS annotation (`NO_LABEL` for null); an unknown name raises."""
    if name is None:
        return NO_LABEL
    if name not in SAUS_NAMES:
        raise ValueError(f"unknown SAUS cell type {name!r}; expected one of {sorted(SAUS_NAMES)}")
    return CLASS_INDEX[SAUS_NAMES[name]]
