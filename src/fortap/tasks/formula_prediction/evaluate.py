"""Evaluating formula prediction: `evaluate_formula_prediction`, `evaluate_sketch_prior`.

Evaluation (`predict`) decodes every example (beam search, `decoding`), maps each pointer back
to its sheet cell, and scores the ranked candidates with `metrics`. A model with a copy head (the
sheet setting) ranks the copies of the shown formulas among the written candidates
(`ranked_guesses`). `evaluate_sketch_prior` scores the input-blind reference (`sketch_prior`):
the most frequent training sketches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import torch

from fortap.encoding.example import Batch, Example
from fortap.errors import FormulaError
from fortap.formula import parse_formula
from fortap.formula.degenerate import is_degenerate
from fortap.formula.from_sketch import formula_of_sketch, formula_text, template_text
from fortap.formula.references import refers_to
from fortap.formula.tokens import FORMULA_VOCAB, PLACEHOLDER_TOKENS, RANGE
from fortap.model.precision import device_of
from fortap.sheet.model import a1
from fortap.tasks.formula_prediction.copies import collate_copies, rank
from fortap.tasks.formula_prediction.decoding import Candidate, DecodeConfig, decode_encoded
from fortap.tasks.formula_prediction.examples import FP_KEY, fp_batch
from fortap.tasks.formula_prediction.metrics import (
    NOT_A_CELL,
    Gold,
    Guess,
    error_class,
    formula_key,
    formula_metrics,
)
from fortap.tasks.formula_prediction.model import FormulaPredictionModel

PRIOR = "sketch prior"  # the system name of `sketch_prior`
Predicted = tuple[list[Gold], list[list[Guess]], list[dict]]  # golds, ranked guesses, records


def gold_of(example: Example) -> Gold:
    """The true formula of a formula-prediction example, in the metrics' terms."""
    t = example.targets[FP_KEY]
    ranges = tuple(tuple(c) if c is not None else None for c in t["gold_ranges"])
    return Gold(tuple(FORMULA_VOCAB[i] for i in t["sketch"]), ranges, bool(t["reachable"]))  # type: ignore[arg-type]


def guess_of(example: Example, candidate: Candidate) -> Guess:
    """A decoded candidate with its pointers mapped to sheet cells."""
    top, left = example.targets[FP_KEY]["origin"]
    cells = []
    for p in candidate.pointers:
        r, c = example.cell_coords[p] if 0 <= p < len(example.cell_coords) else (None, None)
        cells.append(None if r is None else (top + r, left + c))
    return Guess(candidate.sketch, tuple(cells))


def has_formula(guess: Guess) -> bool:
    """Whether a written guess is a whole formula: no placeholder (a constant the vocabulary
    cannot spell, `[UNKOP]`) and every `[RANGE]` pointed at a cell."""
    return not PLACEHOLDER_TOKENS.intersection(guess.sketch) and None not in guess.ranges


def guess_text(guess: Guess) -> str:
    """Excel text of a guess: the formula itself (`formula_text`) when it has one; else, with a
    constant the vocabulary cannot spell or a cell it could not point at, a template with
    placeholders (`<num>`, `<WR>`: `fortap.formula.from_sketch.template_text`)."""
    if has_formula(guess):
        try:
            return formula_text(guess.sketch, guess.ranges)  # type: ignore[arg-type]
        except FormulaError:
            pass
    return template_text(guess.sketch, [a1(*c) if c else NOT_A_CELL for c in guess.ranges])


def predict(
    model: FormulaPredictionModel,
    examples: Sequence[Example],
    batch_size: int = 16,
    decode_cfg: DecodeConfig | None = None,
) -> Predicted:
    """Decode `examples`: their golds, the ranked guesses, and one prediction record each."""
    cfg = decode_cfg or DecodeConfig()
    golds, guesses, records = [], [], []
    for i in range(0, len(examples), batch_size):
        chunk = examples[i : i + batch_size]
        for example, ranked in zip(chunk, ranked_guesses(model, chunk, cfg), strict=True):
            gold = gold_of(example)
            golds.append(gold)
            guesses.append([g for g, _ in ranked])
            records.append(prediction_record(example, gold, ranked))
    return golds, guesses, records


def ranked_guesses(
    model: FormulaPredictionModel, chunk: Sequence[Example], cfg: DecodeConfig
) -> list[list[tuple[Guess, dict]]]:
    """Each example's ranked guesses with their record fields (`ranked_at` at its gold's cell)."""
    batch = fp_batch(chunk)
    return ranked_at(model, chunk, batch, batch.targets[FP_KEY]["cell"], cfg)


