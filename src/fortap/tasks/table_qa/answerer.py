"""`TableAnswerer`: a fine-tuned table-QA model as one object, for callers outside the task.

    answerer = TableAnswerer.load("models/table-qa")   # or a finetune run's OUT/model
    found = answerer.answer(table, "What was Ontario's share in 2016?")
    found.op, found.cells, found.run.answer

`load(folder)` reads the folder once (`checkpoint.load_qa_model`, the shared layout of
`tasks.model_folder`), with its reranker when the folder holds one (`rerank.Reranker`);
`answer(table, question)` serialises the question with the table as fine-tuning did and returns
the chosen operation, cells and their execution (`predict.Prediction`); `ranked` gives the best
answers with their calibrated confidence (None without a reranker); `save(folder, dtype)`
writes it back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.table.model import Table
from fortap.tasks import model_folder
from fortap.tasks.table_qa.checkpoint import TASK, load_qa_model, save_qa_model
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.inputs import TableCost, qa_example
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.operations import OPS
from fortap.tasks.table_qa.predict import Prediction, head_scores, predict
from fortap.tasks.table_qa.programs import candidates
from fortap.tasks.table_qa.rerank import Reranker
from fortap.text.tokenizer import Tokenizer


@dataclass
class TableAnswerer:
    folder: Path
    model: TableQAModel  # in eval mode
    inputs: SerializeConfig  # how a question and its table are serialised
    tokenizer: Tokenizer
    reranker: Reranker | None = None  # over the candidate programs (`programs`)

    @classmethod
    def load(cls, folder: str | Path) -> TableAnswerer:
        torch.set_flush_denormal(True)
        model, inputs = load_qa_model(folder)
        record = model_folder.read_meta(folder, TASK, tuple(OPS)).head.get("rerank")
        reranker = Reranker.load(folder, record) if record else None
        return cls(Path(folder), model, inputs, Tokenizer(), reranker)

    def answer(self, table: Table, question: str, paths: HeaderPaths | None = None) -> Prediction:
        """The operation, cells and execution the model chooses for `question` over `table`."""
        return self.ranked(table, question, paths, 1)[0][0]

    def ranked(self, table: Table, question: str, paths: HeaderPaths | None = None,
               most: int = 2) -> list[tuple[Prediction, float | None]]:  # fmt: skip
        """The `most` best answers, best first, each with its calibrated confidence: the
        reranked candidate programs, or without a reranker the decoded answer alone (None)."""
        paths = paths or HeaderPaths(table)
        cost = TableCost.of(paths, self.tokenizer, self.inputs)
        example = qa_example(cost, question, self.tokenizer, self.inputs)
        if self.reranker is None:
            return [(predict(self.model, [example], [paths])[0], None)]
        scores = head_scores(self.model, [example])[0]
        found = self.reranker.ranked(candidates(scores, example, paths, self.model.decoding))
        if not found:
            return [(predict(self.model, [example], [paths])[0], None)]
        return [(Prediction(c.op, c.cells, c.run), self.reranker.confidence(raw))
                for c, raw in found[:most]]  # fmt: skip

    def save(self, folder: str | Path, dtype: torch.dtype | None = None) -> None:
        save_qa_model(self.model, folder, self.inputs, dtype)
        if self.reranker is not None:
            write_rerank(folder, self.reranker)


def write_rerank(folder: str | Path, reranker: Reranker, scores: dict | None = None) -> None:
    """The reranker into a model folder: its booster file, its record in model.json's head,
    and with `scores` (its dev accuracy, `dev`, which `fortap check-model` re-scores, and what
    else was measured) metrics.json's `rerank` record."""
    path = Path(folder) / model_folder.MODEL_JSON
    record = json.loads(path.read_text(encoding="utf-8"))
    record.setdefault("head", {})["rerank"] = reranker.save(folder)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    if scores is not None:
        metrics = model_folder.read_metrics(folder)
        metrics["rerank"] = scores
        model_folder.write_metrics(folder, metrics)
