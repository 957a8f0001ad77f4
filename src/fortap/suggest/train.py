"""`fortap train-ranker`: the ranker learnt leave-one-out on the training side's own formulas.

For each training workbook (`books.side_of` == "train"; `TrainConfig.side` may pick "dev"), up to `per_book` target cells
(`books.targets_of`, evenly spread) are hidden one at a time and their candidates generated as
for a user's request: in the *sheet* setting only the target is hidden, in the *new-formula*
setting its dragged block too (the contiguous cells sharing its R1C1), in the *paper* setting
every formula. A candidate's label is 1 when its text equals the gold formula's
(`anchor.normal_text`: case, spaces and printing normalised, `$` kept). Targets whose gold is
not among the candidates teach a ranker nothing and are only counted. The cap keeps the two
large models (times_nz, excel_to_code_2050models) from outweighing two hundred small books.
With a formula-prediction model (`TrainConfig.model`) its candidates and `model_*` scores join
(`candidates.model`), so the ranker learns how far to trust them; learn such a ranker on the dev
side, whose workbooks the model never trained on (on its own training books it is too sure).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fortap.formula.printer import to_text
from fortap.suggest.books import contexts, side_of, spread, targets_of, workbook_files
from fortap.suggest.candidates import generate
from fortap.suggest.context import BookContext, Target
from fortap.suggest.ranker import RankerConfig, train_ranker


@dataclass(frozen=True)
class TrainConfig:
    """What `train` reads and how many targets it takes per workbook and setting."""

    per_book: int = 60
    settings: tuple[str, ...] = ("sheet", "new-formula", "paper")
    side: str = "train"
    ranker: RankerConfig = field(default_factory=RankerConfig)
    model: Path | None = None  # formula-prediction model folder: its candidates join (`model_*`)


def gold_text(ctx: BookContext, target: Target) -> str | None:
    """The target's own formula in comparison form (None when it has none)."""
    f = ctx.formula_at(target.sheet, target.row, target.col)
    return None if f is None else to_text(f.ast).upper().replace(" ", "")


def hidden_for(ctx: BookContext, target: Target, setting: str) -> frozenset:
    """The cells hidden in a setting: the target; its dragged block for new-formula."""
    if setting == "new-formula":
        return ctx.dragged_block(target)
    return frozenset({(target.sheet, target.row, target.col)})


def examples(ctx: BookContext, targets: Sequence[Target], setting: str, model=None):
    """(candidate feature dicts, labels) per target whose gold is among its candidates, and the
    number of targets whose gold is not; `model` a loaded `candidates.model.ModelSource`."""
    groups, labels, missed = [], [], 0
    for target in targets:
        gold = gold_text(ctx, target)
        cands = generate(ctx, target, hidden_for(ctx, target, setting), setting, model)
        y = [int(c.formula.upper().replace(" ", "") == gold) for c in cands]
        if not any(y):
            missed += 1
            continue
        groups.append([dict(c.features) for c in cands])
        labels.append(y)
    return groups, labels, missed


def train(paths: Sequence[str | Path], out: Path, cfg: TrainConfig = TrainConfig()) -> dict:
    """Train on the `cfg.side` workbooks under `paths`, save the ranker in `out`; a summary."""
    start = time.time()
    model = None
    if cfg.model is not None:
        from fortap.suggest.candidates.model import ModelSource

        model = ModelSource.load(cfg.model)
    files = [f for f in workbook_files(paths) if side_of(f) == cfg.side]
    groups, labels, errors = [], [], []
    counts = {s: {"targets": 0, "with_gold": 0} for s in cfg.settings}
    books = 0
    for _path, ctx in contexts(files, errors):
        targets = spread(targets_of(ctx), cfg.per_book)
        if not targets:
            continue
        books += 1
        for setting in cfg.settings:
            g, y, missed = examples(ctx, targets, setting, model)
            groups += g
            labels += y
            counts[setting]["targets"] += len(targets)
            counts[setting]["with_gold"] += len(targets) - missed
    info = {
        "command": "fortap train-ranker " + " ".join(map(str, paths)),
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(cfg).items()},
        "books": books,
        "files": len(files),
        "unreadable": errors,
        "counts": counts,
        "queries": len(groups),
        "commit": _commit(),
    }
    ranker = train_ranker(groups, labels, cfg.ranker, info)
    ranker.save(out)
    info["seconds"] = round(time.time() - start, 1)
    (Path(out) / "train_summary.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, timeout=5, cwd=Path(__file__).parent,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
