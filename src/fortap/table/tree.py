"""Tree coordinates of every table cell and the tree distance between them (TUTA's bi-tree).

Each cell gets two coordinates, one in the top header tree and one in the left header tree.
A coordinate (`Coord`) has one slot per level (4 by default); slot `l` holds the sibling index
of the cell's ancestor at level `l`, -1 where the level does not apply. Levels are
**bottom-aligned**: in a tree of depth `d` the root's children sit at level `L - d`, so leaves
land on the last levels. A flat header row is a depth-1 tree: its headers are
`(-1, -1, -1, i)`.

How cells get coordinates (top tree; the left tree is the same with rows and columns swapped):

1. Every tree node's coordinate is written over its own cell (all of its merged region).
2. Every other cell takes the coordinate of the deepest node that *governs its column*; a node
   governs the columns of its own merged span and of all its descendants. So a leaf's
   coordinate reaches the data cells below it (as in the reference) and also any empty cell
   above it; a column a parent covers but no child does takes the parent's coordinate.
3. Columns no node governs (the left-header columns, stray columns) become *virtual root
   children*: appended after the real root children, one per column in column order, at the
   root-children level. They never collide with a real node, cells of one such column share a
   coordinate, and for a table without a tree this gives exactly the reference fallback
   `(-1, -1, -1, col)`.
4. Fallback `(-1, -1, -1, col % degree)` for every cell when the tree is deeper than the levels,
   or a node (counting virtual children at the root) has more children than its level allows.

Unlike the reference, no cell is left all-null and no table is dropped: the reference nulls
the corner and header cells, and TUTA then discards whole tables that sample such a cell.

Distance (`tree_distance`): per level, both null 0, one null 1, equal 0, different 2; summed.
This is the size of the symmetric difference of the two cells' node-id sets (`node_ids`), the
reference's sibling-index "Hamming" distance, not a path length through the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from fortap.sheet.model import Region

Coord = tuple[int, int, int, int]  # sibling index per level, -1 = null (length = TreeConfig.levels)
NULL = -1


@dataclass(frozen=True, slots=True)
class HeaderNode:
    """A header cell in a tree, table-relative; the root is (-1, -1)."""

    row: int
    col: int
    children: tuple[HeaderNode, ...] = ()

    def depth(self) -> int:
        """Levels below this node (a root with only leaf children has depth 1)."""
        return 1 + max((c.depth() for c in self.children), default=-1) if self.children else 0

    def walk(self):
        """Pre-order over this node and its descendants."""
        yield self
        for child in self.children:
            yield from child.walk()


class TreeTable(Protocol):
    """What `cell_coordinates` reads of a table (`fortap.table.model.Table` has it all)."""

    book: str
    sheet: str
    region: Region
    merged: tuple[Region, ...]
    top_root: HeaderNode
    left_root: HeaderNode

    @property
    def n_rows(self) -> int: ...

    @property
    def n_cols(self) -> int: ...


@dataclass(frozen=True)
class TreeConfig:
    """Coordinate-tree limits (the reference's `tree_depth` and `node_degree`)."""

    degrees: tuple[int, ...] = (32, 32, 64, 256)  # max sibling count per level, top level first

    def __post_init__(self) -> None:
        if not self.degrees:
            raise ValueError("TreeConfig.degrees: need at least one level")
        if any(d < 1 for d in self.degrees):
            raise ValueError(f"TreeConfig.degrees: every degree must be >= 1, got {self.degrees}")

    @property
    def levels(self) -> int:
        return len(self.degrees)

    @property
    def offsets(self) -> tuple[int, ...]:
        """First node id of each level when levels share one id table (0, 32, 64, 128)."""
        out, total = [], 0
        for d in self.degrees:
            out.append(total)
            total += d
        return tuple(out)

    @property
    def null_id(self) -> int:
        """The shared "not applicable" node id (384 by default)."""
        return sum(self.degrees)


@dataclass(frozen=True)
class CoordinateGrid:
    """Top and left tree coordinates of every cell, each (n_rows, n_cols) rows of `Coord`."""

    top: tuple[tuple[Coord, ...], ...]
    left: tuple[tuple[Coord, ...], ...]

    def distance(
        self, a: tuple[int, int], b: tuple[int, int], method: Literal["add", "max"] = "add"
    ) -> int:
        """Tree distance between cells `a` and `b` given as (row, col)."""
        return combined_distance(
            self.top[a[0]][a[1]],
            self.left[a[0]][a[1]],
            self.top[b[0]][b[1]],
            self.left[b[0]][b[1]],
            method,
        )


def tree_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """Per level: both null 0, one null 1, equal 0, different 2; summed over levels."""
    total = 0
    for x, y in zip(a, b, strict=True):
        if x == y:
            continue
        total += 1 if NULL in (x, y) else 2
    return total


def combined_distance(
    top_a: Sequence[int],
    left_a: Sequence[int],
    top_b: Sequence[int],
    left_b: Sequence[int],
    method: Literal["add", "max"] = "add",
) -> int:
    """Top and left distances combined: the reference's `attn_method` "add" (default) or "max"."""
    top, left = tree_distance(top_a, top_b), tree_distance(left_a, left_b)
    if method == "add":
        return top + left
    if method == "max":
        return max(top, left)
    raise ValueError(f"combined_distance: method must be 'add' or 'max', got {method!r}")


def node_ids(coord: Sequence[int], cfg: TreeConfig = TreeConfig()) -> tuple[int, ...]:
    """Flatten a coordinate into one id per level over a shared table of `cfg.null_id + 1` rows.

    Level `l` slot `s` becomes `offsets[l] + s`; a null slot (or one past the level's degree)
    becomes `cfg.null_id`.
    """
    return tuple(
        off + s if 0 <= s < deg else cfg.null_id
        for s, off, deg in zip(coord, cfg.offsets, cfg.degrees, strict=True)
    )


def cell_coordinates(table: TreeTable, cfg: TreeConfig = TreeConfig()) -> CoordinateGrid:
    """Top and left coordinates of every cell of `table` (rules in the module docstring)."""
    merged_at = _merge_lookup(table)

    def own_region(node: HeaderNode) -> Region:
        if not (0 <= node.row < table.n_rows and 0 <= node.col < table.n_cols):
            raise ValueError(
                f"header node ({node.row}, {node.col}) lies outside the "
                f"{table.n_rows}x{table.n_cols} table ({table.sheet}!{table.region.a1} of {table.book})"
            )
        return merged_at.get((node.row, node.col), Region(node.row, node.col, node.row, node.col))

    top = _axis_grid(table.top_root, "top", table.n_rows, table.n_cols, own_region, cfg)
    left = _axis_grid(table.left_root, "left", table.n_rows, table.n_cols, own_region, cfg)
    return CoordinateGrid(top=top, left=left)


def _merge_lookup(table: TreeTable) -> dict[tuple[int, int], Region]:
    """Every cell covered by a merged region -> that region (table-relative)."""
    out: dict[tuple[int, int], Region] = {}
    for reg in table.merged:
        for r in range(reg.top, min(reg.bottom, table.n_rows - 1) + 1):
            for c in range(reg.left, min(reg.right, table.n_cols - 1) + 1):
                out[(r, c)] = reg
    return out


def _axis_grid(
    root: HeaderNode,
    axis: Literal["top", "left"],
    n_rows: int,
    n_cols: int,
    own_region: Callable[[HeaderNode], Region],
    cfg: TreeConfig,
) -> tuple[tuple[Coord, ...], ...]:
    """One tree's coordinate grid; a "line" is a column for the top tree, a row for the left."""
    if axis == "top":
        n_lines = n_cols
        span_of: Callable[[Region], tuple[int, int]] = lambda reg: (reg.left, reg.right)  # noqa: E731
    else:
        n_lines = n_rows
        span_of = lambda reg: (reg.top, reg.bottom)  # noqa: E731
    layout = _layout(root, n_lines, own_region, span_of, cfg)
    if layout is None:
        deg = cfg.degrees[-1]
        line_coords = [(NULL,) * (cfg.levels - 1) + (i % deg,) for i in range(n_lines)]
        node_writes: list[tuple[Region, Coord]] = []
    else:
        line_coords, node_writes = layout
    if axis == "top":
        grid = [list(line_coords) for _ in range(n_rows)]
    else:
        grid = [[line_coords[r]] * n_cols for r in range(n_rows)]
    for reg, coord in node_writes:
        for r in range(reg.top, min(reg.bottom, n_rows - 1) + 1):
            for c in range(reg.left, min(reg.right, n_cols - 1) + 1):
                grid[r][c] = coord
    return tuple(tuple(row) for row in grid)


def _layout(
    root: HeaderNode,
    n_lines: int,
    own_region: Callable[[HeaderNode], Region],
    span_of: Callable[[Region], tuple[int, int]],
    cfg: TreeConfig,
) -> tuple[list[Coord], list[tuple[Region, Coord]]] | None:
    """Per-line coordinates and per-node writes of one tree, or None to fall back."""
    depth = root.depth() if root.children else 1
    if depth > cfg.levels:
        return None
    walk = _Walk(n_lines, own_region, span_of, cfg, base=cfg.levels - depth)
    try:
        for i, child in enumerate(root.children):
            start = [NULL] * cfg.levels
            start[walk.base] = i
            walk.visit(child, start, 1)
    except _Overflow:
        return None
    free = sum(held is None for held in walk.owner)
    if len(root.children) + free > cfg.degrees[walk.base]:
        return None
    line_coords: list[Coord] = []
    virtual = len(root.children)
    for held in walk.owner:
        if held is None:
            coord = [NULL] * cfg.levels
            coord[walk.base] = virtual
            virtual += 1
            line_coords.append(tuple(coord))  # type: ignore[arg-type]
        else:
            line_coords.append(held[1])
    return line_coords, walk.node_writes


class _Walk:
    """One depth-first walk of a tree: node coordinates and which node governs each line."""

    def __init__(self, n_lines, own_region, span_of, cfg: TreeConfig, base: int) -> None:
        self.n_lines, self.own_region, self.span_of = n_lines, own_region, span_of
        self.cfg, self.base = cfg, base  # base: level of the root's children
        self.node_writes: list[tuple[Region, Coord]] = []
        self.owner: list[tuple[int, Coord] | None] = [None] * n_lines  # (tree depth, coord)

    def visit(self, node: HeaderNode, coord: list[int], k: int) -> tuple[int, int]:
        """Record `node` (tree depth k >= 1) and its subtree; return its governed line span.

        Children are visited before the parent claims its lines, so a parent only claims
        lines no descendant governs (`held[0] <= k` lets a deeper node keep its claim).
        """
        reg = self.own_region(node)
        lo, hi = self.span_of(reg)
        here: Coord = tuple(coord)  # type: ignore[assignment]
        self.node_writes.append((reg, here))
        if node.children and len(node.children) > self.cfg.degrees[self.base + k]:
            raise _Overflow
        for i, child in enumerate(node.children):
            child_coord = list(coord)
            child_coord[self.base + k] = i
            c_lo, c_hi = self.visit(child, child_coord, k + 1)
            lo, hi = min(lo, c_lo), max(hi, c_hi)
        for line in range(max(lo, 0), min(hi, self.n_lines - 1) + 1):
            held = self.owner[line]
            if held is None or held[0] <= k:
                self.owner[line] = (k, here)
        return lo, hi


class _Overflow(Exception):
    """A node has more children than its level allows (internal: triggers the fallback)."""
