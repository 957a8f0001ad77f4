"""What a formula-prediction dev check measures beyond the dev loss, and the dev baselines.

The dev examples are `evaluation.max_dev` of the dev split spread evenly over it (`dev_subset`;
`evaluation.dev_per_workbook` has capped each workbook before). At every dev check the shared
loop (`fortap.training.loop.train`, its `on_eval`) computes the dev loss; `dev_decoding` also
decodes those examples with the run's decoding (`FormulaRunConfig.dev_decoding`: the beam may
be made smaller by `evaluation.dev_beam`) and adds to the logged line:

- `eval/formula_top1`, `eval/formula_top5`, `eval/sketch_top1`, `eval/sketch_top5`,
  `eval/range_acc` (k = `decoding.top_k`), pooled over the dev examples;
- `eval/formula_top1_per_workbook`, `eval/sketch_top1_per_workbook`: each dev workbook counted once;
- `eval/decoded` and `eval/decode_seconds`: how many examples were decoded and what it cost.

The cost is bounded: one beam search per dev example per check, `max_dev x dev_checks`
searches in a run. The line also carries `examples`, the training examples seen so far (the
loop's), so runs of different batch sizes share an axis (learning curves).

Once per run, `dev_baselines` scores the same dev examples with the input-blind sketch prior
of the training examples, the rule baseline in the paper setting (AutoSum) and in the sheet
setting (fill); `write_dev_baselines` puts them in `dev_baselines.json` beside
`metrics.jsonl`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from torch import nn

from fortap.encoding.example import Example
from fortap.metrics.bootstrap import per_workbook_mean
from fortap.table.model import Table
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.evaluate import PRIOR, gold_of, predict, sketch_prior
from fortap.tasks.formula_prediction.metrics import Gold, Guess, formula_metrics
from fortap.tasks.formula_prediction.rule_baseline import RULE_SYSTEMS, evaluate_rules
from fortap.tasks.formula_prediction.split import spread
from fortap.tasks.formula_prediction.workbooks import books_of, hit_tallies

DEV_BASELINES = "dev_baselines.json"


def dev_subset(dev: Sequence[Example], cfg: FormulaRunConfig) -> list[Example]:
    """The dev examples of the dev checks: at most `evaluation.max_dev`, spread evenly over
    the dev split (which comes workbook by workbook), so every dev workbook can be reached."""
    return spread(dev, cfg.evaluation.max_dev)


def dev_summary(
    books: Sequence[str], golds: Sequence[Gold], guesses: Sequence[Sequence[Guess]], k: int
) -> dict[str, float]:
    """The logged dev values of ranked `guesses`: pooled top-1 / top-k, range accuracy, and
    formula and sketch top-1 averaged per workbook."""
    m = formula_metrics(golds, guesses, k=k)
    tallies = hit_tallies(books, golds, guesses, k)
    pooled = ("formula_top1", f"formula_top{k}", "sketch_top1", f"sketch_top{k}", "range_acc")
    out = {key: float(m[key]) for key in pooled}
    for key in ("formula_top1", "sketch_top1"):
        out[f"{key}_per_workbook"] = per_workbook_mean(tallies[key])
    return out


def dev_decoding(
    dev: Sequence[Example], cfg: FormulaRunConfig
) -> Callable[[nn.Module, int], dict[str, float]]:
    """The loop's `on_eval`: decode `dev` and return its `eval/` values (module doc)."""
    decode_cfg, books = cfg.dev_decoding(), books_of(dev)

    def check(model: nn.Module, step: int) -> dict[str, float]:
        was_training, start = model.training, time.perf_counter()
        golds, guesses, _ = predict(model, dev, cfg.evaluation.batch_size, decode_cfg)
        model.train(was_training)
        logs = dev_summary(books, golds, guesses, decode_cfg.top_k)
        logs |= {"decoded": float(len(dev)), "decode_seconds": time.perf_counter() - start}
        return {f"eval/{key}": value for key, value in logs.items()}

    return check


def dev_baselines(
    train: Sequence[Example],
    dev: Sequence[Example],
    cfg: FormulaRunConfig,
    tables: Sequence[Table] | None = None,
    formulas: Mapping | None = None,
) -> dict:
    """The sketch prior of `train` and, with `tables`, the rules (paper and sheet settings) on
    the dev examples `dev`, with the same logged values as the decoded dev checks."""
    k, books, golds = cfg.decoding.top_k, books_of(dev), [gold_of(ex) for ex in dev]
    systems = {PRIOR: dev_summary(books, golds, [sketch_prior(train, k)] * len(dev), k)}
    for name, setting in RULE_SYSTEMS.items() if tables is not None else ():
        _, rule_golds, guesses = evaluate_rules(tables, dev, setting, top_k=k, formulas=formulas)
        systems[name] = dev_summary(books, rule_golds, guesses, k)
    return {"n": len(dev), "books": len(set(books)), "top_k": k, "systems": systems}


def write_dev_baselines(run_dir: str | Path, baselines: dict) -> Path:
    """`dev_baselines.json` in the run folder (rewritten by a resumed run: the same values)."""
    path = Path(run_dir) / DEV_BASELINES
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(baselines, indent=1) + "\n")
    return path
