"""Cell-level scores of an audit against an answer key, and the key's two halves.

A flagged cell is a (book, sheet, row, col) place; precision, recall and F1 count places
(micro, over every sheet of the key). Per kind, a finding counts for its own kind only; a
checker's flags carry no kind, so per kind only its recall means something. Halves: the
books split in two by `corpus.split.book_key` (`split_of` with half the keys on each side),
so every copy of a book falls in the same half; thresholds are chosen on one half
(`best_thresholds`: one per kind, together the F1-best) and reported on the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from fortap.corpus.split import SplitConfig, book_key, split_of
from fortap.metrics.f1 import f1

HALVES = ("A", "B")
NOTHING = 2.0  # a threshold above every score: the kind flags nothing
Place = tuple[str, str, int, int]  # book, sheet, row, col


def half_of(book: str, seed: int = 0) -> str:
    """ "A" or "B": the half of the key a book falls in, by its `book_key`."""
    side = split_of(book_key(book), SplitConfig(train=0.5, dev=0.5, seed=seed))
    return HALVES[side != "train"]


@dataclass(frozen=True)
class Scores:
    flagged: int
    gold: int
    hits: int

    @property
    def precision(self) -> float:
        return self.hits / self.flagged if self.flagged else 0.0

    @property
    def recall(self) -> float:
        return self.hits / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        return f1(self.hits, self.flagged - self.hits, self.gold - self.hits)

    def to_json(self) -> dict:
        return {"flagged": self.flagged, "gold": self.gold, "hits": self.hits,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "f1": round(self.f1, 4)}  # fmt: skip


def scores(flagged: Iterable[Place], gold: Iterable[Place]) -> Scores:
    f, g = set(flagged), set(gold)
    return Scores(len(f), len(g), len(f & g))


def above(scored: Mapping[Place, float], threshold: float) -> set[Place]:
    return {p for p, s in scored.items() if s >= threshold}


def best_thresholds(scored: Mapping[str, Mapping[Place, float]], gold: Iterable[Place]) -> dict:
    """One threshold per kind, chosen together for the best overall F1 (a place holds one kind:
    a formula or a typed number); `NOTHING` for a kind better left out. Ties: the first in the
    kinds' order of thresholds, highest first."""
    gold = set(gold)
    curves = [np.array(_curve(places, gold)) for places in scored.values()]  # each (T_k, 3)
    flagged, hits = np.zeros(()), np.zeros(())
    for axis, curve in enumerate(curves):  # a grid of every combination, one axis per kind
        shape = [1] * len(curves)
        shape[axis] = len(curve)
        flagged = flagged + curve[:, 1].reshape(shape)
        hits = hits + curve[:, 2].reshape(shape)
    total = flagged + len(gold)
    score = np.divide(2 * hits, total, out=np.zeros(total.shape), where=total > 0)  # (T_1, ...)
    best = np.unravel_index(int(np.argmax(score)), score.shape)
    return {kind: float(c[i, 0]) for kind, c, i in zip(scored, curves, best, strict=True)}


def _curve(places: Mapping[Place, float], gold: set) -> list[tuple[float, int, int]]:
    """(threshold, flagged, hits) at each distinct score, highest first, after flagging none."""
    ranked = sorted(places.items(), key=lambda kv: -kv[1])
    out, hits = [(NOTHING, 0, 0)], 0
    for i, (place, score) in enumerate(ranked):
        hits += place in gold
        if i + 1 == len(ranked) or ranked[i + 1][1] != score:
            out.append((score, i + 1, hits))
    return out
