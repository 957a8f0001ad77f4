"""`fortap train-ranker`: the ranker learnt leave-one-out on the training side's own formulas.

For each training workbook (`books.side_of` == "train"; `TrainConfig.side` may pick "dev"), up
to `per_book` target cells (`books.targets_of`, evenly spread; `paper_per_book` in the paper
setting) are hidden one at a time and their candidates generated as for a user's request: in the
*sheet* setting only the target is hidden, in the *new-formula* setting its dragged block too
(the contiguous cells sharing its R1C1), in the *paper* setting every formula. A candidate's
relevance (`labels_of`) is 2 when its text equals the gold formula's (`anchor.normal_text`:
case, spaces and printing normalised, `$` kept; in the paper setting `$` is ignored, since no
formula there shows how a workbook writes it), else 0; in the settings of
`TrainConfig.sketch_label` (`--sketch-label paper`) it is 1 when only its sketch is the gold's
(the paper's sketch: operators and functions, references as `[RANGE]`, numbers as `[C-NUM]`).
With no formula visible the exact formula is rarely among the candidates, and the sketch's 1
teaches the ranker which kind of formula such a place wants from the targets whose exact formula
no candidate holds; in the other settings it pulls the first place toward same-sketch copies
with other ranges. Targets with no relevant candidate teach a ranker nothing and are only
counted. With `TrainConfig.common` (`--common`) a first pass over the workbooks learns the
`candidates.common.CommonTable` (saved with the ranker); each workbook's targets are then
generated with the table of the other workbooks (`CommonTable.without`), so no training target
sees its own workbook's counts. Both are off by default: on dev they trade exact top-1 in every
setting for sketch top-1 in the paper setting (docs/journal/formula-transfer.md), and the
shipped ranker is trained without them. The cap keeps the two large models (times_nz,
excel_to_code_2050models) from outweighing two hundred small books. By default the paper
setting takes twice as many targets: with no formula visible its gold is among the candidates
for about one target in five, so it has the fewest queries to learn from, and on dev the larger
cap raised its formula and sketch top-1 without moving the other settings
(docs/journal/formula-transfer.md). With a formula-prediction model (`TrainConfig.model`) its
candidates and `model_*` scores join (`candidates.model`), so the ranker learns how far to
trust them; learn such a ranker on the dev side, whose workbooks the model never trained on (on
its own training books it is too sure).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fortap.console import progress
from fortap.corpus.spread import spread
from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.printer import to_text
from fortap.suggest.books import contexts, targets_of, workbooks_on
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.common import BookCounts, CommonTable
from fortap.suggest.context import BookContext, Target
from fortap.suggest.ranker import RankerConfig, train_ranker
from fortap.tasks.formula_prediction.metrics import sketch_key


@dataclass(frozen=True)
class TrainConfig:
    """What `train` reads and how many targets it takes per workbook and setting."""

    per_book: int = 60
    paper_per_book: int = 120  # the paper setting's cap (module doc)
    settings: tuple[str, ...] = ("sheet", "new-formula", "paper")
    side: str = "train"
    ranker: RankerConfig = field(default_factory=RankerConfig)
    model: Path | None = None  # formula-prediction model folder: its candidates join (`model_*`)
    common: bool = False  # learn a `CommonTable` (the common candidates)
    sketch_label: tuple[str, ...] = ()  # settings where the gold's sketch alone counts 1

    def cap(self, setting: str) -> int:
        """Targets per workbook in `setting`."""
        return self.paper_per_book if setting == "paper" else self.per_book


def gold_text(ctx: BookContext, target: Target) -> str | None:
    """The target's own formula in comparison form (None when it has none)."""
    f = ctx.formula_at(target.sheet, target.row, target.col)
    return None if f is None else to_text(f.ast).upper().replace(" ", "")


def hidden_for(ctx: BookContext, target: Target, setting: str) -> frozenset:
    """The cells hidden in a setting: the target; its dragged block for new-formula."""
    if setting == "new-formula":
        return ctx.dragged_block(target)
    return frozenset({(target.sheet, target.row, target.col)})


