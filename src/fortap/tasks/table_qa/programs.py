"""Candidate programs for one question (`candidates`), executed, with the features a reranker
reads (`FEATURES`), which mean the same over every table.

A program is one operation of `operations.OPS` over cells on one line, a line pair or a header
group, taken from the head's best cells (their logits shifted by the question's header-path
match, as `decoding.decode` does):

- the decoded answer itself (`decode` with the folder's settings), always first;
- lookups: each of the best `TOP_CELLS` cells alone;
- pairs: two of the best numbered data cells on one row or column: `diff`, the two ratios,
  `pair_max`, `pair_min`;
- groups: the siblings of a best cell along its row or column (`decoding.siblings`), the
  line's cells above the threshold, and its best two to `MOST_GROUP` cells: `sum`, `average`, `max`, `min`, `count`, `argmax`,
  `argmin`, and `part_ratio` over a run of three or more;
- `opposite` of each of the best `TOP_LINES` numbered cells.

Each runs through `operations.execute`, so its answer and formula are those `fortap ask` prints;
programs that cannot run, and repeats of an answer already taken by the same operation over the
same cells, are dropped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import torch

from fortap.encoding.example import Example
from fortap.encoding.piece import RC
from fortap.tasks.table_qa.decoding import DecodeConfig, QAScores, decode, siblings
from fortap.tasks.table_qa.headers import HeaderPaths, words
from fortap.tasks.table_qa.operations import OPS, Execution, execute, number
from fortap.tasks.table_qa.path_match import path_match

TOP_CELLS = 6  # lookups: the best cells by shifted logit
TOP_PAIRS = 8  # pair operands: the best numbered data cells
TOP_LINES = 3  # groups and `opposite`: along the lines of this many best numbered cells
MOST_GROUP = 6  # a line's best cells taken as a group: 2 up to this many
PAIR_OPS = ("diff", "ratio_down", "ratio_up", "pair_max", "pair_min")
GROUP_OPS = ("sum", "average", "max", "min", "count", "argmax", "argmin")

CUES = {  # cue family -> question words or phrases that call for it
    "diff": r"\bdifference\b|\bgap\b|\bmore than\b|\bless than\b|\bhigher than\b|\blower than\b"
    r"|\bincrease\b|\bdecrease\b|\bchange\b|\bgrew\b|\bdropped\b|\bfell\b|\brose\b",
    "ratio": r"\btimes\b|\bratio\b|\bproportion\b|\bshare\b|\bfraction\b|\bper\b|\bpercent",
    "sum": r"\btotal\b|\bsum\b|\bcombined\b|\baltogether\b|\bin all\b|\badd",
    "average": r"\baverage\b|\bmean\b",
    "count": r"\bhow many (?:of|types|kinds|categories|groups|years|provinces|countries)\b"
    r"|\bnumber of (?:categories|groups|types)\b",
    "super": r"\bmost\b|\bleast\b|\bhighest\b|\blowest\b|\blargest\b|\bsmallest\b|\bbiggest\b"
    r"|\btop\b|\bbest\b|\bworst\b|\bmaximum\b|\bminimum\b|\best\b",
    "compare": r"\bwhich\b.*\b(?:or|than)\b|\bmore likely\b|\bless likely\b|\bcompared\b",
    "which": r"^\s*(?:which|what|who|where|when)\b",
    "number": r"\bhow (?:many|much)\b|\bwhat (?:percentage|percent|proportion|share|number)\b",
}
_CUES = {name: re.compile(pattern) for name, pattern in CUES.items()}
OP_GROUP = {"none": 0, "sum": 1, "average": 2, "diff": 3, "ratio_down": 4, "ratio_up": 4,
            "part_ratio": 4, "opposite": 5, "max": 6, "min": 6, "count": 7, "argmax": 8,
            "argmin": 8, "pair_max": 9, "pair_min": 9}  # fmt: skip
OP_CUES = {  # operation -> the cue families that call for it
    "sum": ("sum",), "average": ("average",), "diff": ("diff", "compare"), "opposite": ("diff",),
    "ratio_down": ("ratio",), "ratio_up": ("ratio",), "part_ratio": ("ratio",),
    "count": ("count",), "max": ("super",), "min": ("super",), "argmax": ("super",),
    "argmin": ("super",), "pair_max": ("compare", "super"), "pair_min": ("compare", "super"),
}  # fmt: skip
ARITHMETIC_CUES = ("diff", "ratio", "sum", "average", "count", "super", "compare")
FEATURES = (
    "op", "op_group", "op_logit", "op_prob", "op_rank", "decoded",
    "n_cells", "cell_max", "cell_mean", "cell_min", "rank_best", "rank_worst",
    "unmatched_mean", "prefixed_mean", "overlap_mean", "overlap_min", "header_cells",
    "one_row", "one_col", "text_answer", "log_magnitude", "below_one", "negative",
    *(f"cue_{name}" for name in CUES), "cue_fits_op", "cues_unmet",
    # the table's best-matching row (column) minus the cells' rows (columns), in shared words
    "row_gap", "col_gap",
    # against the question's other candidates: best minus own
    "cell_mean_gap", "overlap_gap", "op_prob_gap", "n_candidates",
)  # fmt: skip
RELATIVE = ("cell_mean", "overlap_mean", "op_prob")  # the gaps' columns, in their order


@dataclass(frozen=True)
class Candidate:
    op: str
    cells: tuple[RC, ...]
    run: Execution
    features: tuple[float, ...]  # by `FEATURES`


def cues(question: str) -> list[float]:
    q = question.lower()
    return [float(bool(pattern.search(q))) for pattern in _CUES.values()]


def candidates(
    scores: QAScores, example: Example, paths: HeaderPaths, cfg: DecodeConfig
) -> list[Candidate]:
    """The executed candidate programs of one question, the decoded answer first (module doc)."""
    question = example.meta.get("question") or ""
    coords = list(example.cell_coords)
    n = len(coords)
    logits = scores.cells[:n].float()  # (C,)
    match = torch.tensor(path_match(paths, question, coords)).reshape(-1, 2)  # (C, 2)
    logits = logits + cfg.prefix_weight * match[:, 1] - cfg.unmatched_weight * match[:, 0]  # (C,)
    probs = torch.sigmoid(logits).tolist()
    op_probs = torch.softmax(scores.ops.float(), dim=0).tolist()  # (K,)
    op_order = sorted(range(len(OPS)), key=lambda k: -op_probs[k])
    order = sorted(range(n), key=lambda k: -probs[k])
    rank = {k: i for i, k in enumerate(order)}
    index = {rc: k for k, rc in enumerate(coords)}
    numbered = [k for k in order
                if not paths.is_header(coords[k]) and number(paths, coords[k]) is not None]  # fmt: skip

    programs: list[tuple[str, tuple[int, ...], bool]] = []
    decoded = decode(scores, example, paths, cfg)
    programs.append((decoded.op, tuple(index[rc] for rc in decoded.cells if rc in index), True))
    programs += [("none", (k,), False) for k in order[:TOP_CELLS]]
    best = numbered[:TOP_PAIRS]
    for i, a in enumerate(best):
        for b in best[i + 1 :]:
            if coords[a][0] == coords[b][0] or coords[a][1] == coords[b][1]:
                programs += [(op, (a, b), False) for op in PAIR_OPS]
    programs += [("opposite", (k,), False) for k in numbered[:TOP_LINES]]
    for a in numbered[:TOP_LINES]:
        r, c = coords[a]
        for line in ([k for k in numbered if coords[k][0] == r and k != a],
                     [k for k in numbered if coords[k][1] == c and k != a]):  # fmt: skip
            if not line:
                continue
            groups = {tuple(sorted({a, *siblings(a, line, coords, paths)}))}
            above = [k for k in line if probs[k] > cfg.threshold]
            if above:
                groups.add(tuple(sorted({a, *above})))
            for size in range(1, MOST_GROUP):  # the line's best cells, by logit
                groups.add(tuple(sorted({a, *line[:size]})))
            for group in groups:
                if len(group) < 2:
                    continue
                programs += [(op, group, False) for op in GROUP_OPS]
                if len(group) >= 3:
                    programs.append(("part_ratio", group, False))

    q_words = words(question)
    cue = cues(question)
    row_hits = {r: len(q_words & w) for r, w in paths.row_words.items()}
    col_hits = {c: len(q_words & w) for c, w in paths.col_words.items()}
    hits = (row_hits, col_hits, max(row_hits.values(), default=0), max(col_hits.values(), default=0))
    seen: set = set()
    found: list[Candidate] = []
    for op, ks, is_decoded in programs:
        cells = tuple(coords[k] for k in ks)
        key = (op, frozenset(cells))
        if not cells or key in seen:
            continue
        seen.add(key)
        run = execute(op, cells, paths)
        if run is None or not run.answer:
            continue
        found.append(Candidate(op, cells, run, _features(
            op, ks, is_decoded, run, coords, probs, rank, match, paths, q_words, cue, hits,
            scores.ops[OPS.index(op)].item(), op_probs[OPS.index(op)],
            op_order.index(OPS.index(op)))))  # fmt: skip
    count = float(len(found))
    cols = [FEATURES.index(name) for name in RELATIVE]
    best = [max((c.features[k] for c in found), default=0.0) for k in cols]
    return [Candidate(c.op, c.cells, c.run, (*c.features[: -1 - len(cols)],
                      *(b - c.features[k] for b, k in zip(best, cols, strict=True)), count))
            for c in found]  # fmt: skip


def _features(op, ks, is_decoded, run, coords, probs, rank, match, paths, q_words, cue, hits,
              op_logit, op_prob, op_rank) -> tuple[float, ...]:  # fmt: skip
    cells = [coords[k] for k in ks]
    row_hits, col_hits, best_row, best_col = hits
    row_gap = sum(best_row - row_hits.get(r, 0) for r, _ in cells) / len(cells)
    col_gap = sum(best_col - col_hits.get(c, 0) for _, c in cells) / len(cells)
    p = [probs[k] for k in ks]
    overlap = []
    for rc in cells:
        path_words = paths.path_words(paths.header_path(rc)) if not paths.is_header(rc) else (
            words(paths.table.cell(*rc).text))
        overlap.append(len(q_words & path_words) / max(len(q_words), 1))
    value = run.answer[0]
    numeric = isinstance(value, float)
    return (
        float(OPS.index(op)), float(OP_GROUP[op]), op_logit, op_prob, float(op_rank),
        float(is_decoded), float(len(ks)), max(p), sum(p) / len(p), min(p),
        float(min(rank[k] for k in ks)), float(max(rank[k] for k in ks)),
        sum(match[k, 0].item() for k in ks) / len(ks), sum(match[k, 1].item() for k in ks) / len(ks),
        sum(overlap) / len(overlap), min(overlap), float(sum(paths.is_header(rc) for rc in cells)),
        float(len({r for r, _ in cells}) == 1), float(len({c for _, c in cells}) == 1),
        float(not numeric), math.log10(abs(value) + 1e-9) if numeric else 0.0,
        float(numeric and abs(value) < 1), float(numeric and value < 0),
        *cue, *_cue_fit(op, cue), row_gap, col_gap, 0.0, 0.0, 0.0, 0.0,
    )  # fmt: skip


def _cue_fit(op: str, cue: list[float]) -> tuple[float, float]:
    """Whether a cue of the question calls for `op` (a lookup: whether none calls for an
    operation), and how many of the question's operation cues `op` leaves unmet."""
    present = {name for name, v in zip(CUES, cue, strict=True) if v and name in ARITHMETIC_CUES}
    wanted = set(OP_CUES.get(op, ()))
    fits = bool(present & wanted) if wanted else not present
    return float(fits), float(len(present - wanted))
