"""Training targets from HiTab's partial supervision: an operation and the cells it runs on.

The operation comes from the aggregation labels (`operations.op_of_labels`). The cells come
from the links (`samples.QASample`):

- a value or computed answer: the cells linked to `[ANSWER]` (the answer, or its operands);
- a header answer (argmax-like): the answer is a header cell, not its operands. The operands
  are the data cells crossing the candidate headers on the answer's axis (for a pair, the
  linked headers on that axis; otherwise the answer header's siblings in its tree) with one
  line of the other axis, among the lines governed by that axis's linked headers.

A target is kept for the cell head only when executing it gives the gold answer (`verified`);
the operation is trained on every question whose labels map into the set.
"""

from __future__ import annotations

from dataclasses import dataclass

from fortap.encoding.piece import RC
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.matching import answers_match
from fortap.tasks.table_qa.operations import ARG_OPS, execute, op_of_labels
from fortap.tasks.table_qa.samples import QASample

MAX_TRIES = 64  # lines of the other axis tried for a header answer


@dataclass(frozen=True)
class Target:
    op: str | None  # None: the labels lie outside the operation set
    cells: tuple[RC, ...]  # the operands (or answer cells); () when none was found
    verified: bool  # executing op on cells gives the gold answer


def build_target(sample: QASample, paths: HeaderPaths) -> Target:
    op = op_of_labels(sample.aggregation, sample.answer)
    if op is None:
        return Target(None, (), False)
    table = paths.table
    inside = [
        rc for rc in sample.answer_cells if 0 <= rc[0] < table.n_rows and 0 <= rc[1] < table.n_cols
    ]
    if op not in ARG_OPS:
        return _checked(op, tuple(inside), sample, paths)
    for cells in _arg_candidates(op, sample, inside, paths):
        found = _checked(op, cells, sample, paths)
        if found.verified:
            return found
    return Target(op, (), False)


def _checked(op: str, cells: tuple[RC, ...], sample: QASample, paths: HeaderPaths) -> Target:
    run = execute(op, cells, paths) if cells else None
    return Target(op, cells, run is not None and answers_match(run.answer, sample.answer))


def _arg_candidates(op: str, sample: QASample, answer: list[RC], paths: HeaderPaths):
    """Operand sets for a header answer, most likely first (see module doc)."""
    headers = [rc for rc in answer if paths.is_header(rc)]
    if not headers:
        return
    h = headers[0]
    on_left = h[1] < paths.header_cols and h[0] >= paths.header_rows
    own, other = (paths.left, paths.top) if on_left else (paths.top, paths.left)
    index = 0 if on_left else 1
    if op in ("pair_max", "pair_min"):
        linked = [rc for rc in (*sample.header_links, *headers) if _on_axis(rc, on_left, paths)]
        lines = sorted({rc[index] for rc in linked})
    else:
        lines = sorted(_sibling_lines(h, own, index))
    if len(lines) < 2:
        return
    fixed = [rc for rc in sample.header_links if not _on_axis(rc, on_left, paths)]
    governed = [line for line, path in other.items() if all(rc in path for rc in fixed)]
    for line in (governed or sorted(other))[:MAX_TRIES]:
        yield tuple((r, line) if on_left else (line, r) for r in lines)


def _on_axis(rc: RC, on_left: bool, paths: HeaderPaths) -> bool:
    left = rc[1] < paths.header_cols and rc[0] >= paths.header_rows
    return left if on_left else rc[0] < paths.header_rows


def _sibling_lines(h: RC, lines: dict[int, tuple[RC, ...]], index: int) -> set[int]:
    """Lines of `h`'s siblings (same parent, same depth), each at the sibling's own line (its
    row for a left header, `index` 0; its column for a top header, `index` 1)."""
    for path in lines.values():
        if h in path:
            depth = path.index(h)
            prefix = path[:depth]
            return {
                p[depth][index] for p in lines.values() if len(p) > depth and p[:depth] == prefix
            }
    return set()
