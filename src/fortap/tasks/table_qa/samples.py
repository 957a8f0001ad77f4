"""HiTab questions (`QASample`) and the tables they ask about (`HitabSet`).

The release keeps questions in two shapes: the raw dev/test files (`dev_samples.jsonl`,
`test_samples.jsonl`, `test_samples_qualitycheck.jsonl`: `table_id`, `answer_formulas`) and
the processed training file (`processed_input/train_samples_processed...jsonl.gz`: the table id
under `context`, no formulas). Both carry `linked_cells`: entity links (question phrase -> header
cells) and quantity links (phrase -> data cells), where the phrase `[ANSWER]` marks the cells
holding the answer or its operands. Coordinates are `(row, col)` of the table's `texts` matrix.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from fortap.encoding.piece import RC
from fortap.errors import FortapError
from fortap.table.hitab import read_hitab
from fortap.table.model import Table

ANSWER = "[ANSWER]"  # the linked phrase naming the answer's cells
SPLIT_FILES = {
    "train": "processed_input/train_samples_processed.from_90_shards.jsonl.gz",
    "dev": "dev_samples.jsonl",
    "test": "test_samples.jsonl",
    "test_qc": "test_samples_qualitycheck.jsonl",  # the October 2025 corrected test file
}


@dataclass(frozen=True)
class QASample:
    id: str
    table_id: str
    question: str
    answer: tuple  # gold values, str or float
    aggregation: tuple[str, ...]  # HiTab's labels, e.g. ("none",), ("sum", "div")
    answer_cells: tuple[RC, ...]  # cells linked to [ANSWER] (headers or data)
    header_links: tuple[RC, ...]  # other entity-linked header cells
    quantity_links: tuple[RC, ...]  # other quantity-linked data cells
    formulas: tuple[str, ...] = ()  # answer formulas (dev/test only)


def _rc(key: str) -> RC:
    row, col = key.strip("()").split(",")
    return int(row), int(col)


def sample_from_json(data: dict) -> QASample:
    """One question record of either shape (see module doc)."""
    links = data.get("linked_cells") or {}
    answer_cells: list[RC] = []
    headers: list[RC] = []
    for side in ("top", "left", "top_left_corner"):
        for phrase, cells in (links.get("entity_link", {}).get(side) or {}).items():
            (answer_cells if phrase == ANSWER else headers).extend(map(_rc, cells))
    quantities: list[RC] = []
    for phrase, cells in (links.get("quantity_link") or {}).items():
        (answer_cells if phrase == ANSWER else quantities).extend(map(_rc, cells))
    return QASample(
        id=str(data["id"]),
        table_id=str(data.get("table_id") or data.get("context")),
        question=str(data["question"]),
        answer=tuple(data.get("answer") or ()),
        aggregation=tuple(data.get("aggregation") or ("none",)),
        answer_cells=tuple(dict.fromkeys(answer_cells)),
        header_links=tuple(dict.fromkeys(headers)),
        quantity_links=tuple(dict.fromkeys(quantities)),
        formulas=tuple(data.get("answer_formulas") or ()),
    )


def read_samples(path: str | Path) -> list[QASample]:
    """Questions of one HiTab file (.jsonl or .jsonl.gz); a bad line names the file and line."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    samples = []
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if line.strip():
                    try:
                        samples.append(sample_from_json(json.loads(line)))
                    except (json.JSONDecodeError, KeyError, ValueError, AttributeError) as err:
                        raise FortapError(
                            f"bad HiTab question at line {number} of {path}: {err!r}"
                        ) from None
    except OSError as err:
        raise FortapError(f"cannot read HiTab questions {path}: {err}") from None
    return samples


class HitabSet:
    """A HiTab release folder: its question files by split and its tables, read once each."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if not (self.root / "tables" / "raw").is_dir():
            raise FortapError(f"{self.root} is not a HiTab folder (no tables/raw/)")
        self._tables: dict[str, Table] = {}

    def samples(self, split: str) -> list[QASample]:
        if split not in SPLIT_FILES:
            raise FortapError(
                f"unknown HiTab split {split!r}; choose from {', '.join(SPLIT_FILES)}"
            )
        return read_samples(self.root / SPLIT_FILES[split])

    def table(self, table_id: str) -> Table:
        if table_id not in self._tables:
            self._tables[table_id] = read_hitab(self.table_path(table_id))
        return self._tables[table_id]

    def table_path(self, table_id: str) -> Path:
        return self.root / "tables" / "raw" / f"{table_id}.json"
