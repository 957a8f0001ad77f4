"""Tree coordinates and tree distance: a literal table first, then fallbacks, random trees, real data."""

from __future__ import annotations

import json
import random

import pytest

from fortap.sheet.model import Cell, Region
from fortap.table.model import HeaderNode, Table
from fortap.table.tree import (
    CoordinateGrid,
    TreeConfig,
    cell_coordinates,
    combined_distance,
    node_ids,
    tree_distance,
)


def make_table(texts, merged=(), top=(), left=(), top_rows=0, left_cols=0) -> Table:
    cells = tuple(
        tuple(
            Cell()
            if v == ""
            else Cell(float(v), "number")
            if isinstance(v, int)
            else Cell(v, "text")
            for v in row
        )
        for row in texts
    )
    return Table(
        book="t.xlsx",
        sheet="S",
        region=Region(0, 0, len(texts) - 1, len(texts[0]) - 1),
        cells=cells,
        merged=tuple(merged),
        top_header_rows=top_rows,
        left_header_cols=left_cols,
        top_root=HeaderNode(-1, -1, tuple(top)),
        left_root=HeaderNode(-1, -1, tuple(left)),
    )


def n(row: int, col: int, *children: HeaderNode) -> HeaderNode:
    return HeaderNode(row, col, children)


# Region | Sales (merged B1:C1) | Total (merged D1:D2)
#        | 2019 | 2020 |
# North  |    1 |    2 |  3
#   Oslo |    4 |    5 |  9      (indented under North)
#   Bergen    7 |    8 | 15
SMALL = make_table(
    [
        ["Region", "Sales", "", "Total"],
        ["", 2019, 2020, ""],
        ["North", 1, 2, 3],
        ["  Oslo", 4, 5, 9],
        ["  Bergen", 7, 8, 15],
    ],
    merged=[Region(0, 0, 1, 0), Region(0, 1, 0, 2), Region(0, 3, 1, 3)],
    top=[n(0, 1, n(1, 1), n(1, 2)), n(0, 3)],
    left=[n(2, 0, n(3, 0), n(4, 0))],
    top_rows=2,
    left_cols=1,
)


def test_small_table_exact_coordinates():
    grid = cell_coordinates(SMALL)
    sales, y19, y20, total = (-1, -1, 0, -1), (-1, -1, 0, 0), (-1, -1, 0, 1), (-1, -1, 1, -1)
    col_a = (-1, -1, 2, -1)  # column A: no top node governs it -> virtual root child 2
    assert grid.top == (
        (col_a, sales, sales, total),
        (col_a, y19, y20, total),
        (col_a, y19, y20, total),
        (col_a, y19, y20, total),
        (col_a, y19, y20, total),
    )
    north, oslo, bergen = (-1, -1, 0, -1), (-1, -1, 0, 0), (-1, -1, 0, 1)
    row1, row2 = (-1, -1, 1, -1), (-1, -1, 2, -1)  # header rows -> virtual left root children
    assert grid.left == (
        (row1,) * 4,
        (row2,) * 4,
        (north,) * 4,
        (oslo,) * 4,
        (bergen,) * 4,
    )
    assert SMALL.coordinates == grid  # cached property uses the same function


def test_small_table_distances():
    grid = SMALL.coordinates
    # 2019 header vs its data cell in Oslo's row: same top coordinate, left row2 vs oslo.
    assert grid.distance((1, 1), (3, 1)) == 0 + tree_distance((-1, -1, 2, -1), (-1, -1, 0, 0))
    assert grid.distance((1, 1), (3, 1)) == 3
    # two data cells of one row under the same group: top 2019 vs 2020 differ at the last level.
    assert grid.distance((3, 1), (3, 2)) == 2
    assert grid.distance((3, 1), (3, 2), method="max") == 2
    # Oslo row, 2019 column vs Bergen row, Total column.
    # top (-1,-1,0,0) vs (-1,-1,1,-1): 2 + 1; left Oslo vs Bergen: 2.
    assert grid.distance((3, 1), (4, 3)) == 3 + 2
    assert grid.distance((3, 1), (4, 3), method="max") == 3


def test_tree_distance_per_level():
    assert tree_distance((-1, -1, -1, -1), (-1, -1, -1, -1)) == 0
    assert tree_distance((-1, -1, -1, 3), (-1, -1, -1, -1)) == 1
    assert tree_distance((-1, -1, 0, 3), (-1, -1, 0, 3)) == 0
    assert tree_distance((-1, -1, 0, 3), (-1, -1, 1, 3)) == 2
    assert tree_distance((-1, -1, 0, 0), (-1, -1, 1, 0)) == 2  # sibling ids, not a path length
    assert tree_distance((0, 1, 2, 3), (-1, -1, -1, -1)) == 4
    assert tree_distance((0, 1, 2, 3), (1, 2, 3, 4)) == 8
    assert combined_distance((0, 1, 2, 3), (0,) * 4, (1, 2, 3, 4), (0,) * 4) == 8
    with pytest.raises(ValueError, match="method"):
        combined_distance((0,) * 4, (0,) * 4, (0,) * 4, (0,) * 4, "min")  # type: ignore[arg-type]


