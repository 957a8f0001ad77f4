"""The paper's protocol in `evaluate formula-suggestion`: formula keys, the kept and window10
subsets, and the split by sheet."""

from __future__ import annotations

import json

import openpyxl
import pytest

from fortap.suggest.books import sheet_side
from fortap.suggest.context import BookContext, Target
from fortap.suggest.evaluate import SuggestEvalConfig, evaluate, targets_on_side
from fortap.suggest.protocol import KeyMatcher, gold_facts
from tests.suggest.sheets_ranker import book, sheet

LONG = "=" + "+".join(["B2", "C2"] * 8)  # 16 references, 15 operators: 31 tokens


def _cells() -> dict[str, object]:
    """Items in rows 2..15 (Jan, Feb, Change = Feb - Jan dragged down), a total row 16 whose
    sums reach 14 rows up, a cross-sheet product in D16, a 31-token formula in E2, and a lone
    formula in H3, three empty columns right of the table."""
    cells: dict[str, object] = {"A1": "Item", "B1": "Jan", "C1": "Feb", "D1": "Change"}
    for r in range(2, 16):
        cells |= {f"A{r}": f"i{r}", f"B{r}": r, f"C{r}": 2 * r, f"D{r}": f"=C{r}-B{r}"}
    cells |= {"A16": "Total", "B16": "=SUM(B2:B15)", "C16": "=SUM(C2:C15)", "D16": "=Other!B2*2"}
    return cells | {"E2": LONG, "H3": "=D3*2"}


# target -> (tokens, in_table, window10, kept) as the module doc defines them
FACTS = {
    "D2": (3, True, True, True),
    "D6": (3, True, True, True),
    "B16": (4, True, False, True),  # B2 lies 14 rows up
    "D16": (3, False, False, False),  # another sheet: never in the table, not kept
    "E2": (31, True, True, True),  # inside, but over 30 tokens
    "H3": (3, False, True, True),  # in no table region
}
TARGETS = ["D2", "D3", "D4", "D5", "D6", "E2", "H3", "B16", "C16", "D16"]  # row-major order


def _target(a1: str) -> Target:
    col = ord(a1[0]) - ord("A")
    return Target("S", int(a1[1:]) - 1, col)


def _context() -> BookContext:
    return BookContext.from_workbook(
        book(sheet("S", _cells()), sheet("Other", {"A1": "x", "B2": 5}))
    )


@pytest.mark.parametrize("a1", sorted(FACTS))
def test_gold_facts(a1):
    ctx = _context()
    t = _target(a1)
    formula = ctx.formula_at(t.sheet, t.row, t.col)
    tokens, in_table, window10, kept = FACTS[a1]
    assert gold_facts(ctx, t, formula) == {
        "tokens": tokens,
        "in_table": in_table,
        "window10": window10,
    }
    assert formula.kept is kept


def test_key_rank_matches_the_papers_key_not_the_text():
    ctx = _context()
    t = _target("D3")
    keys = KeyMatcher(t, ctx.formula_at("S", 2, 3))  # =C3-B3
    # another sketch; another constant's slot; `$` differs only; the gold itself
    assert keys.rank(["=SUM(B3:C3)", "=C3-B3*1", "=$C$3-$B$3", "=C3-B3"]) == 2
    assert keys.rank(["=S!C3-B3"]) == 0  # a qualifier naming the host sheet is no sheet
    assert keys.rank(["=Other!C3-B3", "=C4-B4", "=SUM(", "=B3-C3"]) is None
    doubled = KeyMatcher(Target("S", 2, 7), ctx.formula_at("S", 2, 7))  # H3: =D3*2
    assert doubled.rank(["=D3*3"]) == 0  # constants are compared by type, as the paper does
    assert doubled.rank(['=D3*"2"']) is None


