"""The sheet setting's copy targets: which shown formulas, copied to the target, give its formula.

In the sheet setting (`FormulaExamplesConfig.setting == "sheet"`) the input shows the other
formula cells as their formula tokens, each pointing at the cells it references
(`fortap.encoding.formula_input`). Besides writing a formula token by token, the model may then
*copy* one of them: the shown formula moved to the target as Excel's fill moves it
(`fortap.formula.fill`). Each example lists its copy candidates in `targets[FP_KEY]["copies"]`:
the formula cells of the input (at most `MAX_COPIES`, nearest first), each as

- `cell`: its 1-based input cell id;
- `ok`: its copy is the target's formula (same sketch and ranges, `formula_key`);
- `agree`: how many candidates give the same copy (itself included), a vote the head reads;
- `features`: where the copy's references land (`copy_features`), how many formula cells of
  the table share the source's R1C1 (a dragged block; log-scaled), whether the source is the
  fill rule's pick, and its place in the fill rule's order (`formula.fill_rule.fill_key`);
- `sketch`, `ranges`, `source`, `text`: the copy as a guess, the A1 address it was copied
  from, and its Excel text (constants and all).

`collate_copies` pads them into tensors; `rank` merges the copy head's probabilities with the
written candidates of beam search into one ranking (`FormulaDecoder.copy_head`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import torch

from fortap.encoding.example import Batch, Example
from fortap.encoding.piece import RC
from fortap.formula import Formula
from fortap.formula.fill import fill_formula, sheet_rc
from fortap.formula.fill_rule import fill_key
from fortap.sheet.model import a1
from fortap.table.model import Table
from fortap.tasks.formula_prediction.copy_head import FEATURES
from fortap.tasks.formula_prediction.metrics import Guess, formula_key, sketch_length

MAX_COPIES = 32  # copy candidates per example, nearest first


def r1c1_counts(cells: Mapping[RC, Formula | None]) -> Counter:
    """How many formula cells of a table share each `$`-aware R1C1 text (a dragged block)."""
    return Counter(f.r1c1 for f in cells.values() if f is not None)


def distance(a: RC, b: RC) -> int:
    """Rows plus columns between two cells."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def copy_targets(
    table: Table,
    rc: RC,
    example: Example,
    cells: Mapping[RC, Formula | None],
    gold: Guess | None,
    shared: Counter | None = None,
) -> list[dict]:
    """The copy candidates of target `rc` among the input cells of `example` (module doc);
    `gold` None for a target without one (a suggestion: every `ok` is False); `shared`: the
    table's `r1c1_counts` (counted here when not given)."""
    shared = r1c1_counts(cells) if shared is None else shared
    shown = [tuple(at) for at in example.cell_coords]
    ids = {at: k for k, at in enumerate(shown, start=1)}
    sources = sorted(
        (at for at in shown if at != rc and cells.get(at) is not None),
        key=lambda at: (distance(at, rc), at),
    )[:MAX_COPIES]
    rank = {at: i for i, at in enumerate(sorted(sources, key=lambda at: fill_key(rc, at)))}
    gold_key = None if gold is None else formula_key(gold)
    out = []
    for at in sources:
        source = cells[at]  # a parsed formula: `sources` holds no other
        filled = fill_formula(table, source, at, rc)
        if filled is None:  # a reference would leave the sheet
            continue
        guess = Guess(filled.sketch, filled.ranges)
        key = formula_key(guess)
        features = [*copy_features(table, rc, filled), math.log1p(shared[source.r1c1]) / 5,
                    float(rank[at] == 0), min(rank[at], 10) / 10]  # fmt: skip
        out.append({"cell": ids[at], "ok": key == gold_key, "key": key, "sketch": list(guess.sketch),
                    "ranges": [list(r) for r in guess.ranges], "source": a1(*sheet_rc(table, at)),
                    "text": filled.text, "features": features})  # fmt: skip
    votes = Counter(c["key"] for c in out)
    for c in out:
        c["agree"] = votes[c.pop("key")]
    return out


