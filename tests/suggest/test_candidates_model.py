"""The model candidate source: a tiny formula-prediction model fine-tuned for a few seconds on
the sales book, its beam turned into formulas at the target's sheet coordinates, placed after
the shipped ranker's candidates, and wired into `Suggester`, `fortap suggest` and
`fortap evaluate formula-suggestion`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.printer import to_text
from fortap.formula.references import ref_cells
from fortap.formula.tokens import FORMULA_VOCAB_INDEX
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.anchor import refs_of
from fortap.suggest.candidates.model import UNKNOWN_FORMULA, ModelSource, table_at
from fortap.suggest.context import Target
from fortap.suggest.engine import Suggester
from fortap.suggest.ranker import Ranker
from fortap.suggest.train import hidden_for
from fortap.tasks.formula_prediction.decoding import Candidate as Beam
from fortap.tasks.formula_prediction.evaluate import guess_of
from fortap.tasks.formula_prediction.examples import FP_KEY
from fortap.tasks.formula_prediction.predictor import prediction_of

from ..sheet.sheet_builders import with_cached
from .engine_books import sales_book
from .tiny_model import tiny_model

TARGETS = ("B6", "C6", "D6", "D3", "E4", "F2", "D7")  # total row, filled cells, beside the table


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The sales book with the cached values Excel would have saved for D2:D5 (=B+C)."""
    path = sales_book(tmp_path_factory.mktemp("model") / "sales.xlsx")
    with_cached(path, {"D2": ("250", None), "D3": ("175", None), "D4": ("310", None),
                       "D5": ("60", None)})  # fmt: skip
    return path


@pytest.fixture(scope="module")
def folder(book, tmp_path_factory):
    return tiny_model(book, tmp_path_factory.mktemp("fp"))


@pytest.fixture(scope="module")
def sug(book, folder):
    return Suggester.open(book, model=folder)


def target(cell: str) -> Target:
    from fortap.suggest.cells import parse_cell

    arg = parse_cell(cell, "sales.xlsx")
    return Target("Sales", arg.row, arg.col)


def model_candidates(sug, cell: str):
    t = target(cell)
    return sug.model.candidates(sug.context, t, frozenset({(t.sheet, t.row, t.col)}))


def test_beam_candidates_parse_and_point_inside_the_sheet(sug):
    sheet = sug.workbook.sheets[0]
    found = 0
    for cell in TARGETS:
        t = target(cell)
        cands = model_candidates(sug, cell)
        ranks = [int(c.features["model_rank"]) for c in cands]
        assert ranks == sorted(set(ranks)) and all(1 <= r <= 5 for r in ranks)
        last_row, last_col = max(sheet.n_rows - 1, t.row), max(sheet.n_cols - 1, t.col)
        for c, rank in zip(cands, ranks, strict=True):
            assert (c.source, c.reason) == ("model", f"model (beam rank {rank})")
            parsed = parse_formula(c.formula, "Sales", (t.row, t.col))  # raises if it does not
            assert to_text(parsed.ast) == c.formula  # printed as the other sources print
            cells = [rc for ref in refs_of(parsed.ast) for rc in ref_cells(ref)]
            assert cells, c.formula  # every kept beam entry refers to cells
            for r, col in cells:
                assert 0 <= r <= last_row and 0 <= col <= last_col, c.formula
                assert (r, col) != (t.row, t.col)  # never the target itself
            assert "<" not in c.formula and "UNKOP" not in c.formula
        found += len(cands)
    assert found >= len(TARGETS)  # the model proposes something usable for most cells


def test_hidden_cells_are_empty_in_the_models_table(sug):
    t = target("D3")
    hidden = hidden_for(sug.context, t, "new-formula")  # D2:D5, the dragged block
    assert len(hidden) == 4
    table = table_at(sug.context, t, hidden)
    assert table.region.a1 == "A1:E6"
    assert [table.cell(r, 3).is_empty for r in (1, 3, 4)] == [True] * 3
    shown = table.cell(2, 3)  # the target: a formula cell with no value and no formula text
    assert (shown.value, shown.kind, shown.formula) == (None, "number", UNKNOWN_FORMULA)
    assert table.cell(1, 4).formula == "=C2/B2-1"  # other formula cells keep their values
    example, index = sug.model.example(sug.context, t, hidden)
    assert example.targets[FP_KEY]["origin"] == [0, 0]
    assert tuple(example.cell_coords[index]) == (2, 3)
    # a cell just right of the table joins it; one far away has no table
    assert table_at(sug.context, target("F2"), frozenset()).region.a1 == "A1:F6"
    assert table_at(sug.context, target("H20"), frozenset()) is None
    assert model_candidates(sug, "H20") == []


