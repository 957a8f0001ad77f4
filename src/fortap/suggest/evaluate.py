"""`fortap evaluate formula-suggestion PATHS -o OUT`: the suggester on workbooks it never saw.

The workbooks are read themselves (sheet-wide and cross-sheet sources need whole sheets).
With `split="test"` only the test side of the formula-prediction split is evaluated
(`books.side_of`, the side the ranker never trained on); with `split="dev"` the dev side (where
the ranker's design choices are made); with `split="all"` every workbook given. With
`split_by="sheet"` (the paper splits Enron by sheet) every workbook is read and the split is
drawn per sheet instead (`books.sheet_side`, the same shares): only targets on that side's
sheets are asked. The other sheets' formulas are then those of training-side sheets too, and
the sheet and new-formula settings see them as they see any other sheet; and a workbook the
shipped ranker trained on (by workbook) takes part with its test-side sheets, whose formulas
that ranker has seen. Each target (`books.targets_of`: the paper's first five per row/column
per R1C1, cross-sheet formulas included) is asked in three settings:

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

Every target is asked through `Suggester.ranking`, the one path of `fortap suggest` (the
setting's hidden cells passed to it, previews and their reordering included). Per target and
setting one record (`records.jsonl`): whether the gold is among the candidates (recall, also
per source), and the gold's rank under the ranker alone and under the fixed rule order
(nearest-formula fill, then AutoSum), both on the same candidates: by the exact text (`$`
kept: `rank`, `rule_rank`), by the text with `$` stripped (`nodollar_rank`,
`nodollar_rule_rank`) and by the paper's formula key (`protocol.KeyMatcher`: sketch with each
reference's cell, constants by type: `key_rank`, `key_rule_rank`, and `key_recall`, whether
any candidate has the gold's key); the place of the first of the ranker's top five whose
sketch is the gold's (the paper's sketch top-k); and, in the order `suggest` prints, the
gold's final rank (`printed_rank`, `printed_nodollar_rank`; None beyond the `PRINTED`
printed) and its preview when it was previewed (`gold_preview`); whether the gold reads
another sheet (`cross_sheet`); and what places the target in the paper's subsets (`kept`, the
paper's filters; `tokens`, `in_table`, `window10`: `protocol.gold_facts`).
`summary.summarise` turns the records into `metrics.json` (the ranker's order, the printed
order's under `printed_*` keys beside it, and the paper's protocol under `paper_protocol`);
`report.write_report` writes `report.md` with plots.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from fortap.console import progress
from fortap.corpus.spread import spread
from fortap.suggest.books import contexts, sheet_side, targets_of, workbooks_on
from fortap.suggest.candidates import FLAG, source_names
from fortap.suggest.context import BookContext, Target
from fortap.suggest.engine import Suggester
from fortap.suggest.features import rule_order
from fortap.suggest.preview import Previewer
from fortap.suggest.protocol import KeyMatcher, gold_facts
from fortap.suggest.ranker import Ranker
from fortap.suggest.summary import summarise
from fortap.suggest.train import gold_text, hidden_for, sketch_at
from fortap.tasks.formula_prediction.metrics import sketch_key

SETTINGS = ("sheet", "new-formula", "paper")
SPLITS = ("test", "dev", "all")
SPLIT_BY = ("workbook", "sheet")
PRINTED = 5  # suggestions printed per target (what `fortap suggest` shows by default)


@dataclass(frozen=True)
class SuggestEvalConfig:
    """What `evaluate` reads and measures."""

    split: str = "test"  # "test" / "dev": that side of the split; "all": every workbook
    split_by: str = "workbook"  # what the split draws: "workbook", or "sheet" (the paper's Enron)
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
        if self.split_by not in SPLIT_BY:
            raise ValueError(
                f"SuggestEvalConfig.split_by must be one of {SPLIT_BY}, got {self.split_by!r}"
            )
        bad = [s for s in self.settings if s not in SETTINGS]
        if bad:
            raise ValueError(f"SuggestEvalConfig.settings: unknown {bad}; known {SETTINGS}")


def rank_of(texts: Sequence[str], gold: str) -> int | None:
    """0-based position of `gold` in `texts` (None when absent)."""
    for i, t in enumerate(texts):
        if t == gold:
            return i
    return None


def target_records(sug: Suggester, book: str, target: Target, settings) -> list[dict]:
    """One record per setting for one target (see the module doc), asked through `sug`."""
    ctx = sug.context
    gold = gold_text(ctx, target)
    formula = ctx.formula_at(target.sheet, target.row, target.col)
    keys = KeyMatcher(target, formula)  # shared by the settings: most candidates recur
    facts = gold_facts(ctx, target, formula)
    model = sug.model
    out = []
    for setting in settings:
        got = sug.ranking(target, PRINTED, setting, hidden_for(ctx, target, setting))
        ranked = [c for c, _ in got.ranked]
        texts = [_norm(c.formula) for c in ranked]
        rules = [_norm(c.formula) for c in rule_order(got.candidates)]
        printed = [_norm(s.formula) for s in got.printed]
        bare_gold = gold.replace("$", "")
        hit = rank_of(texts, gold)
        key_rank = keys.rank(texts)  # `ranked` holds every candidate: None means none has it
        out.append({
            "book": book,
            "sheet": target.sheet,
            "row": target.row,
            "col": target.col,
            "setting": setting,
            "kept": bool(formula is not None and formula.kept),
            **facts,
            "cross_sheet": reads_other_sheet(gold),
            "n_candidates": len(got.candidates),
            "rank": hit,
            "rule_rank": rank_of(rules, gold),
            "nodollar_rank": rank_of([t.replace("$", "") for t in texts], bare_gold),
            "nodollar_rule_rank": rank_of([t.replace("$", "") for t in rules], bare_gold),
            "key_rank": key_rank,
            "key_rule_rank": keys.rank(rules),
            "key_recall": key_rank is not None,
            "sketch_rank": _sketch_rank(ranked[:5], formula, target),
            "top1_source": ranked[0].source if ranked else None,
            "gold_sources": [] if hit is None else
            [s for s in source_names(model) if ranked[hit].features.get(FLAG + s)],
            "model_rank": None if hit is None else _beam_rank(ranked[hit]),
            "ms": got.rank_ms,
            "printed_rank": rank_of(printed, gold),
            "printed_nodollar_rank": rank_of([t.replace("$", "") for t in printed], bare_gold),
            "printed_top1_source": got.printed[0].source if got.printed else None,
            "gold_preview": _gold_preview(got.previews, gold),
            "preview_ms": got.preview_ms,
        })  # fmt: skip
    return out


def reads_other_sheet(formula: str) -> bool:
    """Whether a formula's text names a sheet (`Sheet2!A1`, `'Q 1'!B2`, `[1]Data!C3`): a `!`
    outside its double-quoted text constants."""
    return "!" in re.sub(r'"(?:[^"]|"")*"', "", formula)


def _norm(formula: str) -> str:
    return formula.upper().replace(" ", "")


def _gold_preview(previews: dict, gold: str) -> dict | None:
    """The gold's preview when it was on the previewed shortlist (None otherwise)."""
    shown = next((p for f, p in previews.items() if _norm(f) == gold), None)
    if shown is None:
        return None
    return {"value": shown.value, "error": shown.error, "note": shown.note,
            "own_error": shown.own_error}  # fmt: skip


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

    side = cfg.split if cfg.split_by == "workbook" else "all"  # by sheet: every workbook
    files = workbooks_on(paths, side, "evaluate formula-suggestion", "--split")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ranker = Ranker.load(cfg.ranker)
    model = None
    if cfg.model is not None:
        from fortap.suggest.candidates.model import ModelSource

        model = ModelSource.load(cfg.model)
    errors: list[dict] = []
    records, loads = [], []
    done = {path: i for i, path in enumerate(files)}  # the bar counts unreadable files too
    with progress("evaluate", len(files)) as update:
        for path, sug in _timed(_suggesters(contexts(files, errors), ranker, model, errors), loads):
            book = str(path)
            targets = targets_on_side(sug.context, path, cfg)
            for i, target in enumerate(targets):
                update(done[path] + i / len(targets), path.name)
                records += target_records(sug, book, target, cfg.settings)
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


