"""The sheet setting: other formulas shown as tokens, copy targets, the copy head and its ranking."""

from __future__ import annotations

import math

import pytest
import torch

from fortap.model.state_file import read_tensors
from fortap.tasks.formula_prediction.checkpoint import load_formula_model, save_formula_model
from fortap.tasks.formula_prediction.config import (
    FormulaRunConfig,
    FPData,
    FPEvaluation,
    FPTraining,
)
from fortap.tasks.formula_prediction.copies import rank
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.evaluate import evaluate_formula_prediction
from fortap.tasks.formula_prediction.examples import FP_KEY, formula_examples, fp_batch
from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
from fortap.tasks.formula_prediction.metrics import Guess
from fortap.tasks.formula_prediction.model import FormulaPredictionModel, copy_nll
from fortap.tasks.formula_prediction.run import run_evaluate, run_finetune
from fortap.tasks.recipe import Optim

from .expense_table import expense_table, tiny_encoder
from .test_finetune_resume import tables_file

SHEET = FormulaRunConfig(data=FPData(setting="sheet"))


def by_cell(examples):
    return {ex.meta["formula"] + "@" + str(ex.meta["target"]): ex for ex in examples}


def copies_of(example):
    return {c["source"]: (c["ok"], c["agree"]) for c in example.targets[FP_KEY]["copies"]}


def test_sheet_examples_show_other_formulas_as_tokens_and_list_copies(tokenizer):
    examples = formula_examples(expense_table(), tokenizer, SHEET.examples())
    d3 = next(ex for ex in examples if ex.meta["target"] == [2, 3])
    modes = {(r, c): mode for r, c, mode in d3.meta["input_modes"]}
    assert modes[(2, 3)] == "tag" and modes[(1, 3)] == "tokens" and modes[(3, 3)] == "tokens"
    # D2 (=B2+C2) filled down gives =B3+C3, D3's formula; D4 (=SUM(D2:D3)) moved up does not
    assert copies_of(d3) == {"D2": (True, 1), "D4": (False, 1)}
    d4 = next(ex for ex in examples if ex.meta["target"] == [3, 3])
    # B4 and C4 filled right both give =SUM(D2:D3); D2 and D3 both give =B4+C4
    assert copies_of(d4) == {"C4": (True, 2), "B4": (True, 2), "D3": (False, 2), "D2": (False, 2)}
    features = {c["source"]: c["features"] for c in d3.targets[FP_KEY]["copies"]}
    # shares on numbers, empty, text, off the table, the target; sketch length / 10; cells
    # sharing the source's R1C1, log1p / 5; the fill rule's pick; its place in the fill order.
    # D2 copied: =B3+C3 reads two numbers (+, B3, C3), R1C1 shared by D2 and D3, the cell above
    # (fill's pick); D4 copied up: =SUM(D1:D2) reads the text "total" in D1 and the number in
    # D2 (SUM, D1, D2), R1C1 shared by B4, C4 and D4, second in the fill order (below)
    assert features["D2"] == pytest.approx([1, 0, 0, 0, 0, 0.3, math.log(3) / 5, 1, 0])
    assert features["D4"] == pytest.approx([0.5, 0, 0.5, 0, 0, 0.3, math.log(4) / 5, 0, 0.1])


def test_paper_examples_have_no_copies_and_show_values(tokenizer):
    examples = formula_examples(expense_table(), tokenizer, FormulaRunConfig().examples())
    for ex in examples:
        assert "copies" not in ex.targets[FP_KEY]
        assert {mode for *_, mode in ex.meta["input_modes"]} <= {"tag", "value"}