@torch.no_grad()
def ranked_at(
    model: FormulaPredictionModel,
    chunk: Sequence[Example],
    batch: Batch,
    cell: torch.Tensor,
    cfg: DecodeConfig,
) -> list[list[tuple[Guess, dict]]]:
    """The ranked guesses for the cells `cell` (B,) (0-based) of `chunk` collated as `batch`;
    each example's `targets[FP_KEY]` needs `origin` and, for a copy head, `copies` (gold is not
    read). Written candidates come from beam search; with a copy head, copies of the shown
    formulas join them, all ranked by probability (`copies.rank`), and written ones holding a
    placeholder (`<num>`, `[UNKOP]`: not a formula Excel takes) are left out, so every
    candidate of a sheet-setting model is one a user could enter."""
    model.eval()
    device = device_of(model)  # the batch is built on the CPU; the model may be on a GPU
    batch, cell = batch.to(device), cell.to(device)
    enc = model.encode(batch, cell)
    found = decode_encoded(model, enc, cfg)
    targets = [target_of(example, int(i)) for example, i in zip(chunk, cell.tolist(), strict=True)]
    out = []
    if model.decoder.copy_head is None:
        for example, candidates, at in zip(chunk, found, targets, strict=True):
            ranked = [(guess_of(example, c), _fields(c)) for c in candidates]
            out.append(usable_order(ranked, at, cfg.top_k, example.meta.get("sheet")))
        return out
    values = [example.targets[FP_KEY] for example in chunk]
    log_probs = model.copy_scores(enc, collate_copies(values, batch)).log_softmax(-1)  # (B, C + 1)
    for b, (value, example, candidates) in enumerate(zip(values, chunk, found, strict=True)):
        copies = value.get("copies", [])
        copy_logp = [float(log_probs[b, c["cell"] - 1]) for c in copies]
        written = [(guess_of(example, c), c.score + c.range_score, _fields(c))
                   for c in candidates if not PLACEHOLDER_TOKENS.intersection(c.sketch)]  # fmt: skip
        ranked = rank(
            copies, copy_logp, float(log_probs[b, -1]), written, len(copies) + len(written)
        )
        out.append(usable_order(ranked, targets[b], cfg.top_k, example.meta.get("sheet")))
    return out


def target_of(example: Example, index: int) -> tuple[int, int]:
    """The sheet (row, col) of the example's cell `index` (0-based)."""
    top, left = example.targets[FP_KEY]["origin"]
    r, c = example.cell_coords[index]
    return top + r, left + c


def usable_order(
    ranked: list[tuple[Guess, dict]],
    target: tuple[int, int],
    top_k: int,
    sheet: str | None = None,
) -> list[tuple[Guess, dict]]:
    """The first `top_k` of `ranked` once circular candidates (a reference to the target cell
    of `sheet` itself, such as a copy whose moved range runs over it) are dropped and
    degenerate ones (`=B22/B22`, `=SUM(C5:C5)`: `formula.degenerate`) are put after the rest;
    the order is kept otherwise. A candidate with no formula to judge (a placeholder, a cell it
    could not point at) stays where it is. Without a copy head `ranked` is the beam's `top_k`
    already, so a dropped candidate leaves the list shorter."""
    kept: list[tuple[Guess, dict]] = []
    later: list[tuple[Guess, dict]] = []
    for guess, info in ranked:
        if len(kept) >= top_k:
            break
        ast = _ast(guess, info)
        if ast is not None and refers_to(ast, target, sheet):
            continue
        (later if ast is not None and is_degenerate(ast) else kept).append((guess, info))
    return (kept + later)[:top_k]


def _ast(guess: Guess, info: dict):
    """The formula of a ranked candidate: a copy's own text, or the sketch read with its cells."""
    try:
        if "formula" in info:
            return parse_formula(info["formula"]).ast
        if not has_formula(guess):
            return None
        return formula_of_sketch(guess.sketch, guess.ranges)  # type: ignore[arg-type]
    except FormulaError:
        return None


def _fields(candidate: Candidate) -> dict:
    return {"score": candidate.score, "range_score": candidate.range_score}


def evaluate_formula_prediction(
    model: FormulaPredictionModel,
    examples: Sequence[Example],
    beam: int = 5,
    top_k: int = 5,
    batch_size: int = 16,
    decode_cfg: DecodeConfig | None = None,
) -> tuple[dict, list[dict]]:
    """Metrics over `examples` and one prediction record per example (gold, ranked candidates).

    `decode_cfg`, when given, replaces `beam` and `top_k`."""
    cfg = decode_cfg or DecodeConfig(beam=beam, top_k=top_k)
    golds, guesses, records = predict(model, examples, batch_size, cfg)
    return formula_metrics(golds, guesses, k=cfg.top_k), records


def sketch_prior(train_examples: Sequence[Example], top_k: int = 5) -> list[Guess]:
    """The input-blind guess: the `top_k` most frequent training sketches, most frequent first,
    each pointing nowhere (the same for every example)."""
    counts = Counter(tuple(ex.targets[FP_KEY]["sketch"]) for ex in train_examples)
    ranked = []
    for ids, _ in counts.most_common(top_k):
        sketch = tuple(FORMULA_VOCAB[i] for i in ids)
        ranked.append(Guess(sketch, (None,) * sketch.count(RANGE)))
    return ranked


def evaluate_sketch_prior(
    train_examples: Sequence[Example], examples: Sequence[Example], top_k: int = 5
) -> dict:
    """Metrics of `sketch_prior` on `examples`. A decoder whose sketch accuracy does not beat
    it has learned the sketch distribution but not to read the table."""
    ranked = sketch_prior(train_examples, top_k)
    return formula_metrics([gold_of(ex) for ex in examples], [ranked] * len(examples), k=top_k)


def prediction_record(example: Example, gold: Gold, ranked: list[tuple[Guess, dict]]) -> dict:
    target = example.meta.get("target", [0, 0])
    return {
        "book": example.meta.get("book"),
        "sheet": example.meta.get("sheet"),
        "cell": a1(*target),
        "formula": example.meta.get("formula"),
        "gold": " ".join(formula_key(gold)),
        "reachable": gold.reachable,
        "error": error_class(gold, ranked[0][0] if ranked else None),
        "candidates": [
            {"formula": guess_text(g), "prefix": " ".join(formula_key(g)), **fields}
            for g, fields in ranked
        ],
    }
