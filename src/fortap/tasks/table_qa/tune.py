"""`fortap tune-qa FOLDER HITAB`: fit the candidate reranker of a table-QA model folder on a
train sample, choose it on dev, calibrate its confidence on dev and write it into the folder.

The head's scores of each question are computed once and kept (`scores_path`, resumable:
`cache_scores` saves after each part), so a second run with other settings reads them back.
Each reranker of `GRID` is fitted on the train sample; the one with the best dev execution
accuracy is kept (ties: the earlier); its top scores on dev are calibrated (`rerank.isotonic`)
and its threshold is the lowest confidence whose answered dev questions are right at least
`answered` of the time (`choose_threshold`). The folder then holds `reranker.txt.gz` and
model.json's `head.rerank` record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from fortap.tasks.table_qa.predict import head_scores
from fortap.tasks.table_qa.questions import QuestionBuilder, spread
from fortap.tasks.table_qa.rerank import RerankConfig, Reranker, collect, fit_reranker, isotonic

GRID = (*(RerankConfig(rounds=r, leaves=n) for r in (150, 400) for n in (15, 31)),
        *(RerankConfig(rounds=r, leaves=n, objective="lambdarank")
          for r in (150, 400, 800) for n in (15, 31, 63)))  # fmt: skip
ANSWERED = 0.75  # dev accuracy of the answers given at the threshold


@dataclass(frozen=True)
class TuneConfig:
    train_most: int = 0  # train questions fitted on, spread over the file (0: all)
    answered: float = ANSWERED
    strict_labels: bool = False  # train labels: right only with HiTab's operation (`intended`)


def scores_path(out: Path, split: str, most: int = 0) -> Path:
    return out / f"scores-{split}{f'-{most}' if most else ''}-model.pt"


def cache_scores(model, items, path: Path | None, progress=None) -> dict:
    """{sample id: (op logits, cell logits)} of every item, read back where already kept at
    `path` (None: computed, kept nowhere)."""
    found = torch.load(path, weights_only=True) if path and path.exists() else {}  # our own
    todo = [i for i in items if i.sample.id not in found]
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(todo), 160):
        part = todo[start : start + 160]
        for item, s in zip(part, head_scores(model, [i.example for i in part]), strict=True):
            found[item.sample.id] = (s.ops, s.cells)
        if path:
            torch.save(found, path)
        if progress:
            progress(start + len(part), len(todo))
    return found


def chosen(reranker: Reranker, groups, labels) -> tuple[list[bool], list[float]]:
    """Per question: whether the reranker's best candidate is right, and its raw score."""
    right, raw = [], []
    for g, lab in zip(groups, labels, strict=True):
        if not g:
            right.append(False)
            raw.append(0.0)
            continue
        s = reranker.scores(g)
        i = int(s.argmax())
        right.append(bool(lab[i]))
        raw.append(float(s[i]))
    return right, raw


def choose_threshold(conf: Sequence[float], right: Sequence[bool], want: float) -> float:
    """The lowest confidence whose answered questions are right at least `want` of the time."""
    for t in sorted(set(conf)):
        kept = [r for c, r in zip(conf, right, strict=True) if c >= t]
        if kept and sum(kept) / len(kept) >= want:
            return float(t)
    return 1.0


def choose(train, dev, grid=GRID, answered: float = ANSWERED, log=print) -> tuple[Reranker, list]:
    """The reranker of `grid` best on dev, calibrated and thresholded on dev; the grid's rows.
    `train`, `dev`: (groups, labels) as `rerank.collect` gives them."""
    rows, best = [], None
    for cfg in grid:
        reranker = fit_reranker(*train, cfg)
        right, _ = chosen(reranker, *dev)
        acc = sum(right) / max(len(right), 1)
        rows.append({"objective": cfg.objective, "rounds": cfg.rounds, "leaves": cfg.leaves,
                     "dev": acc})  # fmt: skip
        log(f"{cfg.objective} rounds {cfg.rounds:4d} leaves {cfg.leaves:3d}: dev {acc:.3f}")
        if best is None or acc > best[0]:
            best = (acc, reranker)
    reranker = best[1]
    right, raw = chosen(reranker, *dev)
    reranker.calibration = isotonic(raw, right)
    reranker.threshold = choose_threshold([reranker.confidence(r) for r in raw], right, answered)
    return reranker, rows


def tune(folder: Path, hitab, out: Path, cfg: TuneConfig, log=print) -> tuple[Reranker, list]:
    """Fit, choose and write the reranker of `folder` (module doc); scores kept under `out`."""
    from fortap.tasks.table_qa.answerer import TableAnswerer, write_rerank

    answerer = TableAnswerer.load(folder)
    builder = QuestionBuilder(hitab, answerer.tokenizer, answerer.inputs)
    found = {}
    for split, most in (("train", cfg.train_most), ("dev", 0)):
        items = builder.build(spread(hitab.samples(split), most), split).items
        cached = cache_scores(answerer.model, items, scores_path(out, split, most),
                              lambda d, n, s=split: log(f"{s} head scores {d}/{n}"))  # fmt: skip
        found[split] = collect(items, cached, answerer.model.decoding,
                               cfg.strict_labels and split == "train")  # fmt: skip
    reranker, rows = choose(found["train"], found["dev"], GRID, cfg.answered, log)
    write_rerank(folder, reranker, rerank_scores(reranker, found["dev"], cfg))
    return reranker, rows


def rerank_scores(reranker: Reranker, dev, cfg: TuneConfig) -> dict:
    """metrics.json's `rerank` record: the chosen reranker's dev accuracy (what `fortap
    check-model` re-scores), its answered share and accuracy at the threshold, how it was
    fitted."""
    right, raw = chosen(reranker, *dev)
    kept = [r for r, x in zip(right, raw, strict=True) if reranker.confidence(x) >= reranker.threshold]
    return {"dev": sum(right) / max(len(right), 1), "dev_coverage": len(kept) / max(len(right), 1),
            "dev_answered_accuracy": sum(kept) / max(len(kept), 1),
            "train_most": cfg.train_most, "answered": cfg.answered,
            "strict_labels": cfg.strict_labels}  # fmt: skip
