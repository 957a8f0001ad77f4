"""Training examples augmented per draw (`Augmenter`), for `ShuffledBatches`' `draw` hook.

Each training example is traced back to its `Target` (table, target cell, gold formula) by its
meta (`book`, `sheet`, `region`, `target`) and the run's parsed formula cells. Every time the
batch source draws an example, `Augmenter(index, serial)` seeds a `random.Random` from the
run's seed and the draw's serial number, and applies each kind of `FPAugment` (synonyms,
numbers, insert, transpose, in that order) with its probability. When none was drawn, or none
applied, the example as built is returned; otherwise the changed target is serialised again
(`prediction_example`). So a run's augmented batches are a function of its seed and the
number of draws before them, which the batch source saves in its checkpoints: a resumed run
draws the same ones.

`counts` tallies, over the draws so far, how often each kind changed an example and how often
a drawn kind did not apply (an example without listed words, a formula that reads positions).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from fortap.encoding.example import Example
from fortap.formula import Formula
from fortap.table.model import Table
from fortap.tasks.formula_prediction.augment import Target, perturb_numbers, swap_synonyms
from fortap.tasks.formula_prediction.config import AUGMENT_KINDS, FPAugment
from fortap.tasks.formula_prediction.examples import (
    FormulaExamplesConfig,
    Place,
    place_of,
    prediction_example,
)
from fortap.tasks.formula_prediction.move_lines import insert_blank, transpose
from fortap.text.tokenizer import Tokenizer

KINDS: dict[str, Callable[[Target, random.Random], Target | None]] = {
    "synonyms": swap_synonyms,
    "numbers": perturb_numbers,
    "insert": insert_blank,
    "transpose": transpose,
}
assert tuple(KINDS) == AUGMENT_KINDS


def target_of(
    example: Example, tables: Mapping[Place, Table], formulas: Mapping[Place, Mapping]
) -> Target | None:
    """The `Target` an example was built from; None when its meta does not lead back to one."""
    meta = example.meta
    place = (meta.get("book"), meta.get("sheet"), meta.get("region"))
    table = tables.get(place)  # type: ignore[arg-type]
    if table is None or "target" not in meta:
        return None
    rc = (meta["target"][0] - table.region.top, meta["target"][1] - table.region.left)
    formula = formulas.get(place, {}).get(rc)
    return Target(table, rc, formula) if isinstance(formula, Formula) else None


class Augmenter:
    """`augmenter(index, serial) -> Example`: training example `index`, augmented for the
    `serial`-th draw of the run (module doc)."""

    def __init__(
        self,
        examples: Sequence[Example],
        tables: Sequence[Table],
        formulas: Mapping[Place, Mapping],
        tokenizer: Tokenizer,
        ex_cfg: FormulaExamplesConfig,
        cfg: FPAugment,
        seed: int,
    ) -> None:
        by_place = {place_of(t): t for t in tables}
        self.examples = examples
        self.targets = [target_of(ex, by_place, formulas) for ex in examples]
        self.tokenizer, self.ex_cfg, self.cfg, self.seed = tokenizer, ex_cfg, cfg, seed
        self.counts: Counter[str] = Counter()

    def __call__(self, index: int, serial: int) -> Example:
        example, target = self.examples[index], self.targets[index]
        self.counts["draws"] += 1
        if target is None:
            return example
        rng = random.Random(f"fp-augment/{self.seed}/{serial}")
        changed = []
        for kind, apply in KINDS.items():
            if rng.random() >= getattr(self.cfg, kind):
                continue
            new = apply(target, rng)
            if new is None:
                self.counts[f"{kind} not applicable"] += 1
                continue
            target = new
            changed.append(kind)
        if not changed:
            return example
        built = prediction_example(target.table, target.rc, target.formula, self.tokenizer,
                                   self.ex_cfg)  # fmt: skip
        if built is None:  # the target alone does not fit: the example as built
            self.counts["too long"] += 1
            return example
        built.meta["augmented"] = changed
        self.counts.update(changed)
        return built
