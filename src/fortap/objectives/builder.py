"""`TargetBuilder`: every objective's edits and targets for one example, in their fixed order,
over one run's vocabulary, token budget and table-context distractors.

`arrays(sample, rng)` is the pretraining stream's door: one `Draft` of the sample goes through
every objective's `build` and comes out finished, and what the builders derived from the sample
stays in its memo for the next visit. `example(example, rng)` is the same on an `Example`
(evaluation sets, table pretraining, tests). Both make the same random draws in the same
order, so a seed gives the same examples through either door.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fortap.encoding.arrays import ExampleArrays
from fortap.encoding.example import Example
from fortap.objectives.base import Objective, TargetContext
from fortap.objectives.draft import Draft
from fortap.objectives.vocab import Vocab


@dataclass
class TargetBuilder:
    """Builds the targets of `objectives` (run in increasing `order`, ties as given)."""

    objectives: Sequence[Objective]
    configs: Mapping[str, Any]  # objective name -> its config
    vocab: Vocab
    max_tokens: int = 256  # appended items keep an example within this many tokens
    negatives: Sequence[str] = ()  # table-context distractors
    memo: dict[str, Any] = field(default_factory=dict)  # `TargetContext.memo`, kept for the run

    def __post_init__(self) -> None:
        self.objectives = sorted(self.objectives, key=lambda o: o.order)
        self._ctx: TargetContext | None = None  # the context of the last rng

    def arrays(self, sample: ExampleArrays, rng: random.Random) -> ExampleArrays:
        """A new example: `sample` with every objective's edits and targets."""
        draft = Draft(sample)
        ctx = self._ctx
        if ctx is None or ctx.rng is not rng:
            ctx = self._ctx = TargetContext(self.vocab, rng, self.max_tokens, self.negatives,
                                            self.memo)  # fmt: skip
        for objective in self.objectives:
            objective.build(draft, self.configs[objective.name], ctx)
        return draft.finish()

    def example(self, example: Example, rng: random.Random) -> Example:
        """`arrays` on an `Example`; `example` is left alone."""
        return self.arrays(ExampleArrays.from_example(example), rng).to_example()
