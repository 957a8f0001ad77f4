"""The systems of a formula-prediction run side by side on the same test examples (`compare`).

Systems: the fine-tuned model, the rule baseline in the paper setting (AutoSum) and in the
sheet setting (fill), and, given the training examples, the input-blind sketch prior. Each gets
the metrics of `metrics.formula_metrics` (pooled), and under `by_workbook`
formula, sketch and range top-1 and top-k each pooled and averaged per workbook with 95 %
workbook-bootstrap intervals (`workbooks.py`). The model's `gaps` hold its gap to each
baseline on the metric that baseline is read against (formula top-1 for the rules, sketch
top-1 for the prior), pooled and per workbook, each with its interval; `formula_top1_gaps`
keeps the pooled formula top-1 gap to the rules alone (the report's notes). In the sheet
setting the model's `copy_ceiling` is the share of test targets that some copy candidate gets
right: what a perfect copy head would reach without writing anything. The prior's entry also
lists its ranked `sketches` (prefix tokens, most frequent first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fortap.encoding.example import Example
from fortap.table.model import Table
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.evaluate import PRIOR, Predicted, predict, sketch_prior
from fortap.tasks.formula_prediction.examples import FP_KEY
from fortap.tasks.formula_prediction.metrics import formula_metrics, sketch_key
from fortap.tasks.formula_prediction.rule_baseline import RULE_SYSTEMS, evaluate_rules
from fortap.tasks.formula_prediction.workbooks import (
    books_of,
    hit_tallies,
    metric_gap,
    workbook_metrics,
)

GAP_METRIC = {**dict.fromkeys(RULE_SYSTEMS, "formula_top1"), PRIOR: "sketch_top1"}


def compare(
    model,
    test: Sequence[Example],
    cfg: FormulaRunConfig,
    tables: Sequence[Table],
    formulas: Mapping | None = None,
    train: Sequence[Example] | None = None,
) -> tuple[dict[str, dict], list[dict]]:
    """(systems, the model's prediction records) on `test` (see module doc); `formulas` are
    the tables' parsed formula cells, `train` the examples the prior counts sketches of."""
    predicted = predict(model, test, cfg.evaluation.batch_size, cfg.decoding)
    return compare_predicted(predicted, test, cfg, tables, formulas, train)


def compare_predicted(
    predicted: Predicted,
    test: Sequence[Example],
    cfg: FormulaRunConfig,
    tables: Sequence[Table],
    formulas: Mapping | None = None,
    train: Sequence[Example] | None = None,
) -> tuple[dict[str, dict], list[dict]]:
    """`compare` for the model's predictions on `test` already made (`evaluate.predict`)."""
    k = cfg.decoding.top_k
    golds, guesses, records = predicted
    ranked = {"model": guesses}
    for name, setting in RULE_SYSTEMS.items():
        ranked[name] = evaluate_rules(tables, test, setting, top_k=k, formulas=formulas)[2]
    prior = None if train is None else sketch_prior(train, k)
    if prior is not None:
        ranked[PRIOR] = [prior] * len(test)
    books = books_of(test)
    systems, tallies = {}, {}
    for name, guessed in ranked.items():
        tallies[name] = hit_tallies(books, golds, guessed, k)
        metrics = formula_metrics(golds, guessed, k=k)
        metrics["by_workbook"] = workbook_metrics(tallies[name])
        metrics["formula_top1_per_workbook"] = metrics["by_workbook"]["formula_top1"][
            "per_workbook"
        ]
        metrics["books"] = len(set(books))
        systems[name] = metrics
    if prior is not None:  # what the prior guesses, so a later bench can score it elsewhere
        systems[PRIOR]["sketches"] = [" ".join(sketch_key(g.sketch)) for g in prior]
    gaps = {name: {metric: metric_gap(tallies["model"], tallies[name], metric)}
            for name, metric in GAP_METRIC.items() if name in tallies}  # fmt: skip
    systems["model"]["gaps"] = gaps
    listed = [ex.targets[FP_KEY]["copies"] for ex in test if "copies" in ex.targets[FP_KEY]]
    if listed:  # the sheet setting: how often some shown formula, copied, is the answer
        copyable = sum(any(c["ok"] for c in copies) for copies in listed)
        systems["model"]["copy_ceiling"] = copyable / len(listed)
    systems["model"]["formula_top1_gaps"] = {
        name: gaps[name]["formula_top1"]["pooled"] for name in RULE_SYSTEMS
    }
    return systems, records
