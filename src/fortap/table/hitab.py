"""HiTab raw table JSON -> `Table` (the HiTab release's `tables/raw/*.json`).

A raw HiTab table holds `title`, `texts` (a matrix of strings), `merged_regions`
(`first_row`, `last_row`, `first_column`, `last_column`, 0-based inclusive),
`top_header_rows_num`, `left_header_columns_num` and two header trees `top_root` /
`left_root` whose nodes are `{row_index, column_index, children}` with the root at (-1, -1).
The title becomes the table's context; there are no notes and no formats.

Cell text that is a plain number ("52.1", "-3", "1,910,361") becomes a number cell holding the
float, as a spreadsheet would store it; everything else stays text; "" is an empty cell.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fortap.errors import SheetError
from fortap.sheet.model import EMPTY, Cell, Region
from fortap.table.model import ROOT, HeaderNode, Table

_NUMBER = re.compile(r"-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?")


def parse_cell(text: str) -> Cell:
    """One HiTab cell string as a `Cell`."""
    text = text.strip()
    if not text:
        return EMPTY
    if _NUMBER.fullmatch(text):
        return Cell(value=float(text.replace(",", "")), kind="number")
    return Cell(value=text, kind="text")


def _node(data: dict[str, Any] | None, path: Path) -> HeaderNode:
    if not data:
        return ROOT
    try:
        children = tuple(_node(child, path) for child in data.get("children") or ())
        return HeaderNode(int(data["row_index"]), int(data["column_index"]), children)
    except (KeyError, TypeError, ValueError) as err:
        raise SheetError("bad_hitab", f"malformed header tree node: {err!r}", path) from None


def table_from_hitab(data: dict[str, Any], path: str | Path = "hitab") -> Table:
    """Build a `Table` from one parsed HiTab raw table; errors name `path`."""
    path = Path(path)
    texts = data.get("texts")
    if not isinstance(texts, list) or not texts or not all(isinstance(r, list) for r in texts):
        raise SheetError("bad_hitab", "'texts' is not a non-empty matrix", path)
    n_cols = max(len(row) for row in texts)
    if n_cols == 0:
        raise SheetError("bad_hitab", "'texts' has no columns", path)
    cells = tuple(
        tuple(parse_cell(str(row[c])) if c < len(row) else EMPTY for c in range(n_cols))
        for row in texts
    )
    merged = []
    for region in data.get("merged_regions") or ():
        try:
            merged.append(
                Region(
                    int(region["first_row"]),
                    int(region["first_column"]),
                    int(region["last_row"]),
                    int(region["last_column"]),
                )
            )
        except (KeyError, TypeError, ValueError) as err:
            raise SheetError(
                "bad_hitab", f"malformed merged region {region!r}: {err}", path
            ) from None
    title = str(data.get("title") or "").strip()
    return Table(
        book=str(path),
        sheet=path.stem,
        region=Region(0, 0, len(texts) - 1, n_cols - 1),
        cells=cells,
        merged=tuple(merged),
        top_header_rows=int(data.get("top_header_rows_num") or 0),
        left_header_cols=int(data.get("left_header_columns_num") or 0),
        top_root=_node(data.get("top_root"), path),
        left_root=_node(data.get("left_root"), path),
        context=(title,) if title else (),
    )


def read_hitab(path: str | Path) -> Table:
    """Read one HiTab raw table file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SheetError("bad_hitab", f"cannot read HiTab table: {err}", path) from None
    if not isinstance(data, dict):
        raise SheetError("bad_hitab", "a HiTab table file holds one JSON object", path)
    return table_from_hitab(data, path)
