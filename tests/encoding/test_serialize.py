"""Table -> Example: the golden 3x4 table in three formula modes, budgets, errors."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from fortap.encoding.example import NULL_POS
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.sheet.model import Cell, Region
from fortap.table.model import Table

GOLDEN = Path(__file__).parent / "golden" / "sales_table.json"
FIELDS = (
    "token_ids", "numbers", "in_cell_pos", "rows", "cols", "top_coords", "left_coords",
    "formats", "cell_ids", "cell_coords",
)  # fmt: skip
NAN = (11, 11, 11, 11)
NULL = (-1, -1, -1, -1)


def as_json(example) -> dict:
    return {name: json.loads(json.dumps(getattr(example, name))) for name in FIELDS} | {
        "meta": json.loads(json.dumps(example.meta))
    }


def write_golden(data: dict) -> None:
    lines = ["{"]
    for i, (mode, fields) in enumerate(data.items()):
        lines.append(f"  {json.dumps(mode)}: {{")
        items = list(fields.items())
        for j, (name, value) in enumerate(items):
            comma = "," if j < len(items) - 1 else ""
            lines.append(f"    {json.dumps(name)}: {json.dumps(value)}{comma}")
        lines.append("  }" + ("," if i < len(data) - 1 else ""))
    lines.append("}")
    GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_sales_table_matches_golden_in_every_formula_mode(table, tokenizer):
    got = {
        mode: as_json(
            serialize(
                table, tokenizer, SerializeConfig(formula_mode=mode), context="Sales by region"
            )
        )
        for mode in ("value", "tag", "tokens")
    }
    if os.environ.get("FORTAP_UPDATE_GOLDEN") == "1":
        write_golden(got)
    assert got == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_sales_table_literally(table, tokenizer):
    ex = serialize(table, tokenizer, context="Sales by region")
    words = [tokenizer.token_of(i) for i in ex.token_ids]
    assert words == [
        "[CLS]", "sales", "by", "region",
        "[SEP]", "region", "[SEP]", "sales", "2019", "[SEP]", "[EMP]", "[SEP]", "total",
        "[SEP]", "[EMP]", "[SEP]", "jan", "[SEP]", "feb", "[SEP]", "[EMP]",
        "[SEP]", "north", "[SEP]", "1200", "[SEP]", "[VAL]", "[SEP]", "[VAL]",
    ]  # fmt: skip
    assert ex.token_ids[:5] == [101, 4341, 2011, 2555, 102]
    assert ex.cell_ids == [
        0,
        0,
        0,
        0,
        1,
        1,
        2,
        2,
        2,
        3,
        3,
        4,
        4,
        5,
        5,
        6,
        6,
        7,
        7,
        8,
        8,
        9,
        9,
        10,
        10,
        11,
        11,
        12,
        12,
    ]
    assert ex.in_cell_pos[4:9] == [0, 1, 0, 1, 2]
    assert ex.cell_coords == [(r, c) for r in range(3) for c in range(4)]
    # [CLS] and context sit outside the table
    assert ex.rows[:4] == ex.cols[:4] == [NULL_POS] * 4
    assert ex.top_coords[:4] == ex.left_coords[:4] == [NULL] * 4
    assert ex.formats[:4] == [DEFAULT_FORMAT] * 4
    # "58.5" -> [VAL] (magnitude 2, precision 1, first 5, last 5); "2019" is in the vocabulary
    assert ex.numbers[26] == (2, 1, 5, 5)
    assert ex.numbers[8] == (4, 0, 2, 9)
    assert ex.numbers[7] == NAN
    # the two-level top header: group "Sales 2019" and its sub-headers "Jan", "Feb" (bottom-aligned)
    assert ex.top_coords[6] == (-1, -1, 0, -1)  # Sales 2019
    assert ex.top_coords[15] == (-1, -1, 0, 0)  # Jan
    assert ex.top_coords[17] == (-1, -1, 0, 1)  # Feb
    assert ex.top_coords[25] == (-1, -1, 0, 1)  # 58.5, under Feb
    assert ex.left_coords[21] == (-1, -1, -1, 0)  # North
    # format: "Region" is merged over 2 rows, bold, bottom border; the formula cell has a formula
    assert ex.formats[4] == (0.5, 0.25, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0)
    assert ex.formats[27][6:8] == (1.0, 1.0)


def test_tokens_mode_points_references_at_the_referenced_cells(table, tokenizer):
    ex = serialize(table, tokenizer, formula_inputs={(2, 3): "tokens"})
    start = ex.cell_ids.index(12)
    words = [tokenizer.token_of(i) for i in ex.token_ids[start:]]
    assert words == ["[SEP]", "[SUM]", "[:]", "[RANGE]", "[RANGE]"]
    assert ex.token_ids[start + 1 : start + 5] == [
        tokenizer.formula_token_id(w) for w in ("[SUM]", "[:]", "[RANGE]", "[RANGE]")
    ]
    assert all(110 <= i <= 150 for i in ex.token_ids[start + 1 :])
    # operators keep the formula cell (2, 3); C4 and D4 of the sheet are table cells (2, 1), (2, 2)
    assert list(zip(ex.rows[start:], ex.cols[start:], strict=True)) == [
        (2, 3),
        (2, 3),
        (2, 3),
        (2, 1),
        (2, 2),
    ]
    assert ex.numbers[start + 1] == (4, 1, 1, 5)  # the formula cell's value 1258.5
    assert ex.numbers[start + 3] == (4, 0, 1, 0)  # 1200
    assert ex.top_coords[start + 4] == (-1, -1, 0, 1)  # Feb's column
    assert ex.in_cell_pos[start:] == [0, 1, 2, 3, 4]
    assert ex.meta["input_modes"] == [[2, 3, "tokens"]]


def test_formula_tokens_do_not_count_against_the_cell_cap(table, tokenizer):
    long = "=" + "+".join(f"C4*{k}" for k in range(1, 6))  # 5 products: 19 prefix tokens
    t = with_cell(table, 2, 3, Cell(9.0, "number", formula=long))
    ex = serialize(
        t,
        tokenizer,
        SerializeConfig(max_cell_tokens=4),
        cells=[],
        formula_inputs={(2, 3): "tokens"},
    )
    assert len(ex) == 1 + 1 + 19
    assert ex.meta.get("formula_fallbacks") is None


def test_tokens_mode_falls_back_to_the_tag_and_says_why(table, tokenizer):
    too_long = with_cell(table, 2, 3, Cell(1.0, "number", formula="=" + "+".join(["C4"] * 20)))
    ex = serialize(too_long, tokenizer, SerializeConfig(formula_mode="tokens"))
    assert [tokenizer.token_of(i) for i in ex.token_ids[-2:]] == ["[SEP]", "[FORMULA]"]
    assert ex.meta["formula_fallbacks"] == [[2, 3, "too_long"]]
    assert ex.meta["input_modes"] == [[2, 3, "tag"]]
    broken = with_cell(table, 2, 3, Cell(1.0, "number", formula="=SUM(C4:"))
    ex = serialize(broken, tokenizer, SerializeConfig(formula_mode="tokens"))
    assert ex.meta["formula_fallbacks"] == [[2, 3, "unparsable"]]


def test_references_off_the_table_keep_the_formula_cells_position(table, tokenizer):
    t = with_cell(table, 2, 3, Cell(1.0, "number", formula="=A1+Other!C4+E4"))
    ex = serialize(t, tokenizer, cells=[], formula_inputs={(2, 3): "tokens"})
    words = [tokenizer.token_of(i) for i in ex.token_ids[1:]]
    assert words == ["[SEP]", "[+]", "[+]", "[RANGE]", "[RANGE]", "[RANGE]"]
    # A1 lies above the region, Other!C4 on another sheet, E4 is the formula cell itself
    assert set(zip(ex.rows[1:], ex.cols[1:], strict=True)) == {(2, 3)}


def test_tag_applies_to_any_cell_and_the_value_mode_to_a_formula_cell(table, tokenizer):
    ex = serialize(
        table, tokenizer, cells=[(2, 1)], formula_inputs={(2, 1): "tag", (2, 3): "value"}
    )
    assert [tokenizer.token_of(i) for i in ex.token_ids] == [
        "[CLS]",
        "[SEP]",
        "[FORMULA]",
        "[SEP]",
        "[VAL]",
    ]
    assert ex.cell_coords == [(2, 1), (2, 3)]


def test_long_cells_are_cut_to_max_cell_tokens(tokenizer):
    t = one_row_table([Cell("one two three four five six seven eight nine", "text")])
    ex = serialize(t, tokenizer)
    assert len(ex) == 1 + 8
    assert [tokenizer.token_of(i) for i in ex.token_ids[2:]] == [
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
    ]
    assert ex.meta["cut_cells"] == [[0, 0]]


def test_context_is_capped(table, tokenizer):
    ex = serialize(
        table,
        tokenizer,
        SerializeConfig(max_context_tokens=2),
        context="Sales by region 2019",
        cells=[],
    )
    assert [tokenizer.token_of(i) for i in ex.token_ids] == ["[CLS]", "sales", "by"]
    assert ex.cell_coords == []


def test_never_exceeds_max_seq_len_and_drops_whole_cells_from_the_end(table, tokenizer):
    cfg = SerializeConfig(max_seq_len=12)
    ex = serialize(table, tokenizer, cfg, keep=[(2, 0)])
    assert len(ex) <= 12
    assert ex.cell_coords == [(0, 0), (0, 1), (0, 2), (0, 3), (2, 0)]
    assert ex.meta["dropped_cells"] == [[1, 0], [1, 1], [1, 2], [1, 3], [2, 1], [2, 2], [2, 3]]
    assert len(ex) == 1 + 2 + 3 + 2 + 2 + 2


def test_required_cells_that_do_not_fit_are_an_error_naming_the_table(table, tokenizer):
    with pytest.raises(ValueError, match=r"Sheet1!B2:E4 of sales.xlsx"):
        serialize(
            table, tokenizer, SerializeConfig(max_seq_len=9), keep=[(0, 0), (0, 1), (0, 3), (2, 3)]
        )


def test_bad_requests_name_the_input(table, tokenizer):
    with pytest.raises(ValueError, match=r"\(3, 0\) lies outside the 3x4 table"):
        serialize(table, tokenizer, cells=[(3, 0)])
    with pytest.raises(ValueError, match="no formula"):
        serialize(table, tokenizer, formula_inputs={(2, 1): "tokens"})
    with pytest.raises(ValueError, match="must be one of"):
        serialize(table, tokenizer, formula_inputs={(2, 3): "formula"})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_cell_tokens", 1),
        ("max_seq_len", 5),
        ("max_context_tokens", -1),
        ("max_formula_tokens", 0),
        ("formula_mode", "x"),
    ],
)
def test_config_rejects_nonsense_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f"SerializeConfig.{field}"):
        SerializeConfig(**{field: value})


def test_rows_beyond_the_position_table_are_clipped_and_recorded(tokenizer):
    cells = tuple((Cell(float(r), "number"),) for r in range(300))
    t = Table("long.xlsx", "S", Region(0, 0, 299, 0), cells)
    ex = serialize(t, tokenizer, cells=[(0, 0), (299, 0)])
    assert ex.rows[1::2] == [0, NULL_POS - 1]
    assert ex.meta["positions_clipped"] is True


def test_serialisation_is_deterministic(table, tokenizer):
    a = serialize(table, tokenizer, context="x", formula_inputs={(2, 3): "tokens"})
    b = serialize(table, tokenizer, context="x", formula_inputs={(2, 3): "tokens"})
    assert a == b


def with_cell(table: Table, row: int, col: int, cell: Cell) -> Table:
    rows = [list(r) for r in table.cells]
    rows[row][col] = cell
    return replace(table, cells=tuple(tuple(r) for r in rows))


def one_row_table(cells: list[Cell]) -> Table:
    return Table("t.xlsx", "S", Region(0, 0, 0, len(cells) - 1), (tuple(cells),))


def test_meta_speaks_only_of_cells_that_made_it_in(tokenizer):
    long_text = Cell("one two three four five six seven eight nine", "text")
    t = one_row_table([Cell("a", "text")] * 30 + [long_text])
    ex = serialize(t, tokenizer, SerializeConfig(max_seq_len=40))
    assert ex.meta["dropped_cells"][-1] == [0, 30]
    assert ex.meta["cut_cells"] == []