def test_node_ids_flatten_levels():
    assert node_ids((-1, -1, 0, 5)) == (384, 384, 64, 133)
    assert node_ids((31, 31, 63, 255)) == (31, 63, 127, 383)
    assert node_ids((32, -1, -1, -1)) == (384, 384, 384, 384)  # beyond the degree -> null


def test_no_tree_falls_back_to_index_at_last_level():
    t = make_table([["a", "b", "c"], [1, 2, 3]])
    grid = cell_coordinates(t)
    assert grid.top == (((-1, -1, -1, 0), (-1, -1, -1, 1), (-1, -1, -1, 2)),) * 2
    assert grid.left == (((-1, -1, -1, 0),) * 3, ((-1, -1, -1, 1),) * 3)


def test_flat_header_row_leaves_and_virtual_corner_column():
    t = make_table([["", "x", "y"], ["r", 1, 2]], top=[n(0, 1), n(0, 2)], left=[n(1, 0)])
    grid = cell_coordinates(t)
    assert grid.top[1] == ((-1, -1, -1, 2), (-1, -1, -1, 0), (-1, -1, -1, 1))
    assert grid.left[0] == ((-1, -1, -1, 1),) * 3
    assert grid.left[1] == ((-1, -1, -1, 0),) * 3


def test_parent_governs_columns_no_child_covers():
    # "G" is merged over B1:D1 but has children only in B and C: column D takes G's coordinate.
    t = make_table(
        [["", "G", "", ""], ["", "p", "q", ""], ["r", 1, 2, 3]],
        merged=[Region(0, 1, 0, 3)],
        top=[n(0, 1, n(1, 1), n(1, 2))],
    )
    grid = cell_coordinates(t)
    assert grid.top[2] == ((-1, -1, 1, -1), (-1, -1, 0, 0), (-1, -1, 0, 1), (-1, -1, 0, -1))


def test_too_wide_node_falls_back():
    cfg = TreeConfig(degrees=(8, 8, 8, 2))  # the three leaves land on the last level
    t = make_table(
        [["g", "", ""], ["a", "b", "c"], [1, 2, 3]], top=[n(0, 0, n(1, 0), n(1, 1), n(1, 2))]
    )
    # fallback: column index modulo the last level's degree
    assert cell_coordinates(t, cfg).top[2] == ((-1, -1, -1, 0), (-1, -1, -1, 1), (-1, -1, -1, 0))
    wide = TreeConfig(degrees=(8, 8, 8, 3))
    assert cell_coordinates(t, wide).top[2] == ((-1, -1, 0, 0), (-1, -1, 0, 1), (-1, -1, 0, 2))


def test_too_many_virtual_children_fall_back():
    cfg = TreeConfig(degrees=(4, 4, 4, 2))
    t = make_table([["", "", "x"], [1, 2, 3]], top=[n(0, 2)])  # 1 real + 2 virtual > 2
    assert cell_coordinates(t, cfg).top[0] == ((-1, -1, -1, 0), (-1, -1, -1, 1), (-1, -1, -1, 0))


def test_too_deep_tree_falls_back():
    chain = n(4, 0)
    for row in (3, 2, 1, 0):
        chain = n(row, 0, chain)
    t = make_table([["h"], ["h"], ["h"], ["h"], ["h"], [1]], top=[chain])
    assert cell_coordinates(t).top == (((-1, -1, -1, 0),),) * 6


def test_node_outside_table_names_the_table():
    t = make_table([["a", "b"], [1, 2]], top=[n(0, 5)])
    with pytest.raises(ValueError, match=r"outside the 2x2 table \(S!A1:B2 of t.xlsx\)"):
        cell_coordinates(t)


def test_config_rejects_nonsense():
    with pytest.raises(ValueError, match="TreeConfig.degrees"):
        TreeConfig(degrees=())
    with pytest.raises(ValueError, match="TreeConfig.degrees"):
        TreeConfig(degrees=(4, 0))


# --- random trees against a brute-force reference -------------------------------------------


def random_tree(rng: random.Random, depth: int) -> list:
    """Nested lists: a node is the list of its children; leaves are []."""
    if depth == 0:
        return []
    return [
        random_tree(rng, depth - 1) if rng.random() < 0.8 else [] for _ in range(rng.randint(1, 3))
    ]


