"""`fortap evaluate formula-suggestion PATHS -o OUT`: the suggester on workbooks it never saw.

The workbooks are read themselves (sheet-wide and cross-sheet sources need whole sheets).
With `split="test"` only the test side of the formula-prediction split is evaluated
(`books.side_of`, the side the ranker never trained on); with `split="dev"` the dev side (where
the ranker's design choices are made); with `split="all"` every workbook given. Each target
(`books.targets_of`: the paper's first five per row/column per R1C1, cross-sheet formulas
included) is asked in three settings:

- *sheet*: every other formula of the workbook visible (a user asking about one cell);
- *new-formula*: the target's dragged block hidden too (the formula is new to its sheet);
- *paper*: no formula visible (templates, formulas induced from the values, the cells they
  echo, the ranker's common formulas when it has them, and the model when one is given: the
  paper's task).

With a formula-prediction model (`SuggestEvalConfig.model`, loaded once) its beam is a
candidate source in every setting (`candidates.model`); records then also hold the gold's
rank in the model's own beam (`model_rank`, 0-based like the other ranks, counted before
unusable entries are dropped), so the model is measured on its own beside its share in the
merged ranking.

Per target and setting one record (`records.jsonl`): whether the gold is among the candidates
(recall, also per source), and the gold's rank under the ranker and under the fixed rule order
(nearest-formula fill, then AutoSum), both on the same candidates, by the exact text
(`$` kept) and by the paper's sketch + range match (`$` stripped); and the place of the first
of the ranker's top five whose sketch is the gold's (the paper's sketch top-k).
`summary.summarise` turns the records into `metrics.json`; `report.write_report` into
`report.md` with plots.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from fortap.evaluation.metrics import sketch_key
from fortap.suggest.books import contexts, spread, targets_of, workbooks_on
from fortap.suggest.candidates import SOURCES, generate
from fortap.suggest.context import BookContext, Target
from fortap.suggest.features import rule_order
from fortap.suggest.ranker import Ranker
from fortap.suggest.train import gold_text, hidden_for, sketch_at

SETTINGS = ("sheet", "new-formula", "paper")
SPLITS = ("test", "dev", "all")


@dataclass(frozen=True)
class SuggestEvalConfig:
    """What `evaluate` reads and measures."""

    split: str = "test"  # "test" / "dev": that side of the workbook split; "all": every workbook
    ranker: Path | None = None  # ranker folder; None = the default shipped with fortap
    model: Path | None = None  # formula-prediction model folder (adds the model source)
    per_book: int | None = None  # at most this many targets per workbook (evenly spread)
    settings: tuple[str, ...] = SETTINGS
    shortlist: int = 5  # top-k reported (exact_top5 uses 5 whatever this is)
    bootstrap_rounds: int = 2000
    seed: int = 0

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ValueError(f"SuggestEvalConfig.split must be one of {SPLITS}, got {self.split!r}")
        bad = [s for s in self.settings if s not in SETTINGS]
        if bad:
            raise ValueError(f"SuggestEvalConfig.settings: unknown {bad}; known {SETTINGS}")


def rank_of(texts: Sequence[str], gold: str) -> int | None:
    """0-based position of `gold` in `texts` (None when absent)."""
    for i, t in enumerate(texts):
        if t == gold:
            return i
    return None


def target_records(
    ctx: BookContext, book: str, target: Target, ranker: Ranker, settings, model=None
):
    """One record per setting for one target (see the module doc); `model` a loaded
    `candidates.model.ModelSource` or None."""
    gold = gold_text(ctx, target)
    formula = ctx.formula_at(target.sheet, target.row, target.col)
    out = []
    for setting in settings:
        start = time.perf_counter()
        cands = generate(
            ctx, target, hidden_for(ctx, target, setting), setting, model, ranker.common
        )
        ranked = [c for c, _ in ranker.rank(cands)]
        ms = 1000 * (time.perf_counter() - start)
        texts = [c.formula.upper().replace(" ", "") for c in ranked]
        rules = [c.formula.upper().replace(" ", "") for c in rule_order(cands)]
        bare, bare_gold = [t.replace("$", "") for t in texts], gold.replace("$", "")
        bare_rules = [t.replace("$", "") for t in rules]
        hit = rank_of(texts, gold)
        out.append({
            "book": book,
            "sheet": target.sheet,
            "row": target.row,
            "col": target.col,
            "setting": setting,
            "kept": bool(formula is not None and formula.kept),
            "n_candidates": len(cands),
            "rank": hit,
            "rule_rank": rank_of(rules, gold),
            "paper_rank": rank_of(bare, bare_gold),
            "paper_rule_rank": rank_of(bare_rules, bare_gold),
            "sketch_rank": _sketch_rank(ranked[:5], formula, target),
            "top1_source": ranked[0].source if ranked else None,
            "gold_sources": [] if hit is None else
            [s for s in SOURCES if ranked[hit].features.get(f"src_{s}")],
            "model_rank": None if hit is None else _beam_rank(ranked[hit]),
            "ms": ms,
        })  # fmt: skip
    return out


def _sketch_rank(ranked, formula, target: Target) -> int | None:
    """0-based place of the first of `ranked` whose sketch (`metrics.sketch_key`) is the gold
    `formula`'s; None when none is."""
    if formula is None:
        return None
    want = sketch_key(formula.sketch)
    return next((i for i, c in enumerate(ranked) if sketch_at(c.formula, target) == want), None)


def _beam_rank(cand) -> int | None:
    rank = cand.features.get("model_rank")  # 1-based, as the reason shows it
    return None if rank is None else int(rank) - 1


def evaluate(paths: Sequence[str | Path], out: str | Path, cfg: SuggestEvalConfig) -> dict:
    """Evaluate on the workbooks under `paths`, write `records.jsonl`, `metrics.json` and
    `report.md` (with plots) in `out`; the metrics."""
    from fortap.suggest.report import write_report
    from fortap.suggest.summary import summarise

    files = workbooks_on(paths, cfg.split, "evaluate formula-suggestion", "--split")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ranker = Ranker.load(cfg.ranker)
    model = None
    if cfg.model is not None:
        from fortap.suggest.candidates.model import ModelSource

        model = ModelSource.load(cfg.model)
    errors: list[dict] = []
    records, loads = [], []
    for path, ctx in _timed(contexts(files, errors), loads):
        book = str(path)
        for target in spread(targets_of(ctx), cfg.per_book):
            records += target_records(ctx, book, target, ranker, cfg.settings, model)
    with open(out / "records.jsonl", "w") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")
    metrics = summarise(records, cfg)
    metrics["load"] = loads
    metrics["unreadable"] = errors
    metrics["config"] = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()}
    metrics["ranker"] = ranker.info.get("command", str(cfg.ranker or "default"))
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    write_report(metrics, out)
    return metrics


def _timed(pairs, loads: list):
    """`pairs` as given, appending {"book", "cells", "formulas", "seconds"} per workbook: the
    time to read it and build its `BookContext` (what a user waits for once)."""
    start = time.perf_counter()
    for path, ctx in pairs:
        cells = sum(len(s.sheet.cells) for s in ctx.sheets.values())
        formulas = sum(len(s.cells) for s in ctx.sheets.values())
        seconds = time.perf_counter() - start
        loads.append({"book": str(path), "cells": cells, "formulas": formulas, "seconds": seconds})
        yield path, ctx
        start = time.perf_counter()