def test_collate_marks_candidates_and_right_copies(tokenizer):
    examples = formula_examples(expense_table(), tokenizer, SHEET.examples())
    batch = fp_batch(examples)
    t = batch.targets[FP_KEY]
    assert t["copy_mask"].shape == t["copy_ok"].shape == batch.cell_mask.shape
    for b, ex in enumerate(examples):
        listed = {c["cell"] - 1: c for c in ex.targets[FP_KEY]["copies"]}
        assert set(t["copy_mask"][b].nonzero().flatten().tolist()) == set(listed)
        assert {k for k, c in listed.items() if c["ok"]} == set(
            t["copy_ok"][b].nonzero().flatten().tolist()
        )
        assert all(t["copy_agree"][b, k] == c["agree"] for k, c in listed.items())


def test_copy_nll_sums_the_right_choices_and_falls_back_to_write():
    scores = torch.tensor([[1.0, 2.0, 0.5, 0.0], [0.0, 0.0, -1e9, 3.0]])  # (2, 3 cells + write)
    ok = torch.tensor([[True, True, False], [False, False, False]])
    loss, logs = copy_nll(scores, ok)
    p = scores.softmax(-1)
    want = -(torch.log(p[0, 0] + p[0, 1]) + torch.log(p[1, 3])) / 2
    assert float(loss) == pytest.approx(float(want), rel=1e-6)
    assert logs["acc/copy"] == 1.0 and logs["share/copyable"] == 0.5


def test_rank_adds_up_one_formula_and_orders_by_probability():
    a = Guess(("SUM", "[:]", "[RANGE]", "[RANGE]"), ((1, 3), (2, 3)))
    b = Guess(("+", "[RANGE]", "[RANGE]"), ((3, 1), (3, 2)))
    copies = [
        {
            "sketch": list(b.sketch),
            "ranges": [list(r) for r in b.ranges],
            "source": "D2",
            "text": "=B4+C4",
        },
        {
            "sketch": list(a.sketch),
            "ranges": [list(r) for r in a.ranges],
            "source": "B4",
            "text": "=SUM(D2:D3)",
        },
    ]
    written = [(a, math.log(0.5), {"score": -0.7}), (b, math.log(0.5), {"score": -0.7})]
    # copies: b 0.3, a 0.25; write 0.45 -> a = 0.25 + 0.225, b = 0.3 + 0.225
    ranked = rank(copies, [math.log(0.3), math.log(0.25)], math.log(0.45), written, top_k=5)
    assert [g for g, _ in ranked] == [b, a]
    assert math.exp(ranked[0][1]["logp"]) == pytest.approx(0.525)
    assert ranked[0][1]["source"] == "copy:D2" and ranked[1][1]["source"] == "copy:B4"
    assert ranked[0][1]["formula"] == "=B4+C4"  # a copy keeps its own text (constants too)
    assert len(rank(copies, [math.log(0.3), math.log(0.25)], math.log(0.45), written, 1)) == 1


def test_copy_head_needs_the_sheet_setting():
    with pytest.raises(ValueError, match="decoder.copy needs data.setting=sheet"):
        FormulaRunConfig(decoder=DecoderConfig(copy=True))
    with pytest.raises(ValueError, match="FPData.setting"):
        FPData(setting="book")  # type: ignore[arg-type]


def test_tiny_copy_model_learns_the_table_and_round_trips(tokenizer, tmp_path):
    decoder = DecoderConfig(layers=1, heads=2, dropout=0.0, copy=True)
    cfg = FormulaRunConfig(
        data=FPData(setting="sheet"),
        training=FPTraining(steps=120, batch_size=5, dev_checks=0, progress=False),
        optim=Optim(lr=3e-3, encoder_lr=3e-3, warmup=0.0, weight_decay=0.0),
        decoder=decoder,
    )
    examples = formula_examples(expense_table(), tokenizer, cfg.examples())
    encoder = tiny_encoder()
    encoder.embeddings.word_embeddings.weight.requires_grad_(False)  # 30k rows: slow to step
    model, _ = finetune_formula_prediction(examples, [], encoder, cfg, tmp_path / "run")
    _, logs = model(fp_batch(examples))
    assert logs["acc/copy"] == 1.0
    metrics, records = evaluate_formula_prediction(model, examples, beam=5)
    assert metrics["formula_top1"] == 1.0, records
    sources = {r["cell"]: r["candidates"][0]["source"] for r in records}
    assert sources["D3"] == "copy:D2" and sources["D4"] in ("copy:B4", "copy:C4")
    save_formula_model(model, tmp_path / "model", cfg.examples().serialize)
    loaded = load_formula_model(tmp_path / "model")
    assert isinstance(loaded, FormulaPredictionModel) and loaded.decoder.copy_head is not None
    again, records_again = evaluate_formula_prediction(loaded, examples, beam=5)
    assert records_again == records and again["formula_top1"] == 1.0


