import json

import openpyxl
import pytest

from fortap.errors import FortapError
from fortap.suggest.books import side_of, targets_of, workbook_files
from fortap.suggest.context import BookContext
from fortap.suggest.evaluate import SuggestEvalConfig, evaluate
from fortap.suggest.ranker import RankerConfig, train_ranker
from fortap.suggest.train import examples
from tests.suggest.sheets_ranker import book, sales, sheet


def _write(path, n_rows: int, summed: int | None = None) -> None:
    """Items in rows 2.., Change = Feb - Jan, and a total row over the first `summed` items
    (all by default)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws.append(["Item", "Jan", "Feb", "Change"])
    for r in range(2, n_rows + 2):
        ws.append([f"i{r}", r, 2 * r, f"=C{r}-B{r}"])
    last = (summed or n_rows) + 1
    ws.append(["Total", f"=SUM(B2:B{last})", f"=SUM(C2:C{last})"])
    wb.save(path)


def test_evaluate_writes_metrics_per_setting_and_a_report(tmp_path):
    ctx = BookContext.from_workbook(book(sheet("S", sales())))
    g, y, _, _ = examples(ctx, targets_of(ctx), "sheet")
    g2, y2, _, _ = examples(ctx, targets_of(ctx), "new-formula")
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
    for setting in ("sheet", "paper"):  # a right formula has the right sketch
        d = m[setting]["detail"]
        assert (
            d["text_nodollar_top1"]["pooled"]
            <= d["sketch_top1"]["pooled"]
            <= d["sketch_top5"]["pooled"]
        )
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["sheet"]["exact_top1"] == m["sheet"]["exact_top1"]
    assert "## All targets" in (out / "report.md").read_text()
    assert "sketch top-1" in (out / "report.md").read_text()
    assert (out / "top1.png").exists() and (out / "records.jsonl").exists()


def test_one_copy_per_workbook_and_linked_models_share_a_side(tmp_path):
    for name in ("a/Budget 2003.xlsx", "b/Budget%202003.xls", "c/other.xlsx"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    files = workbook_files([tmp_path])
    assert [f.name for f in files] == ["Budget 2003.xlsx", "other.xlsx"]
    sides = {side_of(f"x/{n}.xlsx") for n in ("model", "model2", "rangearrayformulaesa")}
    assert len(sides) == 1


def test_train_ranker_saves_the_common_table_with_the_ranker(tmp_path):
    from fortap.suggest.ranker import Ranker
    from fortap.suggest.train import TrainConfig, train

    names = (f"book_{i}.xlsx" for i in range(200))
    chosen = [n for n in names if side_of(tmp_path / n) == "train"][:4]
    for i, name in enumerate(chosen):
        _write(tmp_path / name, 4 + i, summed=3)  # no candidate sums just the first three
    tiny = RankerConfig(rounds=5, leaves=4, min_data_in_leaf=1)
    cfg = TrainConfig(per_book=10, ranker=tiny, common=True, sketch_label=("paper",))
    info = train([tmp_path], tmp_path / "ranker", cfg)
    # targets: the first five change cells per column and the two totals: 6 + 7 + 7 + 7
    assert info["books"] == 4 and info["counts"]["paper"]["targets"] == 27
    # each book sees the other three: =RC[-1]-RC[-2] (C - B) is still written by 3 of them
    ranker = Ranker.load(tmp_path / "ranker")
    assert ranker.common is not None and ranker.common.formulas["=RC[-1]-RC[-2]"] == 4
    assert "src_common" in ranker.feature_names and "cm_log_books" in ranker.feature_names
    # the sketch half right: the totals, whose exact formula no candidate holds, teach it too
    paper = info["counts"]["paper"]
    assert paper["queries"] == paper["with_gold"] + 4 * 2
    plain = train([tmp_path], tmp_path / "plain", TrainConfig(per_book=10, ranker=tiny))
    assert Ranker.load(tmp_path / "plain").common is None  # off by default: no common.json
    assert plain["counts"]["paper"]["queries"] == plain["counts"]["paper"]["with_gold"]
    # the paper setting has its own cap
    capped = train(
        [tmp_path], tmp_path / "capped", TrainConfig(per_book=3, paper_per_book=5, ranker=tiny)
    )
    assert capped["counts"]["sheet"]["targets"] == 4 * 3
    assert capped["counts"]["paper"]["targets"] == 4 * 5


def test_evaluate_names_what_it_cannot_read(tmp_path):
    # a missing path, a folder without spreadsheets and a side with no workbook are each
    # named (`books.workbooks_on`, shared with train-ranker), never a crash on empty metrics
    def error(paths, split="test") -> str:
        with pytest.raises(FortapError) as err:
            evaluate(paths, tmp_path / "out", SuggestEvalConfig(split=split))
        return str(err.value)

    head = "evaluate formula-suggestion: "
    assert error([tmp_path / "nope"]) == f"{head}no such file or folder: {tmp_path / 'nope'}"
    assert error([tmp_path]) == f"{head}no spreadsheet file under {tmp_path}"
    _write(tmp_path / "book6.xlsx", 3)  # on the dev side of the split (by its key)
    assert side_of(tmp_path / "book6.xlsx") == "dev"
    assert error([tmp_path]) == (
        f"{head}1 workbook under {tmp_path}, none on the test side of the split (--split)"
    )
