"""`TableAnswerer`: a fine-tuned table-QA model as one object, for callers outside the task.

    answerer = TableAnswerer.load("models/table-qa")   # or a finetune run's OUT/model
    found = answerer.answer(table, "What was Ontario's share in 2016?")
    found.op, found.cells, found.run.answer

`load(folder)` reads the folder once (`checkpoint.load_qa_model`, the shared layout of
`tasks.model_folder`); `answer(table, question)` serialises the question with the table as
fine-tuning did and returns the chosen operation, cells and their execution
(`predict.Prediction`); `save(folder, dtype)` writes it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.table.model import Table
from fortap.tasks.table_qa.checkpoint import load_qa_model, save_qa_model
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.inputs import TableCost, qa_example
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.predict import Prediction, predict
from fortap.text.tokenizer import Tokenizer


@dataclass
class TableAnswerer:
    folder: Path
    model: TableQAModel  # in eval mode
    inputs: SerializeConfig  # how a question and its table are serialised
    tokenizer: Tokenizer

    @classmethod
    def load(cls, folder: str | Path) -> TableAnswerer:
        torch.set_flush_denormal(True)
        model, inputs = load_qa_model(folder)
        return cls(Path(folder), model, inputs, Tokenizer())

    def answer(self, table: Table, question: str, paths: HeaderPaths | None = None) -> Prediction:
        """The operation, cells and execution the model chooses for `question` over `table`."""
        paths = paths or HeaderPaths(table)
        cost = TableCost.of(paths, self.tokenizer, self.inputs)
        example = qa_example(cost, question, self.tokenizer, self.inputs)
        return predict(self.model, [example], [paths])[0]

    def save(self, folder: str | Path, dtype: torch.dtype | None = None) -> None:
        save_qa_model(self.model, folder, self.inputs, dtype)