def test_the_input_is_the_fine_tuning_example_of_the_cell(sug):
    from fortap.table import detect_tables
    from fortap.tasks.formula_prediction.examples import prediction_example

    (table,) = detect_tables(sug.workbook.sheets[0])
    for cell in ("D2", "D3", "D5"):  # number-valued formula cells, as most targets are
        t = target(cell)
        rc = (t.row - table.region.top, t.col - table.region.left)
        gold = parse_formula(table.cell(*rc).formula, "Sales", (t.row, t.col))
        predictor = sug.model.predictor
        tuned = prediction_example(table, rc, gold, predictor.tokenizer, predictor.examples)
        mine, index = sug.model.example(sug.context, t, frozenset({(t.sheet, t.row, t.col)}))
        for name, value in vars(tuned).items():
            if name not in ("targets", "meta"):
                assert getattr(mine, name) == value, (cell, name)
        assert index == tuned.targets["formula_prediction"]["cell"] - 1


def test_placeholders_are_dropped_and_areas_read_top_left_first(sug):
    t = target("B6")
    hidden = frozenset({("Sales", 5, 1)})
    example, _ = sug.model.example(sug.context, t, hidden)
    at = {tuple(rc): k for k, rc in enumerate(example.cell_coords)}

    def candidate(entry, rank):
        info = {"score": entry.score, "range_score": entry.range_score}
        found = prediction_of(guess_of(example, entry), info, rank, t.sheet, (t.row, t.col))
        return None if found is None else sug.model.candidate(found)

    def beam(tokens, cells, score=-1.0):
        ids = tuple(FORMULA_VOCAB_INDEX[x] for x in ("[START]", *tokens, "[END]"))
        return Beam(ids, tuple(at[c] for c in cells), score, 0.0)

    area = beam(("[SUM]", "[:]", "[RANGE]", "[RANGE]"), [(4, 1), (1, 1)])  # B5 then B2
    got = candidate(area, 1)
    assert (got.formula, got.reason) == ("=SUM(B2:B5)", "model (beam rank 1)")
    assert set(got.features) == {"model_rank", "model_logp", "model_range_logp"}
    constant = beam(("[-]", "[/]", "[RANGE]", "[RANGE]", "[C-NUM]"), [(2, 1), (1, 1)])
    unknown = beam(("[UNKOP]", "[RANGE]"), [(2, 1)])
    no_reading = beam(("[SUM]",), [])
    circular = beam(("[SUM]", "[:]", "[RANGE]", "[RANGE]"), [(5, 0), (5, 2)])  # A6:C6 over B6
    for dropped in (constant, unknown, no_reading, circular):
        assert candidate(dropped, 2) is None


def test_the_shipped_ranker_ranks_as_without_the_model(sug, book):
    ranker = Ranker.load(None)
    assert not ranker.knows("model") and ranker.knows("copy")
    plain = Suggester.open(book)
    merged_seen = 0
    for cell in TARGETS:
        t = target(cell)
        without = [c.formula for c, _ in ranker.rank(generate(plain.context, t))]
        ranked = ranker.rank(generate(sug.context, t, model=sug.model))
        scores = [s for _, s in ranked]
        assert scores == sorted(scores, reverse=True)
        others = [c for c, _ in ranked if c.source != "model"]
        assert [c.formula for c in others] == without  # same candidates, same order
        tail = [c for c, _ in ranked[len(others) :]]
        assert all(c.source == "model" for c in tail)  # the model's own ones come last...
        ranks = [c.features["model_rank"] for c in tail]
        assert ranks == sorted(ranks)  # ...in beam order
        for c in others:
            if "model_rank" in c.features:  # proposed by the model too
                merged_seen += 1
                rank = int(c.features["model_rank"])
                assert c.reason.endswith(f"; also model (beam rank {rank})")
    assert merged_seen >= 1


def test_suggest_shows_model_candidates_with_previews(sug):
    found = sug.suggest("Sales", "D6", k=40)
    model = [s for s in found if s.source == "model"]
    assert model, [s.formula for s in found]
    assert all(s.reason.startswith("model (beam rank ") for s in model)
    assert all(s.error is not None or s.value is not None for s in model)  # each previewed
    assert max(s.score for s in model) < min(s.score for s in found if s.source != "model")


