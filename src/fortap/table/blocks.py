"""Blocks of non-empty cells in a sheet, and the rules that join blocks into one table.

A block is `(bounding box, number of non-empty cells)`. `cell_blocks` finds the 8-connected
components of occupied cells (a merged region with a non-empty anchor is occupied over its
whole area); the `join_*` functions glue blocks that a person reads as one table: overlapping
boxes, parts split by spacer columns, header pieces split by empty rows, and a body going on
after a spacer row. `fortap.table.regions` decides which joined blocks are tables.
"""

from __future__ import annotations

from fortap.sheet.model import Region, Sheet
from fortap.table.layout import is_numeric

Block = tuple[Region, int]  # bounding box, non-empty cells inside it


def _occupied(sheet: Sheet) -> set[tuple[int, int]]:
    """Non-empty cells plus every cell of a merged region whose anchor is non-empty."""
    cells = {key for key, cell in sheet.cells.items() if not cell.is_empty}
    for reg in sheet.merged:
        if (reg.top, reg.left) in cells:
            cells.update(
                (r, c)
                for r in range(reg.top, reg.bottom + 1)
                for c in range(reg.left, reg.right + 1)
            )
    return cells


def cell_blocks(sheet: Sheet) -> list[Block]:
    """Bounding boxes of 8-connected components of occupied cells, with their non-empty count."""
    todo = _occupied(sheet)
    boxes: list[Block] = []
    while todo:
        seed = todo.pop()
        stack, top, left, bottom, right = [seed], seed[0], seed[1], seed[0], seed[1]
        filled = 0
        while stack:
            r, c = stack.pop()
            filled += not sheet.cell(r, c).is_empty
            top, left, bottom, right = min(top, r), min(left, c), max(bottom, r), max(right, c)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    nb = (r + dr, c + dc)
                    if nb in todo:
                        todo.remove(nb)
                        stack.append(nb)
        boxes.append((Region(top, left, bottom, right), filled))
    return boxes


def join_overlaps(boxes: list[Block]) -> list[Block]:
    """Join boxes that overlap until none do (adding their non-empty counts)."""
    boxes = sorted(boxes)
    changed = True
    while changed:
        changed = False
        out: list[Block] = []
        for box, filled in boxes:
            for i, (other, n) in enumerate(out):
                if _overlap(box, other):
                    out[i] = (_union(box, other), n + filled)
                    changed = True
                    break
            else:
                out.append((box, filled))
        boxes = sorted(out)
    return boxes


def _overlap(a: Region, b: Region) -> bool:
    return a.top <= b.bottom and b.top <= a.bottom and a.left <= b.right and b.left <= a.right


def _union(a: Region, b: Region) -> Region:
    return Region(
        min(a.top, b.top), min(a.left, b.left), max(a.bottom, b.bottom), max(a.right, b.right)
    )


def join_side_by_side(blocks: list[Block], col_gap: int) -> list[Block]:
    """Join blocks split by at most `col_gap` empty spacer columns over nearly the same rows."""
    by_left: dict[int, list[int]] = {}
    for k, (box, _) in enumerate(blocks):
        by_left.setdefault(box.left, []).append(k)
    parent = list(range(len(blocks)))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, (a, _) in enumerate(blocks):
        for left in range(a.right + 1, a.right + col_gap + 2):
            for j in by_left.get(left, ()):
                b = blocks[j][0]
                shared = min(a.bottom, b.bottom) - max(a.top, b.top) + 1
                if shared * 5 >= 4 * max(a.n_rows, b.n_rows):
                    parent[find(j)] = find(i)
    groups: dict[int, Block] = {}
    for k, (box, filled) in enumerate(blocks):
        root = find(k)
        if root in groups:
            prev, n = groups[root]
            groups[root] = (_union(prev, box), n + filled)
        else:
            groups[root] = (box, filled)
    return join_overlaps(list(groups.values()))


def join_headers(sheet: Sheet, blocks: list[Block], header_gap: int) -> list[Block]:
    """Join blocks of labels to the block right below them (a header split by empty rows).

    A block joins when it holds no value, lies at most `header_gap` empty rows above the other
    block and shares columns with it. A one-column block at or left of the other's left edge
    reads as a title instead and stays apart.
    """
    changed = True
    while changed:
        changed = False
        for i, (upper, n_upper) in enumerate(blocks):
            if _has_values(sheet, upper):
                continue
            below = [
                (j, lower)
                for j, (lower, _) in enumerate(blocks)
                if 0 < lower.top - upper.bottom <= header_gap + 1
                and upper.left <= lower.right
                and lower.left <= upper.right
                and (upper.n_cols > 1 or upper.left > lower.left)
            ]
            if not below:
                continue
            j, lower = min(below, key=lambda item: item[1].top)
            joined = (_union(upper, lower), n_upper + blocks[j][1])
            blocks = [b for k, b in enumerate(blocks) if k not in (i, j)] + [joined]
            blocks = join_overlaps(blocks)
            changed = True
            break
    return blocks


def join_continued(sheet: Sheet, blocks: list[Block], body_gap: int) -> list[Block]:
    """Join a block to the one above it when it goes on with values after a spacer row.

    The lower block must start at the same column, share most of its columns with the upper
    one, and hold a value in its first row (a new table would start with a header row).
    """
    blocks = sorted(blocks)
    out: list[Block] = []
    for box, filled in blocks:
        for i, (prev, n) in enumerate(out):
            gap = box.top - prev.bottom - 1
            shared = min(box.right, prev.right) - max(box.left, prev.left) + 1
            if (
                0 <= gap <= body_gap
                and box.left == prev.left
                and shared * 2 > max(box.n_cols, prev.n_cols)
                and _has_values(
                    sheet, Region(box.top, box.left + 1, box.top, max(box.right, box.left + 1))
                )
            ):
                out[i] = (_union(prev, box), n + filled)
                break
        else:
            out.append((box, filled))
    return join_overlaps(out)


def _has_values(sheet: Sheet, box: Region) -> bool:
    """Any measured value (number, numeric text, date, formula) inside `box`."""
    return any(
        is_numeric(sheet.cell(r, c))
        for r in range(box.top, box.bottom + 1)
        for c in range(box.left, box.right + 1)
    )
