import json

import openpyxl

from fortap.suggest.books import side_of, targets_of, workbook_files
from fortap.suggest.context import BookContext
from fortap.suggest.evaluate import SuggestEvalConfig, evaluate
from fortap.suggest.ranker import RankerConfig, train_ranker
from fortap.suggest.train import examples
from tests.suggest.sheets_ranker import book, sales, sheet


def _write(path, n_rows: int) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws.append(["Item", "Jan", "Feb", "Change"])
    for r in range(2, n_rows + 2):
        ws.append([f"i{r}", r, 2 * r, f"=C{r}-B{r}"])
    ws.append(["Total", f"=SUM(B2:B{n_rows + 1})", f"=SUM(C2:C{n_rows + 1})"])
    wb.save(path)


def test_evaluate_writes_metrics_per_setting_and_a_report(tmp_path):
    ctx = BookContext.from_workbook(book(sheet("S", sales())))
    g, y, _ = examples(ctx, targets_of(ctx), "sheet")
    g2, y2, _ = examples(ctx, targets_of(ctx), "new-formula")
    cfg = RankerConfig(rounds=10, leaves=4, min_data_in_leaf=1)
    train_ranker(g + g2, y + y2, cfg, {"command": "tiny"}).save(tmp_path / "ranker")
    data = tmp_path / "books"
    data.mkdir()
    _write(data / "alpha_book.xlsx", 5)
    _write(data / "beta_book.xlsx", 8)
    out = tmp_path / "out"
    m = evaluate([data], out, SuggestEvalConfig(split="all", ranker=tmp_path / "ranker"))
    # 5 + 8 change cells (first five per column: 5 + 5) and two SUM cells per book
    assert m["sheet"]["detail"]["targets"] == 14 and m["sheet"]["detail"]["books"] == 2
    assert set(m) >= {"sheet", "new-formula", "paper", "load"}
    for setting in ("sheet", "new-formula", "paper"):
        assert 0.0 <= m[setting]["exact_top1"] <= m[setting]["exact_top5"] <= 1.0
    # in the sheet setting every target continues a visible block: the rules get them all
    assert m["sheet"]["detail"]["rule_exact_top1"]["pooled"] == 1.0
    assert m["sheet"]["detail"]["recall"]["pooled"] == 1.0
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["sheet"]["exact_top1"] == m["sheet"]["exact_top1"]
    assert "## All targets" in (out / "report.md").read_text()
    assert (out / "top1.png").exists() and (out / "records.jsonl").exists()


def test_one_copy_per_workbook_and_linked_models_share_a_side(tmp_path):
    for name in ("a/Budget 2003.xlsx", "b/Budget%202003.xls", "c/other.xlsx"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    files = workbook_files([tmp_path])
    assert [f.name for f in files] == ["Budget 2003.xlsx", "other.xlsx"]
    sides = {side_of(f"x/{n}.xlsx") for n in ("model", "model2", "rangearrayformulaesa")}
    assert len(sides) == 1
