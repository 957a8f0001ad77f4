"""The learned reranker over candidate programs (`Reranker`), its calibrated confidence, and
its fit (`fit_reranker`).

A LightGBM binary model scores each candidate of `programs.candidates` by its `FEATURES`
(label: its executed answer matches the gold, HiTab's execution match); the answer is the
best-scored candidate. Its confidence is that score mapped by an isotonic calibration fitted
on dev (`calibration`: breakpoints, read by linear interpolation); below `threshold` an answer
is shown as uncertain, with the next best candidate beside it.

In a model folder the booster is LightGBM's own text model, gzipped (`RERANKER_FILE`, never a
pickle; a plain `.txt` is read too) and its settings (rounds, leaves, calibration, threshold) sit in model.json's head
record under `rerank`.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fortap.tasks.table_qa.programs import FEATURES, Candidate

RERANKER_FILE = "reranker.txt.gz"
CATEGORICAL = ("op", "op_group")


@dataclass(frozen=True)
class RerankConfig:
    rounds: int = 200
    leaves: int = 15
    learning_rate: float = 0.05
    min_child: int = 20
    seed: int = 0
    objective: str = "binary"  # or "lambdarank" (candidates of one question as a group)


@dataclass
class Reranker:
    booster: object  # lightgbm.Booster over `FEATURES`
    cfg: RerankConfig = field(default_factory=RerankConfig)
    calibration: tuple[tuple[float, ...], tuple[float, ...]] = ((0.0, 1.0), (0.0, 1.0))
    threshold: float = 0.0  # confidence below this: the answer is shown as uncertain

    def scores(self, cands: Sequence[Candidate]) -> np.ndarray:
        """Raw score per candidate (N,)."""
        if not cands:
            return np.zeros(0)
        x = np.array([c.features for c in cands], dtype=np.float64)  # (N, F)
        return np.asarray(self.booster.predict(x, num_threads=1))  # (N,)

    def confidence(self, raw: float) -> float:
        xs, ys = self.calibration
        return float(np.interp(raw, xs, ys))

    def ranked(self, cands: Sequence[Candidate]) -> list[tuple[Candidate, float]]:
        """Candidates with their raw scores, best first (ties: the earlier candidate)."""
        s = self.scores(cands)
        order = sorted(range(len(cands)), key=lambda i: (-s[i], i))
        return [(cands[i], float(s[i])) for i in order]

    def record(self) -> dict:
        """model.json's `rerank` record (the booster lives in `RERANKER_FILE`)."""
        return {"file": RERANKER_FILE, "rounds": self.cfg.rounds, "leaves": self.cfg.leaves,
                "learning_rate": self.cfg.learning_rate, "min_child": self.cfg.min_child,
                "seed": self.cfg.seed, "objective": self.cfg.objective, "calibration": [list(self.calibration[0]),
                list(self.calibration[1])], "threshold": self.threshold}  # fmt: skip

    def save(self, folder: str | Path) -> dict:
        text = self.booster.model_to_string()
        (Path(folder) / RERANKER_FILE).write_bytes(gzip.compress(text.encode(), mtime=0))
        return self.record()

    @classmethod
    def load(cls, folder: str | Path, record: dict) -> Reranker:
        import lightgbm as lgb

        path = Path(folder) / record.get("file", RERANKER_FILE)
        data = path.read_bytes()
        text = gzip.decompress(data) if path.suffix == ".gz" else data
        booster = lgb.Booster(model_str=text.decode())
        if tuple(booster.feature_name()) != FEATURES:
            raise ValueError(f"{path}: the reranker reads features {booster.feature_name()}, "
                             f"this fortap makes {list(FEATURES)}")  # fmt: skip
        cfg = RerankConfig(**{k: record[k] for k in RerankConfig.__dataclass_fields__ if k in record})
        xs, ys = record.get("calibration", [[0.0, 1.0], [0.0, 1.0]])
        return cls(booster, cfg, (tuple(xs), tuple(ys)), float(record.get("threshold", 0.0)))


