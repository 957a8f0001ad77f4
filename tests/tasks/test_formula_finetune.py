"""The input-blind sketch prior, on the expense table's five formulas."""

from __future__ import annotations

from fortap.tasks.formula_prediction.evaluate import evaluate_sketch_prior
from fortap.tasks.formula_prediction.examples import formula_examples

from .expense_table import expense_table


def test_sketch_prior_ranks_training_sketches_by_frequency(tokenizer):
    examples = formula_examples(expense_table(), tokenizer)
    # three SUM(range:range) totals, two `range + range` row sums
    metrics = evaluate_sketch_prior(examples, examples, top_k=5)
    assert metrics["n"] == 5
    assert metrics["sketch_top1"] == 3 / 5 and metrics["sketch_top5"] == 1.0
    # it points nowhere, so no formula with a reference is ever right
    assert metrics["formula_top1"] == metrics["formula_top5"] == 0.0
    only_rows = evaluate_sketch_prior(examples[:2], examples, top_k=1)
    assert only_rows["sketch_top1"] == 2 / 5
