"""Table QA's part of the one fine-tuning run (`TableQAFinetune`, a `TaskRun`).

What it hands `fortap.tasks.run.run`: the training questions of HiTab's processed train file
that have a target (`questions.QuestionBuilder`), `TableQAModel` (the cell and operation heads
over the started encoder), `qa_batch`, a dev check at each of the loop's evaluations (execution
accuracy on `evaluation.max_dev` dev questions, `DEV_ACCURACY`, which keeps the best state),
and the evaluation of `evaluation.splits` beside the two baselines (`evaluate.predict_splits`,
`evaluate.score_splits`). The model folder's `metrics.json` holds the model's scores; `fortap
check-model` scores its dev accuracy again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from fortap.encoding.example import Batch, Example
from fortap.errors import FortapError
from fortap.tasks.run_config import config_dict
from fortap.tasks.table_qa.checkpoint import save_qa_model
from fortap.tasks.table_qa.config import DEV_ACCURACY, QARunConfig
from fortap.tasks.table_qa.evaluate import (
    model_rows,
    predict_splits,
    score_splits,
    show_outputs,
    split_items,
)
from fortap.tasks.table_qa.inputs import qa_batch
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.questions import Item, QuestionBuilder, spread
from fortap.tasks.table_qa.samples import HitabSet
from fortap.tasks.table_qa.scoring import score
from fortap.tasks.task_run import Card, Hooks, RunData, Scored, TaskRun, Trained


def hitab_of(paths: Sequence[str | Path]) -> HitabSet:
    if len(paths) != 1:
        raise FortapError("table-qa takes one HiTab folder (e.g. ../shared/data/hitab)")
    return HitabSet(paths[0])


@dataclass(frozen=True)
class HeldQuestions:
    """What the dev checks and the evaluation read."""

    hitab: HitabSet
    builder: QuestionBuilder
    train_items: list[Item]  # every training question (the majority baseline learns from them)
    dev_items: list[Item]  # the dev checks' questions


class TableQAFinetune(TaskRun):
    """Table QA's `TaskRun` (module doc)."""

    name, kind = "table-qa", "encoder"

    def __init__(self, cfg: QARunConfig) -> None:
        self.cfg = cfg

    def examples(self, paths: Sequence[str | Path], console: Console) -> RunData:
        from fortap.text.tokenizer import Tokenizer

        cfg, hitab, tokenizer = self.cfg, hitab_of(paths), Tokenizer()
        builder = QuestionBuilder(hitab, tokenizer, cfg.data.serialize())
        train = builder.build(spread(hitab.samples("train"), cfg.data.max_train), "train").items
        usable = [i.example for i in train if i.example.targets["table_qa"]["op"] >= 0]
        dev = builder.build(spread(hitab.samples("dev"), cfg.evaluation.max_dev), "dev").items
        note = (f"table-qa: {len(usable)} of {len(train)} training questions with a target; "
                f"{len(dev)} dev questions for the checks")  # fmt: skip
        held = HeldQuestions(hitab, builder, train, dev)
        return RunData(usable, (), cfg.evaluation.batch_size, tokenizer.vocab_size, held, note)

    def model(self, encoder, data: RunData) -> TableQAModel:
        return TableQAModel(encoder, self.cfg.decoding)

    def collate(self, examples: list[Example]) -> Batch:
        return qa_batch(examples)

    def hooks(self, model, data: RunData, run_dir: Path, is_main: bool) -> Hooks:
        dev, size = data.held.dev_items, self.cfg.evaluation.batch_size

        def dev_check(net, step: int) -> dict[str, float]:
            rows = model_rows(net, dev, size)
            net.train()
            return {DEV_ACCURACY: score(rows)["accuracy"]}

        return Hooks(on_eval=dev_check if dev else None)

    def save(self, model: TableQAModel, folder: Path) -> TableQAModel:
        save_qa_model(model, folder, self.cfg.data.serialize())
        return model

    def predict(self, model: TableQAModel, data: RunData):
        held = data.held
        items = split_items(held.hitab, held.builder, self.cfg.evaluation.splits)
        return items, predict_splits(model, items, self.cfg.evaluation.batch_size)

    def score(self, predicted, trained: Trained, data: RunData) -> Scored:
        items, rows = predicted
        systems, records = score_splits(rows, items, data.held.train_items)
        mine = {split: by_system["model"] for split, by_system in systems.items()}
        lines = [f"- {split}: execution accuracy {s['accuracy']:.3f} [{s['low']:.3f}, "
                 f"{s['high']:.3f}], {s['n']} questions" for split, s in mine.items()]  # fmt: skip
        metrics = {"systems": systems, "config": config_dict(self.cfg)}
        card = Card("Table QA on HiTab", ["Metrics:", "", *lines])
        headline = {f"{split}_accuracy": s["accuracy"] for split, s in mine.items()}
        return Scored(systems, metrics, records, {"systems": {"model": mine}}, card,
                      f"HiTab {', '.join(mine)}", headline)  # fmt: skip

    def report(self, out: Path, scored: Scored, console: Console) -> None:
        show_outputs(out, scored.value, console)
