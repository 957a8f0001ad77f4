"""HiTab questions turned into model inputs (`Item`s), each table's costs computed once.

An `Item` holds the question, its table's header paths, its target (`targets.build_target`)
and its `Example` (`inputs.qa_example`). A question whose table cannot be read is skipped and
counted (`Items.skipped`), never a crash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from fortap.encoding.example import Example
from fortap.encoding.serialize import SerializeConfig
from fortap.errors import FortapError
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.inputs import CUT, TableCost, qa_example
from fortap.tasks.table_qa.samples import HitabSet, QASample
from fortap.tasks.table_qa.targets import Target, build_target
from fortap.text.tokenizer import Tokenizer


@dataclass(frozen=True)
class Item:
    sample: QASample
    paths: HeaderPaths
    target: Target
    example: Example


@dataclass
class Items:
    items: list[Item] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # table id -> why


def spread(samples: Sequence[QASample], most: int) -> list[QASample]:
    """At most `most` samples spread evenly over the list (0 = all)."""
    if not most or most >= len(samples):
        return list(samples)
    step = len(samples) / most
    return [samples[int(i * step)] for i in range(most)]


class QuestionBuilder:
    """Builds `Item`s, keeping each table's paths and cell costs for the next question."""

    def __init__(
        self, hitab: HitabSet, tokenizer: Tokenizer, cfg: SerializeConfig, cut: str = CUT
    ) -> None:
        self.hitab, self.tokenizer, self.cfg, self.cut = hitab, tokenizer, cfg, cut
        self._costs: dict[str, TableCost] = {}

    def cost(self, table_id: str) -> TableCost:
        if table_id not in self._costs:
            paths = HeaderPaths(self.hitab.table(table_id))
            self._costs[table_id] = TableCost.of(paths, self.tokenizer, self.cfg)
        return self._costs[table_id]

    def build(self, samples: Sequence[QASample], label: str = "questions") -> Items:
        out = Items()
        columns = (
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, transient=True) as bar:
            task = bar.add_task(label, total=len(samples))
            for sample in samples:
                bar.advance(task)
                try:
                    tc = self.cost(sample.table_id)
                except FortapError as err:
                    out.skipped[sample.table_id] = str(err)
                    continue
                target = build_target(sample, tc.paths)
                example = qa_example(
                    tc, sample.question, self.tokenizer, self.cfg, target, self.cut
                )
                out.items.append(Item(sample, tc.paths, target, example))
        return out
