"""Baselines without training: the header-overlap rule and the majority operation.

- `overlap_rule`: pick the data row whose left path and the data column whose top path share
  the most words with the question (ties: the first in table order) and answer their crossing
  cell.
- `MajorityOp`: the operation most often used by training questions that open with the same
  two words ("how many", "which group", ...; all questions when the opening is unseen), run on
  the best-overlap cells: the crossing cell for `none`/`opposite`; the two best rows (or
  columns) at the best column (row) for two-cell operations; for the others every data row of
  the best column at the best row's depth (or every column of the best row, whichever axis has
  the larger second-best overlap).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fortap.encoding.piece import RC
from fortap.tasks.table_qa.headers import HeaderPaths, best_lines, overlaps
from fortap.tasks.table_qa.operations import ONE_CELL_OPS, TWO_CELL_OPS, Execution, execute


def crossing(paths: HeaderPaths, question: str) -> RC | None:
    rows, cols = overlaps(paths, question)
    if not rows or not cols:
        return None
    return best_lines(rows)[0], best_lines(cols)[0]


def overlap_rule(paths: HeaderPaths, question: str) -> Execution | None:
    """The floor: the crossing cell of the best-overlap row and column."""
    rc = crossing(paths, question)
    return execute("none", [rc], paths) if rc is not None else None


def overlap_cells(paths: HeaderPaths, question: str, op: str) -> list[RC]:
    """Best-overlap cells for `op` (see module doc)."""
    rows, cols = overlaps(paths, question)
    if not rows or not cols:
        return []
    by_row, by_col = best_lines(rows), best_lines(cols)
    r, c = by_row[0], by_col[0]
    if op == "none" or op in ONE_CELL_OPS:
        return [(r, c)]
    vary_rows = len(by_row) > 1 and (len(by_col) < 2 or rows[by_row[1]] >= cols[by_col[1]])
    if op in TWO_CELL_OPS:
        return [(x, c) for x in by_row[:2]] if vary_rows else [(r, x) for x in by_col[:2]]
    if vary_rows:
        depth = len(paths.left.get(r, ()))
        return [(x, c) for x in paths.data_rows() if len(paths.left.get(x, ())) == depth]
    depth = len(paths.top.get(c, ()))
    return [(r, x) for x in paths.data_cols() if len(paths.top.get(x, ())) == depth]


def opening(question: str) -> str:
    return " ".join(question.lower().replace(",", " ").split()[:2])


class MajorityOp:
    """The majority operation per question opening, learned from (question, op) pairs."""

    def __init__(self, labelled: Iterable[tuple[str, str]]) -> None:
        by_opening: dict[str, Counter] = defaultdict(Counter)
        overall: Counter = Counter()
        for question, op in labelled:
            by_opening[opening(question)][op] += 1
            overall[op] += 1
        self.overall = overall.most_common(1)[0][0] if overall else "none"
        self.by_opening = {k: v.most_common(1)[0][0] for k, v in by_opening.items()}

    def op(self, question: str) -> str:
        return self.by_opening.get(opening(question), self.overall)

    def answer(self, paths: HeaderPaths, question: str) -> tuple[str, Execution | None]:
        op = self.op(question)
        cells = overlap_cells(paths, question, op)
        return op, execute(op, cells, paths) if cells else None