def test_evaluate_reads_the_setting_of_a_saved_model_and_bf16_weights_load(tmp_path):
    tables = tables_file(tmp_path)
    decoder = DecoderConfig(layers=1, heads=2, dropout=0.0, copy=True)
    cfg = FormulaRunConfig(
        data=FPData(setting="sheet"), decoder=decoder,
        training=FPTraining(steps=4, batch_size=2, dev_checks=0, progress=False),
    )  # fmt: skip
    run = run_finetune([tables], tmp_path / "run", cfg)
    assert run is not None
    # a plain `fortap evaluate` config: the saved model.json inputs make it the sheet setting
    again = run_evaluate([tables], tmp_path / "eval", FormulaRunConfig(
        evaluation=FPEvaluation(model=str(tmp_path / "run" / "model"))))  # fmt: skip
    assert again.records == run.records
    copies = [ex.targets[FP_KEY]["copies"] for ex in run.split["test"]]
    ceiling = sum(any(c["ok"] for c in cs) for cs in copies) / len(copies)
    assert run.systems["model"]["copy_ceiling"] == ceiling > 0  # the expense table's copies
    narrow = tmp_path / "bf16"
    save_formula_model(run.model, narrow, cfg.examples().serialize, dtype=torch.bfloat16)
    tensors, _ = read_tensors(narrow / "head.safetensors")
    assert {t.dtype for t in tensors.values()} == {torch.bfloat16}
    loaded = load_formula_model(narrow)
    assert next(loaded.parameters()).dtype == torch.float32
    stored = dict(loaded.named_parameters())
    for name, weight in run.model.named_parameters():  # every weight, each rounded once
        assert torch.equal(stored[name], weight.to(torch.bfloat16).float()), name


def test_written_candidates_with_placeholders_are_left_out_of_a_sheet_ranking(
    tokenizer, monkeypatch
):
    from fortap.formula.tokens import FORMULA_VOCAB_INDEX
    from fortap.tasks.formula_prediction import evaluate
    from fortap.tasks.formula_prediction.decoding import Candidate

    cfg = FormulaRunConfig(data=FPData(setting="sheet"),
                           decoder=DecoderConfig(layers=1, heads=2, dropout=0.0, copy=True))  # fmt: skip
    examples = formula_examples(expense_table(), tokenizer, cfg.examples())
    model = FormulaPredictionModel(tiny_encoder(), cfg.decoder)
    ids = [FORMULA_VOCAB_INDEX[t] for t in ("[START]", "[+]", "[RANGE]", "[C-NUM]", "[END]")]
    plus_num = Candidate(tuple(ids), (1,), -0.1, -0.1)  # =<cell>+<num>: no formula to enter
    monkeypatch.setattr(evaluate, "decode_encoded", lambda m, e, c: [[plus_num]] * len(examples))
    ranked = evaluate.ranked_guesses(model, examples, evaluate.DecodeConfig())
    assert all(info["source"].startswith("copy:") for one in ranked for _, info in one)
    assert all(len(one) == len({c["text"] for c in ex.targets[FP_KEY]["copies"]})
               for one, ex in zip(ranked, examples, strict=True))  # fmt: skip
