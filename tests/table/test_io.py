"""Table <-> JSON: exact round trips, compact output, JSON lines, and errors that name the line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fortap.errors import FortapError
from fortap.sheet.model import Cell, CellStyle, Region
from fortap.table.io import read_jsonl, table_from_json, table_to_json, write_jsonl
from fortap.table.model import HeaderNode, Table

SMALL = Table(
    book="b.xlsx",
    sheet="S1",
    region=Region(2, 0, 4, 2),
    cells=(
        (Cell(), Cell("2019", "text", style=CellStyle(bold=True)), Cell(2020.0, "number")),
        (Cell("north", "text"), Cell(1.5, "number"), Cell(3.0, "number", formula="=B4*2")),
        (Cell("  oslo", "text", style=CellStyle(indent=1)), Cell(True, "bool"), Cell()),
    ),
    merged=(Region(0, 0, 0, 0),),
    top_header_rows=1,
    left_header_cols=1,
    top_root=HeaderNode(-1, -1, (HeaderNode(0, 1), HeaderNode(0, 2))),
    left_root=HeaderNode(-1, -1, (HeaderNode(1, 0, (HeaderNode(2, 0),)),)),
    context=("Sales", "Source: ledger"),
)


def test_small_table_json_is_compact_and_exact():
    d = table_to_json(SMALL)
    assert d == {
        "v": 1,
        "book": "b.xlsx",
        "sheet": "S1",
        "region": [2, 0, 4, 2],
        "cells": [
            [0, 1, {"value": "2019", "kind": "text", "style": {"bold": True}}],
            [0, 2, {"value": 2020.0, "kind": "number"}],
            [1, 0, {"value": "north", "kind": "text"}],
            [1, 1, {"value": 1.5, "kind": "number"}],
            [1, 2, {"value": 3.0, "kind": "number", "formula": "=B4*2"}],
            [2, 0, {"value": "  oslo", "kind": "text", "style": {"indent": 1}}],
            [2, 1, {"value": True, "kind": "bool"}],
        ],
        "merged": [[0, 0, 0, 0]],
        "top_header_rows": 1,
        "left_header_cols": 1,
        "top_tree": [[0, 1, []], [0, 2, []]],
        "left_tree": [[1, 0, [[2, 0, []]]]],
        "context": ["Sales", "Source: ledger"],
    }
    assert table_from_json(json.loads(json.dumps(d))) == SMALL


def test_defaults_are_left_out():
    bare = Table("b", "s", Region(0, 0, 0, 0), ((Cell(),),))
    assert table_to_json(bare) == {
        "v": 1,
        "book": "b",
        "sheet": "s",
        "region": [0, 0, 0, 0],
        "cells": [],
    }
    assert table_from_json(table_to_json(bare)) == bare


def test_jsonl_round_trip(tmp_path):
    path = tmp_path / "tables.jsonl"
    assert write_jsonl(path, [SMALL, SMALL]) == 2
    assert list(read_jsonl(path)) == [SMALL, SMALL]


def test_bad_line_names_file_and_line(tmp_path):
    path = tmp_path / "tables.jsonl"
    good = json.dumps(table_to_json(SMALL))
    path.write_text(good + "\n\n" + '{"book": "b"}\n')
    tables = read_jsonl(path)
    assert next(tables) == SMALL
    with pytest.raises(FortapError, match=r"malformed .* \(line 3 of tables.jsonl\)"):
        next(tables)


def test_wrong_version_is_rejected():
    with pytest.raises(ValueError, match="format version 2"):
        table_from_json({**table_to_json(SMALL), "v": 2})


# --- random small tables ----------------------------------------------------------------------

# no subnormals: a torch test in the same worker may have set flush-to-zero
values = st.one_of(
    st.none(),
    st.text(max_size=6),
    st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False),
    st.booleans(),
)
styles = st.builds(
    CellStyle,
    number_format=st.sampled_from(["General", "0.00", "0%"]),
    bold=st.booleans(),
    fill_color=st.sampled_from([None, "FFFF0000"]),
    border_bottom=st.booleans(),
    indent=st.integers(0, 3),
)
cells = st.builds(
    Cell,
    value=values,
    kind=st.sampled_from(["empty", "text", "number", "bool", "date", "error"]),
    formula=st.sampled_from([None, "=A1", "=SUM(B2:B5)"]),
    array_formula=st.booleans(),
    style=st.one_of(st.just(CellStyle()), styles),
)


@st.composite
def tables(draw) -> Table:
    n_rows, n_cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    top, left = draw(st.integers(0, 50)), draw(st.integers(0, 50))
    grid = tuple(tuple(draw(cells) for _ in range(n_cols)) for _ in range(n_rows))

    def nodes(depth: int) -> tuple[HeaderNode, ...]:
        if depth == 0:
            return ()
        k = draw(st.integers(0, 2))
        return tuple(
            HeaderNode(
                draw(st.integers(0, n_rows - 1)), draw(st.integers(0, n_cols - 1)), nodes(depth - 1)
            )
            for _ in range(k)
        )

    return Table(
        book=draw(st.text(min_size=1, max_size=8)),
        sheet=draw(st.text(min_size=1, max_size=8)),
        region=Region(top, left, top + n_rows - 1, left + n_cols - 1),
        cells=grid,
        merged=tuple(draw(st.lists(st.just(Region(0, 0, n_rows - 1, 0)), max_size=1))),
        top_header_rows=draw(st.integers(0, n_rows)),
        left_header_cols=draw(st.integers(0, n_cols)),
        top_root=HeaderNode(-1, -1, nodes(3)),
        left_root=HeaderNode(-1, -1, nodes(2)),
        context=tuple(draw(st.lists(st.text(max_size=10), max_size=2))),
    )


@settings(max_examples=150, deadline=None)
@given(tables())
def test_random_tables_round_trip_exactly(t):
    text = json.dumps(table_to_json(t), ensure_ascii=False)
    assert table_from_json(json.loads(text)) == t
