"""Header paths of a table's data cells, and how many question words they share.

A data row's *left path* is the chain of left-tree header cells from the root's child down to
the deepest node governing the row; a data column's *top path* likewise in the top tree. A node
governs its own row (column) span, merged cells included, and every line its descendants govern.
The words of a path are the lower-cased alphanumeric words of its header texts (stop words out,
plural s off);
the overlap with a question counts distinct shared words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from fortap.encoding.piece import RC
from fortap.sheet.model import a1
from fortap.table.model import Table
from fortap.table.tree import HeaderNode

_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_STOP = "a an the of in on at to for by with and or is are was were what which how many did do does that"
STOP_WORDS = frozenset(
    _STOP.split()
)  # a wider list (percent, total, among, ...) scored 0.4 points lower on dev


def stem(word: str) -> str:
    """A plural `s` off (workers -> worker), so header and question forms meet."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def words(text: str) -> frozenset[str]:
    """Lower-cased content words of `text`, stemmed, stop words left out."""
    return frozenset(stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS)


def _span(table: Table, node: HeaderNode, axis: int) -> set[int]:
    """Rows (axis 0) or columns (axis 1) the node's own cell covers, merged cells included."""
    line = node.row if axis == 0 else node.col
    for region in table.merged:
        if region.top <= node.row <= region.bottom and region.left <= node.col <= region.right:
            return set(
                range(region.top, region.bottom + 1)
                if axis == 0
                else range(region.left, region.right + 1)
            )
    return {line}


@dataclass(frozen=True)
class HeaderPaths:
    """Left paths of the table's rows and top paths of its columns (tuples of header cells)."""

    table: Table

    @cached_property
    def left(self) -> dict[int, tuple[RC, ...]]:
        return self._paths(self.table.left_root, axis=0)

    @cached_property
    def top(self) -> dict[int, tuple[RC, ...]]:
        return self._paths(self.table.top_root, axis=1)

    def _paths(self, root: HeaderNode, axis: int) -> dict[int, tuple[RC, ...]]:
        paths: dict[int, tuple[RC, ...]] = {}

        def visit(node: HeaderNode, above: tuple[RC, ...]) -> set[int]:
            path = (*above, (node.row, node.col))
            lines = _span(self.table, node, axis)
            for child in node.children:
                lines |= visit(child, path)
            for line in lines:
                if len(paths.get(line, ())) < len(path):
                    paths[line] = path
            return lines

        for child in root.children:
            visit(child, ())
        return paths

    @cached_property
    def header_rows(self) -> int:
        """Rows above the data: one past the top tree's deepest row. HiTab's own count
        (`top_header_rows_num`) is one more than the header rows of its `texts` in nearly every
        table, so its last counted row holds data in many (8 % of dev answer cells lie there)."""
        rows = [node.row for node in self.table.top_root.walk() if node.row >= 0]
        return max(rows) + 1 if rows else self.table.top_header_rows

    @property
    def header_cols(self) -> int:
        return self.table.left_header_cols

    def is_header(self, rc: RC) -> bool:
        return rc[0] < self.header_rows or rc[1] < self.header_cols

    def data_rows(self) -> list[int]:
        return list(range(self.header_rows, self.table.n_rows))

    def data_cols(self) -> list[int]:
        return list(range(self.header_cols, self.table.n_cols))

    def path_words(self, path: tuple[RC, ...]) -> frozenset[str]:
        return frozenset().union(*(words(self.table.cell(r, c).text) for r, c in path))

    @cached_property
    def row_words(self) -> dict[int, frozenset[str]]:
        return {r: self.path_words(self.left.get(r, ((r, 0),))) for r in self.data_rows()}

    @cached_property
    def col_words(self) -> dict[int, frozenset[str]]:
        return {c: self.path_words(self.top.get(c, ((0, c),))) for c in self.data_cols()}

    def header_path(self, rc: RC) -> tuple[RC, ...]:
        """Top path then left path of a data cell (the header cells naming it)."""
        r, c = rc
        return (*self.top.get(c, ()), *self.left.get(r, ()))

    def a1(self, rc: RC) -> str:
        """The cell's A1 reference in its sheet (the table's region offset added)."""
        return a1(rc[0] + self.table.region.top, rc[1] + self.table.region.left)

    def describe(self, rc: RC) -> str:
        """`Ontario 2016`-style name of a cell: its left path's then its top path's texts."""
        r, c = rc
        if self.is_header(rc):
            return self.table.cell(r, c).text
        texts = [self.table.cell(*h).text for h in (*self.left.get(r, ()), *self.top.get(c, ()))]
        return " ".join(t for t in texts if t) or self.table.cell(r, c).text


def best_lines(scores: dict[int, int]) -> list[int]:
    """Lines ordered by score, highest first, ties in table order."""
    return sorted(scores, key=lambda line: (-scores[line], line))


def overlaps(paths: HeaderPaths, question: str) -> tuple[dict[int, int], dict[int, int]]:
    """Shared words of the question with each data row's left path and each column's top path."""
    q = words(question)
    rows = {r: len(q & w) for r, w in paths.row_words.items()}
    cols = {c: len(q & w) for c, w in paths.col_words.items()}
    return rows, cols