def copy_features(table: Table, rc: RC, copy: Formula) -> list[float]:
    """`FEATURES` numbers about a copy at target `rc`: the shares of its references on number,
    empty and text cells, off the table, and on the target itself; its sketch length / 10. A
    total moved onto a column of numbers reads numbers; one moved past the table's edge reads
    empty cells."""
    top, left = table.region.top, table.region.left
    kinds = Counter()
    for r, c in copy.ranges:
        at = (r - top, c - left)
        if not (0 <= at[0] < table.n_rows and 0 <= at[1] < table.n_cols):
            kinds["off"] += 1
        elif at == tuple(rc):
            kinds["target"] += 1
        else:
            cell = table.cell(*at)
            kinds["empty" if cell.is_empty else "number" if cell.kind == "number" else "text"] += 1
    n = max(1, len(copy.ranges))
    shares = [kinds[k] / n for k in ("number", "empty", "text", "off", "target")]
    return [*shares, sketch_length(copy.sketch) / 10]


def collate_copies(values: Sequence[dict], batch: Batch) -> dict[str, torch.Tensor]:
    """`copy_mask`, `copy_ok` (B, C) bool, `copy_agree` (B, C) float and `copy_features`
    (B, C, FEATURES), C the batch's cells, on the batch's device; examples without copy
    candidates have empty rows."""
    n, c = batch.cell_mask.shape
    mask = torch.zeros((n, c), dtype=torch.bool)  # (B, C)
    ok = torch.zeros((n, c), dtype=torch.bool)  # (B, C)
    agree = torch.zeros((n, c))  # (B, C)
    features = torch.zeros((n, c, FEATURES))  # (B, C, F)
    for b, v in enumerate(values):
        for copy in v.get("copies", ()):
            k = copy["cell"] - 1
            mask[b, k], ok[b, k], agree[b, k] = True, copy["ok"], float(copy["agree"])
            features[b, k] = torch.tensor(copy["features"])
    found = {"copy_mask": mask, "copy_ok": ok, "copy_agree": agree, "copy_features": features}
    return {name: value.to(batch.cell_mask.device) for name, value in found.items()}


def copy_guess(copy: dict) -> Guess:
    return Guess(tuple(copy["sketch"]), tuple(tuple(r) for r in copy["ranges"]))


def rank(
    copies: Sequence[dict],
    copy_logp: Sequence[float],
    write_logp: float,
    written: Sequence[tuple[Guess, float, dict]],
    top_k: int,
) -> list[tuple[Guess, dict]]:
    """One ranking of copies and written formulas by probability, `top_k` long.

    A copy's probability is the copy head's for its cell (`copy_logp`, aligned with `copies`);
    a written formula's is the head's probability of writing (`write_logp`) times the decoder's
    (`written`: guess, log-probability, record fields). Candidates with the same `formula_key`
    are one formula, and their probabilities add up."""
    merged: dict[tuple[str, ...], list] = {}
    for copy, logp in zip(copies, copy_logp, strict=True):
        _add(merged, copy_guess(copy), logp,
             {"source": f"copy:{copy['source']}", "formula": copy["text"]})  # fmt: skip
    for guess, logp, info in written:
        _add(merged, guess, write_logp + logp, {"source": "written", **info})
    best = sorted(merged.values(), key=lambda m: m[1], reverse=True)[:top_k]
    return [(guess, {**info, "logp": logp}) for guess, logp, info in best]


def _add(merged: dict, guess: Guess, logp: float, info: dict) -> None:
    key = formula_key(guess)
    if key in merged:
        old = merged[key]
        old[1] = max(old[1], logp) + math.log1p(math.exp(-abs(old[1] - logp)))
    else:
        merged[key] = [guess, logp, info]