def labels_of(
    ctx: BookContext,
    target: Target,
    cands: Sequence,
    sketches: bool = False,
    dollars: bool = True,
) -> list[int]:
    """Relevance of each candidate: 2 the gold formula (`$` ignored unless `dollars`), 1 (with
    `sketches`) the gold's sketch alone, 0 otherwise (module doc)."""
    gold = gold_text(ctx, target)
    formula = ctx.formula_at(target.sheet, target.row, target.col)
    y = [2 * int(_same(c.formula.upper().replace(" ", ""), gold, dollars)) for c in cands]
    if sketches and formula is not None:
        want = sketch_key(formula.sketch)
        for i, c in enumerate(cands):
            if not y[i]:
                y[i] = int(sketch_at(c.formula, target) == want)
    return y


def _same(text: str, gold: str | None, dollars: bool) -> bool:
    if gold is None or dollars:
        return text == gold
    return text.replace("$", "") == gold.replace("$", "")


def sketch_at(text: str, target: Target) -> tuple[str, ...] | None:
    """The paper's sketch (`metrics.sketch_key`) of formula `text` entered at `target`; None
    when it does not parse."""
    try:
        return sketch_key(parse_formula(text, target.sheet, (target.row, target.col)).sketch)
    except FortapError:
        return None


def examples(
    ctx: BookContext,
    targets: Sequence[Target],
    setting: str,
    model=None,
    common: CommonTable | None = None,
    sketches: bool = False,
):
    """(candidate feature dicts, labels) per target with a relevant candidate (`labels_of`; with
    `sketches`, the gold's sketch counts), the number of targets whose gold no candidate holds,
    and the number left out (no relevant candidate); `model` a loaded
    `candidates.model.ModelSource`, `common` the table to generate with."""
    groups, labels, missed, unused = [], [], 0, 0
    for target in targets:
        cands = generate(ctx, target, hidden_for(ctx, target, setting), setting, model, common)
        y = labels_of(ctx, target, cands, sketches, dollars=setting != "paper")
        missed += 2 not in y
        if not any(y):
            unused += 1
            continue
        groups.append([dict(c.features) for c in cands])
        labels.append(y)
    return groups, labels, missed, unused


def train(paths: Sequence[str | Path], out: Path, cfg: TrainConfig = TrainConfig()) -> dict:
    """Train on the `cfg.side` workbooks under `paths`, save the ranker in `out`; a summary."""
    start = time.time()
    files = workbooks_on(paths, cfg.side, "train-ranker", "--side")
    model = None
    if cfg.model is not None:
        from fortap.suggest.candidates.model import ModelSource

        model = ModelSource.load(cfg.model)
    groups, labels, errors = [], [], []
    counts = {s: {"targets": 0, "with_gold": 0, "queries": 0} for s in cfg.settings}
    books = 0
    written, table = {}, None
    done = {path: i for i, path in enumerate(files)}  # the bars count unreadable files too
    if cfg.common:  # a first pass (LibreOffice's conversions are cached for the second)
        with progress("common formulas", len(files)) as update:
            for p, ctx in contexts(files):
                update(done[p], p.name)
                written[str(p)] = BookCounts.of(ctx)
        table = CommonTable.learn(written.values())
    with progress("train-ranker", len(files)) as update:
        for path, ctx in contexts(files, errors):
            every = targets_of(ctx)
            if not every:
                continue
            books += 1
            own = None if table is None else table.without(written.get(str(path), BookCounts({})))
            for k, setting in enumerate(cfg.settings):
                update(done[path] + k / len(cfg.settings), f"{path.name} ({setting})")
                targets = spread(every, cfg.cap(setting))
                g, y, missed, unused = examples(
                    ctx, targets, setting, model, own, setting in cfg.sketch_label
                )
                groups += g
                labels += y
                counts[setting]["targets"] += len(targets)
                counts[setting]["with_gold"] += len(targets) - missed
                counts[setting]["queries"] += len(targets) - unused
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
    ranker = train_ranker(groups, labels, cfg.ranker, info, table)
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