def test_missing_or_invalid_model_folder(book, folder, tmp_path):
    with pytest.raises(FortapError, match=r"^--model .*none: no such folder$"):
        Suggester.open(book, model=tmp_path / "none")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "model.json").write_text("{}")
    with pytest.raises(
        FortapError,
        match=r"not a formula-prediction model folder \(missing "
        r"head.safetensors, encoder/config.json; `fortap finetune",
    ):
        Suggester.open(book, model=tmp_path / "junk")
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("model.json", "head.safetensors"):
        (broken / name).write_bytes((folder / name).read_bytes())
    (broken / "encoder").mkdir()
    config = "encoder/config.json"
    (broken / config).write_bytes((folder / config).read_bytes())
    (broken / "encoder" / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(FortapError, match=r"cannot load the model: .*model.safetensors"):
        Suggester.open(book, model=broken)
    # the fine-tuning run's output folder is accepted for its model/ folder
    assert ModelSource.load(folder.parent).folder == folder.resolve()


@pytest.fixture(scope="module")
def sheet_folder(book, tmp_path_factory):
    return tiny_model(book, tmp_path_factory.mktemp("fp-sheet"), sheet=True)


def test_a_sheet_setting_model_copies_the_shown_formulas(book, sheet_folder):
    sug = Suggester.open(book, model=sheet_folder)
    predictor = sug.model.predictor
    assert predictor.sheet_setting and predictor.model.decoder.copy_head is not None
    t = target("D5")  # D2:D4 are =B+C and shown as formulas; D5's own is hidden
    example, index = sug.model.example(sug.context, t, frozenset({(t.sheet, t.row, t.col)}))
    copies = example.targets[FP_KEY]["copies"]
    assert {c["source"] for c in copies} >= {"D4", "D3"}
    assert all(c["ok"] is False for c in copies)  # no gold is read
    assert next(c["text"] for c in copies if c["source"] == "D4") == "=B5+C5"
    cands = model_candidates(sug, "D5")
    assert cands and all(c.source == "model" for c in cands)
    ranks = [int(c.features["model_rank"]) for c in cands]
    assert ranks == sorted(set(ranks)) and all(1 <= r <= 5 for r in ranks)
    for c in cands:
        assert to_text(parse_formula(c.formula, "Sales", (t.row, t.col)).ast) == c.formula
    copied = [c for c in cands if c.reason.startswith("model (copy of ")]
    assert any(c.formula == "=B5+C5" for c in copied)
    logps = [c.features["model_logp"] for c in cands]
    assert logps == sorted(logps, reverse=True)  # one ranking by probability
    top = sug.suggest("Sales", "D5", k=1)[0]  # the fill source's, which the model backs
    assert top.formula == "=B5+C5" and "; also model (copy of D" in top.reason


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def test_cli_suggest_with_a_model(book, folder, tmp_path):
    result = run("suggest", book, "Sales!D6", "--model", folder, "--json", "--top", "40")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)["suggestions"]
    assert any(s["source"] == "model" for s in shown)
    assert all(s["reason"].startswith("model (beam rank ") for s in shown if s["source"] == "model")
    bad = run("suggest", book, "D6", "--model", tmp_path / "none")
    assert bad.exit_code == 1 and "Traceback" not in bad.output
    assert bad.output.strip() == f"error: --model {tmp_path / 'none'}: no such folder"


def test_cli_evaluate_reports_the_model_source(book, folder, tmp_path):
    out = tmp_path / "ev"
    result = run(
        "evaluate", "formula-suggestion", book, "--model", folder, "--split", "all", "-o", out
    )
    assert result.exit_code == 0, result.output
    assert "model, paper: gold among its candidates" in result.output
    metrics = json.loads((out / "metrics.json").read_text())
    paper = metrics["paper"]["detail"]
    # D3:D5 are `B+C` sums the model learnt; the templates alone propose them too
    assert paper["recall_by_source"]["model"] > 0
    assert 0 <= paper["model_beam_top1"]["pooled"] <= paper["model_beam_top5"]["pooled"] <= 1
    assert set(paper["top_by_source"]["model"]) == {"top1", "top5"}
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert any(r["model_rank"] is not None for r in records)
    assert "model's own beam top-1" in (out / "report.md").read_text()


def test_serve_checks_the_model_before_starting(tmp_path):
    bad = run("serve", "--model", tmp_path / "none", "--port", "0")
    assert bad.exit_code == 1 and "Traceback" not in bad.output
    assert bad.output.strip() == f"error: --model {tmp_path / 'none'}: no such folder"


def test_a_ranker_learns_from_the_model_candidates(book, sheet_folder):
    from fortap.suggest.ranker import RankerConfig, train_ranker
    from fortap.suggest.train import examples

    sug = Suggester.open(book, model=sheet_folder)
    targets = [target(cell) for cell in ("D3", "D4", "D5", "E3", "E4", "E5")]
    groups, labels, _, _ = examples(sug.context, targets, "sheet", sug.model)
    assert groups and all(any(y) for y in labels)
    assert any("model_logp" in row and row.get("src_model") for g in groups for row in g)
    ranker = train_ranker(groups, labels, RankerConfig(rounds=5, min_data_in_leaf=1))
    assert ranker.knows("model") and "model_logp" in ranker.feature_names
