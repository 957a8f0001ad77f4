"""A literal 4x4 sheet with labels, literal SAUS records, and a few real SAUS sheets, for the
cell-type tests."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path

from fortap.sheet.model import Cell, Region, Sheet
from fortap.table.detect import build_table
from fortap.table.model import Table
from fortap.tasks.cell_types.labels import CLASS_INDEX, NO_LABEL

# one-token words, so every shown cell costs 2 tokens ([SEP] + the word)
GRID = (
    ("", "x", "y", "z"),
    ("p", "a", "b", "c"),
    ("q", "d", "", "e"),
    ("r", "f", "g", "h"),
)
L, T, D = CLASS_INDEX["left_attribute"], CLASS_INDEX["top_attribute"], CLASS_INDEX["data"]
N = NO_LABEL
LABELS = (  # (0, 0) and (2, 2) are empty; (3, 3) holds "h" but has no label
    (N, T, T, T),
    (L, D, D, D),
    (L, D, N, D),
    (L, D, D, N),
)


def grid_table() -> Table:
    """GRID as a table with one top-header row and one left-header column."""
    cells = {
        (r, c): Cell(text, "text")
        for r, row in enumerate(GRID)
        for c, text in enumerate(row)
        if text
    }
    sheet = Sheet("S", "grid.xlsx", 4, 4, cells)
    table = build_table(sheet, Region(0, 0, 3, 3))
    return replace(table, top_header_rows=1, left_header_cols=1)


NAMES = [
    "is_bold",
    "indentation",
    "h_alignment=0",
    "h_alignment=2",
    "border_top_type=1",
    "leading_spaces",
]


def feature(bold=0.0, indent=0.0, general=1.0, center=0.0, top=0.0, spaces=0.0) -> list[float]:
    return [bold, indent, general, center, top, spaces]


def saus_record(file: str, sheet: str = "Data") -> dict:
    """A 3x3 SAUS line: a bold title, a header row, a data row with a code and a "None"."""
    texts = [["Title", "", ""], ["", "2001", "2002"], ["  Ohio", "01", "None"]]
    labels = [["metadata", None, None], [None, "header", "header"], ["attributes", "data", "data"]]
    features = [[feature(bold=1.0), feature(), feature()],
                [feature(), feature(center=1.0, general=0.0), feature()],
                [feature(indent=2.0, spaces=2.0), feature(top=1.0), feature(general=0.0)]]  # fmt: skip
    return {"file_name": file, "table_id": sheet, "table_array": texts, "annotations": labels,
            "feature_array": features, "feature_names": NAMES, "num_rows": 3, "num_cols": 3}  # fmt: skip


def write_real_saus(data_dir: Path, folder: Path, n_files: int = 10) -> Path:
    """The `n_files` SAUS files with the fewest labelled cells (one sheet each), copied line for
    line from `data_dir`/saus_ctc into `folder`/saus.jl.gz, and folds.json putting them
    round-robin into five folds; returns `folder`."""
    lines: dict[str, tuple[int, str]] = {}
    with gzip.open(data_dir / "saus_ctc" / "saus.jl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            labelled = sum(a is not None for row in rec["annotations"] for a in row)
            if labelled and rec["file_name"] not in lines:
                lines[rec["file_name"]] = (labelled, line)
    files = sorted(lines, key=lambda f: (lines[f][0], f))[:n_files]
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / "saus.jl.gz", "wt", encoding="utf-8") as fh:
        fh.writelines(lines[f][1] for f in files)
    folds = [sorted(files[k::5]) for k in range(5)]
    (folder / "folds.json").write_text(json.dumps({"folds": folds}))
    return folder
