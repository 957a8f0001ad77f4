"""The relational source on literal two-table workbooks written with openpyxl
(`fortap.suggest.candidates.relational`)."""

import openpyxl

from fortap.sheet.read import read_workbook
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.relational import FEATURES, candidates
from fortap.suggest.context import BookContext, Target

ORDERS = [  # Order, Product, Qty, Price, Region
    ("Order", "Product", "Qty", "Price", "Region"),
    (1, "apple", 3, 1.5, "North"),
    (2, "pear", 5, 2.0, "South"),
    (3, "apple", 2, 1.5, "South"),
    (4, "plum", 7, 3.25, "North"),
]
PRICES = [("Product", "Price", "Origin"), ("apple", 1.5, "NZ"), ("pear", 2.0, "AU"),
          ("plum", 3.25, "NZ")]  # fmt: skip


def _context(tmp_path, sheets: dict[str, list[tuple]], extra: dict[str, dict] | None = None):
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for row in rows:
            ws.append(list(row))
        for at, value in (extra or {}).get(name, {}).items():
            ws[at] = value
    path = tmp_path / "book.xlsx"
    wb.save(path)
    return BookContext.from_workbook(read_workbook(path))


def _texts(ctx, target: Target, hidden=frozenset()) -> list[str]:
    return [
        c.formula
        for c in candidates(ctx, target, hidden | {(target.sheet, target.row, target.col)})
    ]


def test_vlookup_and_index_match_of_the_rows_key_into_the_price_list_on_another_sheet(tmp_path):
    orders = [r[:3] + ("Price",) if i == 0 else r[:3] + (None,) for i, r in enumerate(ORDERS)]
    ctx = _context(tmp_path, {"Orders": orders, "Prices": PRICES})
    target = Target("Orders", 1, 3)  # D2, under "Price", in the apple row
    cands = candidates(ctx, target, frozenset({("Orders", 1, 3)}))
    assert [c.formula for c in cands[:3]] == [
        "=VLOOKUP(B2,Prices!$A$2:$C$4,2,FALSE)",
        "=VLOOKUP(B2,Prices!$A$2:$C$4,2,0)",  # exact match as many write it
        "=INDEX(Prices!$B$2:$B$4,MATCH(B2,Prices!$A$2:$A$4,0))",
    ]
    assert [c.features["rel_zero"] for c in cands[:2]] == [0.0, 1.0]
    first = cands[0].features
    assert first["rel_header_match"] == 1.0  # Prices' "Price" column is the target's label
    assert first["rel_same_sheet"] == 0.0 and first["rel_unique"] == 1.0
    assert first["rel_overlap"] == 1.0  # every product of the orders is in the price list
    assert first["rel_key_text"] == 1.0 and first["rel_key_dist"] == 2.0
    assert set(first) <= set(FEATURES) and all(c.source == "relational" for c in cands)
    assert cands[0].reason == "VLOOKUP of this row's key in 'Prices'!A2:C4, column B"
    # the other column of the price list, further down the list; no XLOOKUP (no newer function)
    texts = [c.formula for c in cands]
    assert "=VLOOKUP(B2,Prices!$A$2:$C$4,3,FALSE)" in texts
    assert not any("XLOOKUP" in t or "IFERROR" in t for t in texts)


def test_sumifs_and_countifs_by_the_rows_key_and_the_columns_label(tmp_path):
    grid = [("Product", "North", "South"), ("apple",), ("pear",), ("plum",)]
    ctx = _context(tmp_path, {"Summary": grid, "Orders": ORDERS})
    texts = _texts(ctx, Target("Summary", 1, 1))  # B2: apples sold in the North
    assert "=SUMIFS(Orders!$C$2:$C$5,Orders!$B$2:$B$5,$A2,Orders!$E$2:$E$5,B$1)" in texts
    assert "=COUNTIFS(Orders!$B$2:$B$5,$A2,Orders!$E$2:$E$5,B$1)" in texts
    # one criterion too, the key column fixed as well since the block fills across
    assert "=SUMIF(Orders!$B$2:$B$5,$A2,Orders!$C$2:$C$5)" in texts
    assert "=COUNTIF(Orders!$B$2:$B$5,$A2)" in texts
    assert "=AVERAGEIF(Orders!$B$2:$B$5,$A2,Orders!$C$2:$C$5)" in texts
    assert len(texts) == len(set(texts)) <= 40


def test_a_lookup_table_on_the_same_sheet_is_named_without_its_sheet(tmp_path):
    rows = [("Code", "Rate", None, "Code", "Amount", "Tax"), ("A", 0.1, None, "B", 100),
            ("B", 0.2, None, "A", 50), ("C", 0.3, None, "C", 70)]  # fmt: skip
    ctx = _context(tmp_path, {"S": rows})
    texts = _texts(ctx, Target("S", 1, 5))  # F2: the tax of line B
    assert texts[:3] == [
        "=VLOOKUP(D2,$A$2:$B$4,2,FALSE)",
        "=VLOOKUP(D2,$A$2:$B$4,2,0)",
        "=INDEX($B$2:$B$4,MATCH(D2,$A$2:$A$4,0))",
    ]