def fit_reranker(groups: Sequence[Sequence[Candidate]], labels: Sequence[Sequence[bool]],
                 cfg: RerankConfig) -> Reranker:  # fmt: skip
    """A booster fitted on the candidates of many questions and whether each is right."""
    import lightgbm as lgb

    x = np.array([c.features for g in groups for c in g], dtype=np.float64)  # (N, F)
    y = np.array([float(v) for g in labels for v in g])  # (N,)
    data = lgb.Dataset(x, y, feature_name=list(FEATURES), categorical_feature=list(CATEGORICAL),
                       free_raw_data=False)  # fmt: skip
    if cfg.objective == "lambdarank":
        data.set_group([len(g) for g in groups])
    params = {"objective": cfg.objective, "num_leaves": cfg.leaves, "learning_rate": cfg.learning_rate,
              "min_child_samples": cfg.min_child, "seed": cfg.seed, "deterministic": True,
              "num_threads": 1, "verbose": -1, "feature_fraction": 0.9,
              "bagging_fraction": 0.9, "bagging_freq": 1}  # fmt: skip
    return Reranker(lgb.train(params, data, num_boost_round=cfg.rounds), cfg)


def isotonic(raw: Sequence[float], right: Sequence[bool]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Isotonic calibration of top scores against whether the answer was right, as breakpoints
    (pool-adjacent-violators over the sorted scores)."""
    order = np.argsort(np.asarray(raw, dtype=np.float64), kind="stable")
    xs = np.asarray(raw, dtype=np.float64)[order]
    ys = np.asarray(right, dtype=np.float64)[order]
    blocks: list[list[float]] = []  # [sum y, count, min x, max x]
    for x, y in zip(xs, ys, strict=True):
        blocks.append([y, 1.0, x, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            s, n, lo, hi = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
            blocks[-1][3] = hi
    bx, by = [], []
    for s, n, lo, hi in blocks:
        bx += [lo, hi]
        by += [s / n, s / n]
    return tuple(float(v) for v in bx), tuple(float(v) for v in by)


def ece(confidence: Sequence[float], right: Sequence[bool], bins: int = 10) -> float:
    """Expected calibration error over equal-width confidence bins."""
    conf = np.asarray(confidence, dtype=np.float64)
    hit = np.asarray(right, dtype=np.float64)
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        mask = (conf >= lo) & ((conf < hi) if b < bins - 1 else (conf <= hi))
        if mask.any():
            total += mask.sum() / len(conf) * abs(conf[mask].mean() - hit[mask].mean())
    return float(total)


WHICH = {"argmax", "argmin", "pair_max", "pair_min"}  # "which is larger": one family


def intended(op: str, target: str | None) -> bool:
    """Whether a program of `op` does what HiTab's labelled operation `target` does (its
    `OP_GROUP`; the argmax and pair families count as one; no label: any)."""
    from fortap.tasks.table_qa.programs import OP_GROUP

    if target is None:
        return True
    return OP_GROUP[op] == OP_GROUP[target] or {op, target} <= WHICH


def collect(items, cached: dict, cfg, strict: bool = False) -> tuple[list[list[Candidate]], list[list[bool]]]:
    """Each item's candidates (`programs.candidates` over its cached head scores, `cached`:
    sample id -> (op logits, cell logits)) and whether each one's answer matches the gold;
    `strict` (training labels): and its operation is the one HiTab labels (`intended`), so
    a group's max that happens to equal a looked-up gold is not taught as right."""
    from fortap.tasks.table_qa.decoding import QAScores
    from fortap.tasks.table_qa.matching import answers_match
    from fortap.tasks.table_qa.programs import candidates

    groups, labels = [], []
    for item in items:
        cands = candidates(QAScores(*cached[item.sample.id]), item.example, item.paths, cfg)
        groups.append(cands)
        labels.append([answers_match(c.run.answer, item.sample.answer)
                       and (not strict or intended(c.op, item.target.op)) for c in cands])  # fmt: skip
    return groups, labels
