"""Table <-> JSON, JSON-lines files of tables, and `read_tables` (every table a user names:
Table JSONL and HiTab JSON). The round trip is exact.

One table is one JSON object (format version `v` = 1):

    {"v": 1, "book": "budget.xlsx", "sheet": "Sheet1", "region": [top, left, bottom, right],
     "cells": [[row, col, {cell}], ...],           # table-relative; cells equal to EMPTY left out
     "merged": [[top, left, bottom, right], ...],  # table-relative
     "top_header_rows": 2, "left_header_cols": 1,
     "top_tree": [[row, col, [children...]], ...], # the root's children; a node is [row, col, kids]
     "left_tree": [...], "context": ["title", "note", ...]}

A cell object holds only what differs from the default `Cell()`: `value`, `kind`, `formula`,
`array_formula`, and `style` with only the fields that differ from `CellStyle()`. Keys with
default values are left out of the table object too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

from fortap.errors import FortapError
from fortap.sheet.model import DEFAULT_STYLE, EMPTY, Cell, CellStyle, Region
from fortap.table.hitab import read_hitab
from fortap.table.inputs import table_inputs
from fortap.table.model import ROOT, HeaderNode, Table

FORMAT_VERSION = 1
_STYLE_FIELDS = tuple(f.name for f in fields(CellStyle))


def table_to_json(t: Table) -> dict[str, Any]:
    """A compact JSON-ready dict of `t` (sparse cells, default values left out)."""
    out: dict[str, Any] = {
        "v": FORMAT_VERSION,
        "book": t.book,
        "sheet": t.sheet,
        "region": _region_list(t.region),
        "cells": [
            [r, c, _cell_to_json(cell)]
            for r, row in enumerate(t.cells)
            for c, cell in enumerate(row)
            if cell != EMPTY
        ],
    }
    if t.merged:
        out["merged"] = [_region_list(m) for m in t.merged]
    if t.top_header_rows:
        out["top_header_rows"] = t.top_header_rows
    if t.left_header_cols:
        out["left_header_cols"] = t.left_header_cols
    if t.top_root.children:
        out["top_tree"] = [_node_to_json(n) for n in t.top_root.children]
    if t.left_root.children:
        out["left_tree"] = [_node_to_json(n) for n in t.left_root.children]
    if t.context:
        out["context"] = list(t.context)
    return out


def table_from_json(d: dict[str, Any]) -> Table:
    """The `Table` that `table_to_json` wrote; raises `ValueError` naming what is wrong."""
    version = d.get("v", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise ValueError(f"table JSON: format version {version} is not {FORMAT_VERSION}")
    try:
        region = Region(*d["region"])
        grid = [[EMPTY] * region.n_cols for _ in range(region.n_rows)]
        for r, c, cell in d.get("cells", ()):
            grid[r][c] = _cell_from_json(cell)
        return Table(
            book=d["book"],
            sheet=d["sheet"],
            region=region,
            cells=tuple(tuple(row) for row in grid),
            merged=tuple(Region(*m) for m in d.get("merged", ())),
            top_header_rows=d.get("top_header_rows", 0),
            left_header_cols=d.get("left_header_cols", 0),
            top_root=HeaderNode(ROOT.row, ROOT.col, _nodes_from_json(d.get("top_tree", ()))),
            left_root=HeaderNode(ROOT.row, ROOT.col, _nodes_from_json(d.get("left_tree", ()))),
            context=tuple(d.get("context", ())),
        )
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"table JSON: malformed ({type(exc).__name__}: {exc})") from exc


def write_jsonl(path: str | Path, tables: Iterable[Table]) -> int:
    """Write one table per line; returns how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        for t in tables:
            fh.write(json.dumps(table_to_json(t), ensure_ascii=False, separators=(",", ":")))
            fh.write("\n")
            count += 1
    return count


def read_jsonl(path: str | Path) -> Iterator[Table]:
    """Tables from a JSON-lines file, or a folder of them (an ingest's `tables.jsonl/` shards,
    in name order), lazily; a bad line raises `FortapError` naming file and line."""
    if Path(path).is_dir():
        for shard in sorted(Path(path).glob("*.jsonl")):
            yield from read_jsonl(shard)
        return
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield table_from_json(json.loads(line))
            except (json.JSONDecodeError, ValueError) as exc:
                raise FortapError(f"{exc} (line {number} of {Path(path).name})") from exc


def read_tables(paths: Iterable[str | Path], limit: int = 0) -> list[Table]:
    """Tables of the Table JSONL files, then the HiTab JSON files, that `paths` name (files or
    folders, see `fortap.table.inputs`; an ingest folder's `report.json` is left out); at most
    `limit` (0 = all), the files after the limit is reached are not read."""
    jsonl, hitab = table_inputs(paths)
    tables: list[Table] = []
    for path in jsonl + hitab:
        if limit and len(tables) >= limit:
            break
        if path in hitab:
            tables.append(read_hitab(path))
        else:
            tables += list(read_jsonl(path))
    return tables[:limit] if limit else tables


def _region_list(reg: Region) -> list[int]:
    return [reg.top, reg.left, reg.bottom, reg.right]


def _cell_to_json(cell: Cell) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if cell.value is not None:
        out["value"] = cell.value
    if cell.kind != "empty":
        out["kind"] = cell.kind
    if cell.formula is not None:
        out["formula"] = cell.formula
    if cell.array_formula:
        out["array_formula"] = True
    if cell.style != DEFAULT_STYLE:
        out["style"] = {
            name: getattr(cell.style, name)
            for name in _STYLE_FIELDS
            if getattr(cell.style, name) != getattr(DEFAULT_STYLE, name)
        }
    return out


def _cell_from_json(d: dict[str, Any]) -> Cell:
    style = CellStyle(**d["style"]) if "style" in d else DEFAULT_STYLE
    return Cell(
        value=d.get("value"),
        kind=d.get("kind", "empty"),
        formula=d.get("formula"),
        array_formula=d.get("array_formula", False),
        style=style,
    )


def _node_to_json(node: HeaderNode) -> list[Any]:
    return [node.row, node.col, [_node_to_json(c) for c in node.children]]


def _nodes_from_json(items: Iterable[Any]) -> tuple[HeaderNode, ...]:
    return tuple(HeaderNode(row, col, _nodes_from_json(kids)) for row, col, kids in items)
