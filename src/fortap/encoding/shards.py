"""Parquet shards of `Example`s: the schema, an atomic writer and a streaming reader.

One row per Example. Per-token lists are stored flat (`numbers`, `top_coords`, `left_coords`
hold T x 4 values, `formats` T x 11 as float32, `cell_coords` C x 2); `targets` and `meta` are
JSON text. A shard is first written to `NAME.tmp` next to its final name and renamed when
complete, so a shard that exists is whole (a killed writer leaves only a `.tmp`). The same
Examples always give the same bytes (fixed schema, no timestamps, zstd at a fixed level).

    write_shard(path, examples)         -> rows written
    read_shard(path, batch_rows=256)    -> Iterator[Example], a record batch at a time
    read_shard_arrays(path)             -> list[ExampleArrays], the same examples as arrays
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fortap.encoding.arrays import CELL, COLUMNS, INT_DTYPE, WIDTH, ExampleArrays, cell_starts
from fortap.encoding.example import FORMAT_DIM, TREE_LEVELS, Example
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets

_INT_LISTS = ("token_ids", "in_cell_pos", "rows", "cols", "cell_ids")
_GROUPED = {"numbers": 4, "top_coords": TREE_LEVELS, "left_coords": TREE_LEVELS, "cell_coords": 2}

SCHEMA = pa.schema(
    [pa.field(name, pa.list_(pa.int32())) for name in _INT_LISTS]
    + [pa.field(name, pa.list_(pa.int32())) for name in _GROUPED]
    + [
        pa.field("formats", pa.list_(pa.float32())),
        pa.field("targets", pa.string()),
        pa.field("meta", pa.string()),
    ]
)
SHARD_VERSION = "1"


def _flat(rows) -> list:
    return [value for row in rows for value in row]


def _grouped(values: list, width: int) -> list[tuple]:
    return [tuple(values[i : i + width]) for i in range(0, len(values), width)]


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def to_table(examples: Iterable[Example]) -> pa.Table:
    """Examples as one Arrow table in `SCHEMA`."""
    columns: dict[str, list] = {name: [] for name in SCHEMA.names}
    for ex in examples:
        for name in _INT_LISTS:
            columns[name].append(list(getattr(ex, name)))
        for name in _GROUPED:
            columns[name].append(_flat(getattr(ex, name)))
        columns["formats"].append(_flat(ex.formats))
        columns["targets"].append(_dumps(_targets_json(ex.targets)))
        columns["meta"].append(_dumps(ex.meta))
    return pa.table(columns, schema=SCHEMA)


def write_shard(path: str | Path, examples: Iterable[Example]) -> int:
    """Write `examples` to `path` atomically (temp file + rename); returns the row count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    table = to_table(examples)
    temp = path.with_name(path.name + ".tmp")
    pq.write_table(
        table.replace_schema_metadata({"fortap_shard": SHARD_VERSION}),
        temp,
        compression="zstd",
        compression_level=3,
        row_group_size=256,
    )
    with open(temp, "rb") as handle:  # the bytes reach the disk before the name appears
        os.fsync(handle.fileno())
    os.replace(temp, path)
    return table.num_rows


def shard_rows(path: str | Path) -> int:
    """Rows in a shard, read from its footer only."""
    return pq.ParquetFile(path).metadata.num_rows


def read_shard(path: str | Path, batch_rows: int = 256) -> Iterator[Example]:
    """The Examples of one shard in order, reading `batch_rows` rows at a time."""
    handle = pq.ParquetFile(path)
    for batch in handle.iter_batches(batch_size=batch_rows):
        yield from _examples(batch.to_pydict())


def read_shard_arrays(path: str | Path) -> list[ExampleArrays]:
    """The examples of one shard as `ExampleArrays`, decoded column by column: every token
    column lands in one (T_all, K) array, and each example is a view of its rows."""
    table = pq.read_table(path)
    flat = {name: _flat_column(table, name) for name in SCHEMA.names[:-2]}
    offsets = flat["token_ids"][1]  # (N + 1,) token offsets
    ints = np.empty((int(offsets[-1]), WIDTH), dtype=INT_DTYPE)  # (T_all, K)
    for name, columns in COLUMNS.items():
        ints[:, columns] = flat[name][0].reshape(ints[:, columns].shape)
    formats = flat["formats"][0].reshape(len(ints), FORMAT_DIM)  # (T_all, F) float32
    coords, coord_offsets = flat["cell_coords"]
    coords = coords.reshape(-1, 2).tolist()
    texts = zip(table.column("targets").to_pylist(), table.column("meta").to_pylist(), strict=True)
    out = []
    for i, (targets, meta) in enumerate(texts):
        rows = slice(offsets[i], offsets[i + 1])
        cells = coords[coord_offsets[i] // 2 : coord_offsets[i + 1] // 2]
        targets = _targets_from_json(json.loads(targets))
        out.append(ExampleArrays(ints[rows], formats[rows], cell_starts(ints[rows, CELL]),
                                 list(map(tuple, cells)), targets, json.loads(meta)))  # fmt: skip
    return out


def _flat_column(table: pa.Table, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(values, offsets) of a list column: every row's values end to end, and where each
    row starts in them."""
    column = table.column(name).combine_chunks()
    return column.values.to_numpy(zero_copy_only=False), column.offsets.to_numpy()


def _examples(data: dict[str, list]) -> Iterator[Example]:
    for i in range(len(data["token_ids"])):
        formats = data["formats"][i]
        yield Example(
            token_ids=data["token_ids"][i],
            numbers=_grouped(data["numbers"][i], 4),
            in_cell_pos=data["in_cell_pos"][i],
            rows=data["rows"][i],
            cols=data["cols"][i],
            top_coords=_grouped(data["top_coords"][i], TREE_LEVELS),
            left_coords=_grouped(data["left_coords"][i], TREE_LEVELS),
            formats=_grouped(formats, FORMAT_DIM),
            cell_ids=data["cell_ids"][i],
            cell_coords=_grouped(data["cell_coords"][i], 2),
            targets=_targets_from_json(json.loads(data["targets"][i])),
            meta=json.loads(data["meta"][i]),
        )


def _targets_json(targets: dict) -> dict:
    """Targets as JSON values: the typed formula targets as their JSON object."""
    if isinstance(targets.get(FORMULA_KEY), FormulaTargets):
        return {**targets, FORMULA_KEY: targets[FORMULA_KEY].to_json()}
    return targets


def _targets_from_json(targets: dict) -> dict:
    if targets.get(FORMULA_KEY) is not None:
        targets[FORMULA_KEY] = FormulaTargets.from_json(targets[FORMULA_KEY])
    return targets