def layout_top_header(spec: list, depth: int):
    """Lay `spec` out as a top header starting at column 1: node at tree depth k sits on row k-1,
    over its leaves' columns (merged when wider than one). Returns the table and, per cell, the
    brute-force set of (level, sibling index) pairs of its ancestors (bottom-aligned)."""
    levels = 4
    base = levels - depth
    n_rows = depth + 2
    nodes, merged, paths = [], [], {}  # paths: (row, col) -> frozenset
    col = [1]

    def place(children: list, k: int, path: tuple) -> list[HeaderNode]:
        out = []
        for i, grand in enumerate(children):
            here = path + ((base + k - 1, i),)
            start = col[0]
            kids = place(grand, k + 1, here)
            if not grand:
                col[0] += 1
                for r in range(k, n_rows):  # a leaf governs every cell below it
                    paths[(r, start)] = frozenset(here)
            end = col[0] - 1
            if end > start:
                merged.append(Region(k - 1, start, k - 1, end))
            for c in range(start, end + 1):
                paths[(k - 1, c)] = frozenset(here)
            out.append(HeaderNode(k - 1, start, tuple(kids)))
        return out

    nodes = place(spec, 1, ())
    n_cols = col[0]
    for r in range(n_rows):  # column A is governed by nothing: virtual root child
        paths[(r, 0)] = frozenset({(base, len(spec))})
    texts = [["h"] * n_cols for _ in range(n_rows)]
    table = make_table(texts, merged=merged, top=nodes, top_rows=depth)
    return table, paths


def test_random_trees_match_brute_force():
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        depth = rng.randint(1, 4)
        spec = random_tree(rng, depth)
        table, paths = layout_top_header(spec, depth)
        real_depth = table.top_root.depth()
        if real_depth != depth:  # random pruning made it shallower; relayout at its depth
            table, paths = layout_top_header(spec, real_depth)
        grid = cell_coordinates(table)
        cells = [(r, c) for r in range(table.n_rows) for c in range(table.n_cols)]
        for r, c in cells:
            expected = [-1] * 4
            for level, index in paths[(r, c)]:
                expected[level] = index
            assert grid.top[r][c] == tuple(expected), (spec, r, c)
        for a in rng.sample(cells, min(12, len(cells))):
            for b in rng.sample(cells, min(12, len(cells))):
                got = tree_distance(grid.top[a[0]][a[1]], grid.top[b[0]][b[1]])
                assert got == len(paths[a] ^ paths[b]) + 0, (spec, a, b)
                ids_a = set(node_ids(grid.top[a[0]][a[1]])) - {384}
                ids_b = set(node_ids(grid.top[b[0]][b[1]])) - {384}
                assert got == len(ids_a ^ ids_b)
                checked += 1
    assert checked > 1000


# --- the reference's shipped spreadsheet sample ---------------------------------------------


def test_tuta_spreadsheet_sample(data_dir):
    raw = json.loads(
        (data_dir / "tuta_samples/pretrain/spreadsheet/spreadsheet-sample.json").read_text()
    )

    def tree(d) -> HeaderNode:
        return HeaderNode(d["RI"], d["CI"], tuple(tree(c) for c in d["Cd"]))

    texts = [[c["V"] for c in row] for row in raw["Cells"]]
    merged = [
        Region(m["FirstRow"], m["FirstColumn"], m["LastRow"], m["LastColumn"])
        for m in raw["MergedRegions"]
    ]
    t = make_table(
        texts,
        merged=merged,
        top=tree(raw["TopTreeRoot"]).children,
        left=tree(raw["LeftTreeRoot"]).children,
    )
    grid: CoordinateGrid = t.coordinates
    # The values the reference reader produces (verified in the reference study).
    assert grid.top[0][2] == (-1, -1, 0, -1)  # "Zero data per quarter"
    assert grid.top[1][2] == (-1, -1, 0, 0)  # "1st quarter"
    assert grid.top[1][3] == (-1, -1, 0, 1)  # "2nd quarter"
    assert grid.top[10][3] == (-1, -1, 0, 1)  # data below "2nd quarter"
    assert grid.top[10][6] == (-1, -1, 1, -1)  # data below "Population" (a depth-1 leaf)
    assert grid.left[2][0] == (-1, -1, 0, -1)  # "Cities"
    assert grid.left[20][0] == (-1, -1, 0, -1)  # inside the merged "Cities" cell
    assert grid.left[3][4] == (-1, -1, 0, 1)  # "Blades" row
    # Every cell has a non-null coordinate in both trees.
    for plane in (grid.top, grid.left):
        assert all(any(s != -1 for s in coord) for row in plane for coord in row)