def _write(path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for a1, value in _cells().items():
        ws[a1] = value
    other = wb.create_sheet("Other")
    other["A1"], other["B2"] = "x", 5
    wb.save(path)


def test_records_and_the_paper_protocol_block(tmp_path):
    data = tmp_path / "books"
    data.mkdir()
    _write(data / "protocol.xlsx")
    cfg = SuggestEvalConfig(split="all", settings=("sheet", "paper"), bootstrap_rounds=20)
    m = evaluate([data], tmp_path / "out", cfg)
    lines = (tmp_path / "out" / "records.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    sheet_recs = {f"{chr(65 + r['col'])}{r['row'] + 1}": r for r in records
                  if r["setting"] == "sheet"}  # fmt: skip
    assert sorted(sheet_recs) == sorted(TARGETS)
    for a1, (tokens, in_table, window10, kept) in FACTS.items():
        r = sheet_recs[a1]
        assert (r["tokens"], r["in_table"], r["window10"], r["kept"]) == (
            tokens, in_table, window10, kept,
        )  # fmt: skip
    # with every other formula visible, the nearest copy fills each dragged block first
    for a1 in ("D2", "D3", "D4", "D5", "D6", "B16", "C16"):
        assert sheet_recs[a1]["key_rule_rank"] == 0, a1
    for r in records:  # a text equal without `$` has the gold's key; recall is any rank at all
        if r["nodollar_rank"] is not None:
            assert r["key_rank"] is not None and r["key_rank"] <= r["nodollar_rank"]
        assert r["key_recall"] is (r["key_rank"] is not None)
    for setting in ("sheet", "paper"):
        block = m[setting]["paper_protocol"]
        # kept: D2..D6, B16, C16 (E2 too long, H3 in no table, D16 cross-sheet); window10: D2..D6
        assert block["kept"]["n"] == 7 and block["window10"]["n"] == 5
        for part in ("kept", "window10"):
            for name in ("top1", "top5", "rule_top1", "recall"):
                assert {"pooled", "per_workbook"} <= set(block[part][name])
            assert block[part]["top1"]["pooled"] <= block[part]["top5"]["pooled"]
            assert block[part]["top5"]["pooled"] <= block[part]["recall"]["pooled"]
    assert m["sheet"]["paper_protocol"]["kept"]["rule_top1"]["pooled"] == 1.0
    assert "text_nodollar_top1" in m["sheet"]["detail"] and "paper_top1" not in m["sheet"]["detail"]
    assert m["config"]["split_by"] == "workbook"
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## The paper's protocol" in report and "### window10" in report


def test_split_by_sheet_asks_only_that_sides_sheets(tmp_path):
    names = [f"T{i}" for i in range(60)]
    side = {n: sheet_side(tmp_path / "b.xlsx", n) for n in names}
    assert side == {n: sheet_side(tmp_path / "b.xlsx", n) for n in names}  # deterministic
    assert {"train", "dev", "test"} <= set(side.values())
    test_name = next(n for n in names if side[n] == "test")
    train_name = next(n for n in names if side[n] == "train")
    ctx = BookContext.from_workbook(book(sheet(test_name, _cells()), sheet(train_name, _cells())))
    by_sheet = SuggestEvalConfig(split="test", split_by="sheet")
    asked = targets_on_side(ctx, tmp_path / "b.xlsx", by_sheet)
    assert {t.sheet for t in asked} == {test_name} and len(asked) == len(TARGETS)
    capped = SuggestEvalConfig(split="test", split_by="sheet", per_book=3)
    assert len(targets_on_side(ctx, tmp_path / "b.xlsx", capped)) == 3
    every = SuggestEvalConfig(split="all", split_by="sheet")
    assert len(targets_on_side(ctx, tmp_path / "b.xlsx", every)) == 2 * len(TARGETS)
    with pytest.raises(ValueError, match="split_by"):
        SuggestEvalConfig(split_by="cell")


def test_cli_takes_split_by_per_book_and_settings(tmp_path):
    from typer.testing import CliRunner

    from fortap.cli import app

    data = tmp_path / "books"
    data.mkdir()
    _write(data / "protocol.xlsx")
    out = tmp_path / "out"
    args = ["evaluate", "formula-suggestion", str(data), "-o", str(out), "--split", "all",
            "--split-by", "sheet", "--per-book", "2", "--settings", "paper"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    m = json.loads((out / "metrics.json").read_text())
    assert {k: m["config"][k] for k in ("split_by", "per_book", "settings")} == {
        "split_by": "sheet",
        "per_book": 2,
        "settings": ["paper"],
    }
    assert list(m)[:1] == ["paper"] and m["paper"]["detail"]["targets"] == 2
    assert "Split by sheet: every workbook is read" in (out / "report.md").read_text()
