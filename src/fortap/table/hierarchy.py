"""Header hierarchies: the top tree over the header rows and the left tree over the header columns.

Top tree: every non-empty anchor cell in the header rows right of the left header is a node.
A node's column span is its merged region, widened over repeated copies of its label right
next to it, and (above the last header row) over the empty cells that follow it when the row
below has headers under them — a parent typed once and "centred across" its sub-headers. Its
parent is the nearest node in a row above whose span holds the node's first column; nodes with
no such node hang from the root. This matches HiTab's trees (the corner cells above the left
header are not nodes).

Left tree: every non-empty anchor in the left header columns below the header rows is a node,
ordered by row. Its level is (column, indent): a cell in a further-right column, or indented
deeper, is a child of the nearest earlier node with a smaller level. A *section row* (a label
with nothing to its right) adopts the following rows of its own level until the next section
row, the way statistical tables list "By industry" over unindented industries.

Both trees are cut to `max_tree_depth` levels: a node that would sit deeper is attached to the
deepest allowed ancestor, so coordinates never fall back because of depth.
"""

from __future__ import annotations

from fortap.table.headers import HeaderConfig
from fortap.table.layout import Layout, indent_level
from fortap.table.model import ROOT, HeaderNode

_Key = tuple[int, int]
DEFAULT_HEADERS = HeaderConfig()


def top_tree(
    layout: Layout, header_rows: int, header_cols: int, cfg: HeaderConfig = DEFAULT_HEADERS
) -> HeaderNode:
    """The top header tree (rules in the module docstring)."""
    spans: dict[_Key, tuple[int, int]] = {}
    order: list[_Key] = []
    for r in range(header_rows):
        cols = layout.anchors(r, header_cols)
        skip: set[int] = set()
        for i, c in enumerate(cols):
            if c in skip:
                continue
            lo, hi = layout.region(r, c).left, layout.region(r, c).right
            if r < header_rows - 1:  # only a parent widens: it needs headers below it
                if cfg.join_repeated:
                    hi = _repeated_run(layout, r, cols[i:], hi, skip)
                hi = _centred_over(layout, r, hi)
            spans[(r, c)] = (lo, hi)
            order.append((r, c))
    parent: dict[_Key, _Key | None] = {}
    depth: dict[_Key | None, int] = {None: 0}
    for key in order:
        r, c = key
        up = next(
            (
                other
                for other in reversed(order)
                if other[0] < r and spans[other][0] <= c <= spans[other][1]
            ),
            None,
        )
        while depth[up] >= cfg.max_tree_depth:
            up = parent[up]  # type: ignore[index]
        parent[key], depth[key] = up, depth[up] + 1
    return _assemble(order, parent, sort_key=lambda k: (k[1], k[0]))


def _repeated_run(layout: Layout, row: int, cols: list[int], hi: int, skip: set[int]) -> int:
    """Widen a span over the next anchors in the row that repeat its label verbatim."""
    text = layout.cell(row, cols[0]).text.strip()
    if layout.region(row, cols[0]).n_cols > 1:
        return hi  # a merged header already says how far it reaches
    for c in cols[1:]:
        if c != hi + 1 or layout.cell(row, c).text.strip() != text or not text:
            break
        if layout.region(row, c).n_cols > 1:
            break
        if layout.cell(row + 1, c).is_empty or layout.is_covered(row + 1, c):
            break  # no sub-header of its own: a repeated leaf, not a repeated parent
        skip.add(c)
        hi = layout.region(row, c).right
    return hi


def _centred_over(layout: Layout, row: int, hi: int) -> int:
    """Widen a span over following empty, unmerged cells that have a header below them."""
    c = hi + 1
    while (
        c < layout.n_cols
        and layout.cell(row, c).is_empty
        and not layout.is_covered(row, c)
        and not layout.cell(row + 1, c).is_empty
    ):
        hi, c = c, c + 1
    return hi


def left_tree(
    layout: Layout, header_rows: int, header_cols: int, cfg: HeaderConfig = DEFAULT_HEADERS
) -> HeaderNode:
    """The left header tree (rules in the module docstring)."""
    order: list[_Key] = []
    level: dict[_Key, tuple[int, float]] = {}
    section: dict[int, tuple[int, float]] = {}  # column -> level of the open section row
    for r in range(header_rows, layout.n_rows):
        for c in layout.anchors(r)[:]:
            if c >= header_cols:
                break
            base = (c, float(indent_level(layout.cell(r, c), cfg.spaces_per_indent)))
            open_ = section.get(c)
            lvl = (c, base[1] + 0.5) if open_ is not None and open_[1] == base[1] else base
            if _is_section(layout, r, c):
                lvl = base
                section[c] = base
            elif open_ is not None and base[1] < open_[1]:
                section.pop(c)
            order.append((r, c))
            level[(r, c)] = lvl
    parent: dict[_Key, _Key | None] = {}
    depth: dict[_Key | None, int] = {None: 0}
    stack: list[_Key] = []
    for key in order:
        while stack and level[stack[-1]] >= level[key]:
            stack.pop()
        up = stack[-1] if stack else None
        while depth[up] >= cfg.max_tree_depth:
            up = parent[up]  # type: ignore[index]
        parent[key], depth[key] = up, depth[up] + 1
        stack.append(key)
    return _assemble(order, parent, sort_key=lambda k: k)


def _is_section(layout: Layout, row: int, col: int) -> bool:
    """A left label with every cell to its right empty (or covered by its own merge)."""
    right = layout.region(row, col).right
    return all(layout.cell(row, c).is_empty for c in range(right + 1, layout.n_cols))


def _assemble(order: list[_Key], parent: dict[_Key, _Key | None], sort_key) -> HeaderNode:
    """Turn parent links into a frozen `HeaderNode` tree under the root."""
    kids: dict[_Key | None, list[_Key]] = {}
    for key in order:
        kids.setdefault(parent[key], []).append(key)

    def build(key: _Key) -> HeaderNode:
        children = tuple(build(k) for k in sorted(kids.get(key, ()), key=sort_key))
        return HeaderNode(key[0], key[1], children)

    top = tuple(build(k) for k in sorted(kids.get(None, ()), key=sort_key))
    return HeaderNode(ROOT.row, ROOT.col, top)
