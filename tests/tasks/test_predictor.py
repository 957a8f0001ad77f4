"""`FormulaPredictor`: a tiny model fine-tuned for a few seconds on the sales book, loaded once,
asked for the formula of a table cell, and saved back (float32 and bfloat16)."""

from __future__ import annotations

import json

import pytest
import torch

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.printer import to_text
from fortap.formula.references import refers_to
from fortap.model.state_file import read_tensors
from fortap.sheet.read import read_workbook
from fortap.table import detect_tables
from fortap.tasks.formula_prediction.predictor import FormulaPredictor, prediction_of

from ..suggest.engine_books import sales_book
from ..suggest.tiny_model import tiny_model


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return sales_book(tmp_path_factory.mktemp("book") / "sales.xlsx")


@pytest.fixture(scope="module")
def folder(book, tmp_path_factory):
    return tiny_model(book, tmp_path_factory.mktemp("fp"), sheet=True)


@pytest.fixture(scope="module")
def table(book):
    (found,) = detect_tables(read_workbook(book).sheets[0])
    return found


def test_predictions_are_formulas_a_user_can_enter_best_first(folder, table):
    predictor = FormulaPredictor.load(folder)
    assert predictor.sheet_setting and predictor.model.decoder.copy_head is not None
    for cell in ((2, 3), (4, 3), (3, 4)):  # D3, D5, E4 (table = sheet: A1:E6)
        found = predictor.predict(table, cell)
        assert found, cell
        ranks = [p.rank for p in found]
        assert ranks == sorted(set(ranks)) and all(1 <= r <= 5 for r in ranks)
        assert [p.logp for p in found] == sorted((p.logp for p in found), reverse=True)
        for p in found:
            parsed = parse_formula(p.formula, "Sales", cell)
            assert to_text(parsed.ast) == p.formula
            assert not refers_to(parsed.ast, cell, "Sales")
            assert p.copy_of is None or p.range_logp == 0.0
    copied = predictor.predict(table, (4, 3))  # D5: D2:D4 (=B+C) are shown and copied
    assert any(p.copy_of is not None and p.formula == "=B5+C5" for p in copied)
    assert len(predictor.predict(table, (4, 3), k=2)) <= 2


def test_an_entry_that_is_no_formula_is_dropped():
    from fortap.tasks.formula_prediction.metrics import Guess

    written = {"score": -0.5, "range_score": -0.25}
    area = Guess(("[START]", "[SUM]", "[:]", "[RANGE]", "[RANGE]", "[END]"), ((1, 1), (4, 1)))
    got = prediction_of(area, written, 3, "Sales", (5, 1))
    assert (got.formula, got.rank, got.logp, got.range_logp, got.copy_of) == (
        "=SUM(B2:B5)", 3, -0.5, -0.25, None,
    )  # fmt: skip
    circular = Guess(area.sketch, ((5, 0), (5, 2)))  # A6:C6 over B6
    constant = Guess(("[START]", "[+]", "[RANGE]", "[C-NUM]", "[END]"), ((1, 1),))
    nowhere = Guess(("[START]", "[RANGE]", "[END]"), (None,))
    for dropped in (circular, constant, nowhere):
        assert prediction_of(dropped, written, 1, "Sales", (5, 1)) is None
    copy = {"source": "copy:D4", "formula": "=B6+C6", "logp": -0.1}
    got = prediction_of(Guess((), ()), copy, 1, "Sales", (5, 3))
    assert (got.formula, got.copy_of, got.logp, got.range_logp) == ("=B6+C6", "D4", -0.1, 0.0)


def test_save_writes_the_model_back_with_its_input_settings(folder, table, tmp_path):
    predictor = FormulaPredictor.load(folder)
    predictor.save(tmp_path / "same")
    again = FormulaPredictor.load(tmp_path / "same")
    assert again.examples == predictor.examples
    assert again.predict(table, (2, 3)) == predictor.predict(table, (2, 3))
    predictor.save(tmp_path / "bf16", torch.bfloat16)
    tensors, _ = read_tensors(tmp_path / "bf16" / "head.safetensors")
    assert {t.dtype for t in tensors.values()} == {torch.bfloat16}
    saved = json.loads((tmp_path / "bf16" / "model.json").read_text())
    assert saved == json.loads((folder / "model.json").read_text())


def test_a_run_folder_is_accepted_and_a_non_model_refused(folder, tmp_path):
    assert FormulaPredictor.load(folder.parent).folder == folder.resolve()
    with pytest.raises(FortapError, match="no such folder"):
        FormulaPredictor.load(tmp_path / "none")
    (tmp_path / "junk").mkdir()
    with pytest.raises(FortapError, match=r"not a formula-prediction model folder \(missing"):
        FormulaPredictor.load(tmp_path / "junk")
