import json
from dataclasses import replace

from fortap.suggest.candidates import generate
from fortap.suggest.context import BookContext, Target
from fortap.suggest.features import rule_order
from fortap.suggest.ranker import Ranker, RankerConfig, train_ranker
from fortap.suggest.train import examples
from tests.suggest.sheets_ranker import book, sales, sheet


def _ctx(cells):
    return BookContext.from_workbook(book(sheet("S", cells)))


def test_features_never_read_the_target_cell():
    cells = sales()
    ctx = _ctx(cells)
    target = Target("S", 2, 3)  # D3 holds =C3-B3
    base = generate(ctx, target)
    for content in ("=B3*1000", 123456, "some text", None):
        changed = (
            {**cells, "D3": content}
            if content is not None
            else {k: v for k, v in cells.items() if k != "D3"}
        )
        other = generate(_ctx(changed), target)
        assert [(c.formula, dict(c.features)) for c in other] == [
            (c.formula, dict(c.features)) for c in base
        ]


def test_rule_order_is_fill_then_autosum():
    ctx = _ctx(sales())
    cands = generate(ctx, Target("S", 4, 3))  # D5: the block above, the total row to the left
    assert [c.formula for c in rule_order(cands)][:2] == ["=C5-B5", "=SUM(D2:D4)"]


def test_a_tiny_ranker_learns_to_prefer_the_block_and_round_trips_as_text(tmp_path):
    groups, labels = [], []
    for n in range(3, 9):
        cells = {"A1": "Item", "B1": "x", "C1": "y", "D1": "d"}
        for r in range(2, n + 2):
            cells |= {f"B{r}": r, f"C{r}": 2 * r, f"D{r}": f"=C{r}-B{r}"}
        ctx = _ctx(cells)
        targets = [Target("S", r - 1, 3) for r in range(2, n + 2)]
        g, y, missed, unused = examples(ctx, targets, "sheet")
        assert missed == 0 and unused == 0
        groups += g
        labels += y
    cfg = RankerConfig(rounds=20, leaves=4, min_data_in_leaf=1)
    ranker = train_ranker(groups, labels, cfg, {"command": "test"})
    ranker.save(tmp_path)
    assert (tmp_path / "model.txt").read_text().startswith("tree")
    meta = json.loads((tmp_path / "features.json").read_text())
    assert meta["info"] == {"command": "test"} and "copy_dist" in meta["features"]
    loaded = Ranker.load(tmp_path)
    ctx = _ctx(sales())
    best, _ = loaded.rank(generate(ctx, Target("S", 2, 3)))[0]
    assert best.formula == "=C3-B3"
    shuffled = [replace(c) for c in reversed(generate(ctx, Target("S", 2, 3)))]
    assert loaded.rank(shuffled)[0][0].formula == "=C3-B3"


def test_the_shipped_default_ranker_loads():
    ranker = Ranker.load(None)
    assert ranker.feature_names and "rule_pos" in ranker.feature_names
    assert "src_induced" in ranker.feature_names and "ind_support" in ranker.feature_names
