"""`evaluate formula-suggestion` scores what `Suggester` prints, beside the ranker's order."""

from __future__ import annotations

import json

import openpyxl

from fortap.sheet.read import read_workbook
from fortap.suggest.books import targets_of
from fortap.suggest.candidates import generate
from fortap.suggest.context import BookContext
from fortap.suggest.evaluate import SuggestEvalConfig, evaluate
from fortap.suggest.ranker import Ranker
from fortap.suggest.train import gold_text, hidden_for


def _write(path) -> None:
    """Items with Jan, Feb, Change (= Feb - Jan), Ratio (= Feb / Jan, Jan empty in row 4) and
    a total row."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws.append(["Item", "Jan", "Feb", "Change", "Ratio"])
    for r in range(2, 9):
        ws.append([f"i{r}", None if r == 4 else r, 2 * r, f"=C{r}-B{r}", f"=C{r}/B{r}"])
    ws.append(["Total", "=SUM(B2:B8)", "=SUM(C2:C8)"])
    wb.save(path)


def test_records_hold_the_printed_rank_beside_the_rankers(tmp_path):
    data = tmp_path / "books"
    data.mkdir()
    _write(data / "ratios.xlsx")
    cfg = SuggestEvalConfig(split="all", bootstrap_rounds=50)
    m = evaluate([data], tmp_path / "out", cfg)
    records = [json.loads(x) for x in (tmp_path / "out" / "records.jsonl").read_text().splitlines()]
    # the ranker-only rank is the ranker's order on the same candidates, as computed directly
    ctx = BookContext.from_workbook(read_workbook(data / "ratios.xlsx"))
    ranker = Ranker.load(None)
    by_place = {(r["setting"], r["row"], r["col"]): r for r in records}
    for target in targets_of(ctx):
        gold = gold_text(ctx, target)
        for setting in cfg.settings:
            hidden = hidden_for(ctx, target, setting)
            cands = generate(ctx, target, hidden, setting, None, ranker.common)
            texts = [c.formula.upper().replace(" ", "") for c, _ in ranker.rank(cands)]
            rank = texts.index(gold) if gold in texts else None
            assert by_place[(setting, target.row, target.col)]["rank"] == rank
    for r in records:
        assert r["printed_rank"] is None or r["printed_rank"] < 5
        if r["printed_rank"] is not None:  # the gold was previewed: its preview is kept
            assert r["gold_preview"] is not None
    # a ratio whose Jan is empty divides by zero for the gold itself: its own error, which
    # moves it after the candidates that give a value
    own = [r for r in records if r["gold_preview"] and r["gold_preview"]["own_error"]]
    assert own and all(r["gold_preview"]["error"] == "#DIV/0!" for r in own)
    assert all(r["printed_rank"] != 0 and r["rank"] == 0 for r in own)
    for setting in cfg.settings:
        d = m[setting]["detail"]
        assert set(d) >= {"exact_top1", "printed_exact_top1", "printed_exact_top5",
                          "gap_printed_vs_ranker", "latency_with_preview_ms"}  # fmt: skip
        hits = [r["printed_rank"] == 0 for r in records if r["setting"] == setting]
        assert d["printed_exact_top1"]["pooled"] == sum(hits) / len(hits)
    assert "printed exact top-1" in (tmp_path / "out" / "report.md").read_text()