def test_iferror_where_the_sheet_wraps_and_xlookup_where_the_workbook_is_new(tmp_path):
    orders = [r[:3] + ("Price",) if i == 0 else r[:3] + (None,) for i, r in enumerate(ORDERS)]
    extra = {
        "Orders": {"H1": '=IFERROR(1/0,"")'},
        "Prices": {"E1": "=_xlfn.XLOOKUP(1,A2:A4,B2:B4)"},
    }
    ctx = _context(tmp_path, {"Orders": orders, "Prices": PRICES}, extra)
    texts = _texts(ctx, Target("Orders", 1, 3))
    assert texts[:8] == [
        "=VLOOKUP(B2,Prices!$A$2:$C$4,2,FALSE)",
        '=IFERROR(VLOOKUP(B2,Prices!$A$2:$C$4,2,FALSE),"")',
        "=VLOOKUP(B2,Prices!$A$2:$C$4,2,0)",
        '=IFERROR(VLOOKUP(B2,Prices!$A$2:$C$4,2,0),"")',
        "=INDEX(Prices!$B$2:$B$4,MATCH(B2,Prices!$A$2:$A$4,0))",
        '=IFERROR(INDEX(Prices!$B$2:$B$4,MATCH(B2,Prices!$A$2:$A$4,0)),"")',
        "=XLOOKUP(B2,Prices!$A$2:$A$4,Prices!$B$2:$B$4)",
        '=IFERROR(XLOOKUP(B2,Prices!$A$2:$A$4,Prices!$B$2:$B$4),"")',
    ]
    # a hidden IFERROR is no evidence: only visible formulas say how the sheet writes
    hidden = frozenset({("Orders", 0, 7), ("Prices", 0, 4)})
    assert not any(
        "IFERROR" in t or "XLOOKUP" in t for t in _texts(ctx, Target("Orders", 1, 3), hidden)
    )


def test_a_neighbour_lookup_in_the_row_fixes_the_key_column(tmp_path):
    orders = [r[:3] + ("Price", "Origin") if i == 0 else r[:3] for i, r in enumerate(ORDERS)]
    extra = {"Orders": {f"E{i}": f"=VLOOKUP($B{i},Prices!$A$2:$C$4,3,FALSE)" for i in range(2, 6)}}
    ctx = _context(tmp_path, {"Orders": orders, "Prices": PRICES}, extra)
    texts = _texts(ctx, Target("Orders", 1, 3))
    assert texts[0] == "=VLOOKUP($B2,Prices!$A$2:$C$4,2,FALSE)"


def test_nothing_without_a_shared_key_and_nothing_from_hidden_cells(tmp_path):
    orders = [r[:3] + ("Price",) if i == 0 else r[:3] + (None,) for i, r in enumerate(ORDERS)]
    other = _context(tmp_path, {"Orders": orders, "Rates": [("Code", "Rate"), ("zz", 1.5)]})
    assert _texts(other, Target("Orders", 1, 3)) == []  # no key of the row is elsewhere
    ctx = _context(tmp_path, {"Orders": orders, "Prices": PRICES})
    key_hidden = frozenset({("Orders", 1, 1)})  # B2, the apple of the target's row
    assert not any("B2" in t for t in _texts(ctx, Target("Orders", 1, 3), key_hidden))
    table_hidden = frozenset({("Prices", 2, 0)})  # a cell of the price list's key column
    assert not any("Prices" in t for t in _texts(ctx, Target("Orders", 1, 3), table_hidden))


def test_a_copy_of_the_targets_table_comes_after_the_table_it_reads(tmp_path):
    # "Copy" repeats the order lines with their price computed: a sibling, not a price list
    orders = [r[:3] + ("Price",) if i == 0 else r[:3] + (None,) for i, r in enumerate(ORDERS)]
    copy = [r[:3] + ("Price",) if i == 0 else r[:3] for i, r in enumerate(ORDERS)]
    extra = {"Copy": {f"D{i}": f"=C{i}*2" for i in range(2, 6)}}
    ctx = _context(tmp_path, {"Orders": orders, "Copy": copy, "Prices": PRICES}, extra)
    cands = candidates(ctx, Target("Orders", 1, 3), frozenset({("Orders", 1, 3)}))
    assert cands[0].formula == "=VLOOKUP(B2,Prices!$A$2:$C$4,2,FALSE)"
    assert cands[0].features["rel_twin"] == 0.0
    twins = [c for c in cands if "Copy!" in c.formula]
    assert twins and all(c.features["rel_twin"] == 1.0 for c in twins)


def test_numbers_match_only_when_most_of_the_key_column_does(tmp_path):
    # the quantities 3, 5, 2, 7 of column C share only 2 and 3 with the Ids list: not a key
    orders = [r[:3] for r in ORDERS]
    few = _context(tmp_path, {"Orders": orders, "Ids": [("Id", "Name"), (2, "b"), (3, "c")]})
    assert _texts(few, Target("Orders", 1, 3)) == []
    ids = [("Id", "Name"), (2, "b"), (3, "c"), (5, "e"), (7, "g")]
    most = _context(tmp_path, {"Orders": orders, "Ids": ids})  # 4 of the 5 keys, header included
    assert _texts(most, Target("Orders", 1, 3))[0] == "=VLOOKUP(C2,Ids!$A$2:$B$5,2,FALSE)"


def test_generate_flags_the_relational_candidates(tmp_path):
    orders = [r[:3] + ("Price",) if i == 0 else r[:3] + (None,) for i, r in enumerate(ORDERS)]
    ctx = _context(tmp_path, {"Orders": orders, "Prices": PRICES})
    cands = generate(ctx, Target("Orders", 1, 3), setting="new-formula")
    found = [c for c in cands if c.formula == "=VLOOKUP(B2,Prices!$A$2:$C$4,2,FALSE)"]
    assert len(found) == 1 and found[0].features["src_relational"] == 1.0
    paper = generate(ctx, Target("Orders", 1, 3), setting="paper")
    assert not any(c.source == "relational" for c in paper)  # it reads the visible formulas