def targets_on_side(ctx: BookContext, path: Path, cfg: SuggestEvalConfig) -> list[Target]:
    """The workbook's targets asked (`books.targets_of`): with `split_by="sheet"` only those on
    sheets of the `cfg.split` side; at most `cfg.per_book`, evenly spread."""
    every = targets_of(ctx)
    if cfg.split_by == "sheet" and cfg.split != "all":
        sides = {name: sheet_side(path, name) for name in ctx.sheet_names()}
        every = [t for t in every if sides[t.sheet] == cfg.split]
    return spread(every, cfg.per_book)


def _suggesters(pairs, ranker, model, errors: list[dict]):
    """(path, Suggester) per readable workbook: its context, the ranker, the preview engine
    and the model; a workbook the preview engine cannot take is reported in `errors`."""
    for path, ctx in pairs:
        try:
            previewer = Previewer.load(ctx.book)
        except Exception as err:  # noqa: BLE001 - a batch reports a broken file and goes on
            errors.append({"path": str(path), "error": f"preview engine: {err}"[:300]})
            continue
        yield path, Suggester(Path(path), ctx.book, ranker, previewer, model, context=ctx)


def _timed(pairs, loads: list):
    """`pairs` as given, appending {"book", "cells", "formulas", "seconds"} per workbook: the
    time to read it, build its `BookContext` and load the preview engine (what a user waits
    for once)."""
    start = time.perf_counter()
    for path, sug in pairs:
        ctx = sug.context
        cells = sum(len(s.sheet.cells) for s in ctx.sheets.values())
        formulas = sum(len(s.cells) for s in ctx.sheets.values())
        seconds = time.perf_counter() - start
        loads.append({"book": str(path), "cells": cells, "formulas": formulas, "seconds": seconds})
        yield path, sug
        start = time.perf_counter()
