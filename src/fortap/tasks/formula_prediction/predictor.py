"""`FormulaPredictor`: a fine-tuned formula-prediction model as one object, for callers outside
the task (the suggestion engine's model source, the release of a model).

    predictor = FormulaPredictor.load("OUT/model")
    for p in predictor.predict(table, (5, 3), k=5):
        print(p.rank, p.formula, p.logp)

`load(folder)` reads the model once per folder (and version) per process (safetensors and JSON
only: nothing is unpickled; the layout of `tasks.model_folder`) with the `SerializeConfig` saved
in it, so inputs are built in the model's own setting; a folder that is not a model gives one `FortapError`. `save(folder, dtype)` writes
it back (`checkpoint.save_formula_model`), e.g. narrowed to bfloat16 for a release.

`predict(table, cell, k)` asks for the formula of table cell `cell` (0-based, table-relative):
the example is the fine-tuning one without its gold (`examples.prediction_input`, so the
caller gives the table as fine-tuning would see the cell: its own value and formula unknown).
A paper-setting model (other formula cells shown by value) gives beam search's sketches with
their pointed cells; a sheet-setting model with a copy head also scores copying each shown
formula, moved as Excel's fill moves it (`copies.copy_targets`, with no gold), and copies and
written formulas are ranked by one probability (`evaluate.ranked_at`, as `fortap evaluate`
ranks them).

A written entry becomes Excel text through `formula.from_sketch.formula_text` with A1
references at the sheet coordinates of the table (areas written top-left first); a copy is the
filled formula's text; both are printed by `formula.printer.to_text`. An entry is **dropped**
when its sketch holds a placeholder the 41-token vocabulary cannot fill in (`<num>`,
`"<text>"`, `<bool>` constants, `[UNKOP]`), when it has no reading as a formula, when its text
does not parse back (`parse_formula`), or when an area of it covers the cell itself (a circular
formula): what is left are formulas Excel accepts as they are, each with its rank counted
before dropping.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path

import torch

from fortap.encoding.collate import collate
from fortap.encoding.example import Example
from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError, FortapError
from fortap.formula import parse_formula
from fortap.formula.from_sketch import formula_text
from fortap.formula.printer import to_text
from fortap.formula.references import refers_to
from fortap.formula.table_formulas import parse_table_formulas
from fortap.table.model import Table
from fortap.tasks.formula_prediction.checkpoint import (
    load_formula_model,
    load_inputs,
    save_formula_model,
)
from fortap.tasks.formula_prediction.copies import copy_targets
from fortap.tasks.formula_prediction.decoding import DecodeConfig
from fortap.tasks.formula_prediction.evaluate import has_formula, ranked_at
from fortap.tasks.formula_prediction.examples import (
    FP_KEY,
    FormulaExamplesConfig,
    prediction_input,
)
from fortap.tasks.formula_prediction.metrics import Guess
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.text.tokenizer import Tokenizer

RC = tuple[int, int]
MODEL_FILES = ("model.json", "head.safetensors", "encoder/config.json")  # `tasks.model_folder`
COPY = "copy:"  # the `source` of a ranked copy: "copy:D4"


@dataclass(frozen=True)
class Prediction:
    """One formula the model proposes for a cell, best first."""

    formula: str  # Excel A1 text at the sheet's coordinates, printed by `to_text`
    rank: int  # 1-based place in the model's ranking, counted before unusable entries dropped
    logp: float  # log-probability of the formula (a copy's, or the written sketch's)
    range_logp: float  # log-probability of a written formula's pointers (0 for a copy)
    copy_of: str | None = None  # A1 of the shown formula it copies; None when written


@dataclass
class FormulaPredictor:
    """A formula-prediction model loaded once, with its tokenizer and input settings."""

    folder: Path
    model: FormulaPredictionModel  # in eval mode
    tokenizer: Tokenizer
    examples: FormulaExamplesConfig  # how a cell's input is built
    decoding: DecodeConfig  # the beam search
    inputs: SerializeConfig | None = None  # the folder's inputs (`model.json`) as read

    @classmethod
    def load(cls, folder: str | Path, beam: int = 5) -> FormulaPredictor:
        """The model in `folder` (what `fortap finetune formula-prediction -o OUT` writes in
        `OUT/model`; `OUT` itself is accepted too); `FortapError` when it is not one."""
        path = model_folder(Path(folder))
        return _load(str(path.resolve()), _stamp(path), beam)

    @property
    def sheet_setting(self) -> bool:
        """A sheet-setting model: the other formulas are shown to it as their tokens."""
        return self.examples.setting == "sheet"

    def save(self, folder: str | Path, dtype: torch.dtype | None = None) -> None:
        """Write the model into `folder` with the input settings it was loaded with; `dtype`
        (`torch.bfloat16` for a release) narrows the float32 weights, which loading widens."""
        save_formula_model(self.model, folder, self.inputs, dtype)

    def example(self, table: Table, cell: RC) -> tuple[Example, int] | None:
        """(the input of table cell `cell`, its 0-based cell index in it); None when the cell
        alone does not fit. `targets[FP_KEY]` holds the table's sheet (top, left) as `origin`
        and, for a sheet-setting model with a copy head, the copies of the shown formulas
        (`copies.copy_targets`, without a gold)."""
        cells = parse_table_formulas(table) if self.sheet_setting else None
        example = prediction_input(table, cell, self.tokenizer, self.examples, cells)
        if example is None:
            return None
        index = next(k for k, at in enumerate(example.cell_coords) if tuple(at) == cell)
        example.targets[FP_KEY] = {"origin": [table.region.top, table.region.left]}
        if cells is not None and self.model.decoder.copy_head is not None:
            example.targets[FP_KEY]["copies"] = copy_targets(table, cell, example, cells, None)
        return example, index

    def predict(self, table: Table, cell: RC, k: int = 5) -> list[Prediction]:
        """At most `k` formulas for table cell `cell`, best first (see the module doc)."""
        found = self.example(table, cell)
        if found is None:
            return []
        example, index = found
        cfg = dataclasses.replace(self.decoding, top_k=k)
        batch = collate([example])
        ranked = ranked_at(self.model, [example], batch, torch.tensor([index]), cfg)[0]
        at = (table.region.top + cell[0], table.region.left + cell[1])
        kept = (prediction_of(g, info, rank, table.sheet, at)
                for rank, (g, info) in enumerate(ranked, start=1))  # fmt: skip
        return [p for p in kept if p is not None]


def prediction_of(guess: Guess, info: dict, rank: int, sheet: str, at: RC) -> Prediction | None:
    """A ranked entry (`ranked_at`: its guess and record fields) as a formula entered at sheet
    cell `at` of `sheet`; None when it is not one Excel accepts as it is (module doc)."""
    copied = str(info.get("source", "")).startswith(COPY)
    if not copied and not has_formula(guess):
        return None
    try:
        text = info["formula"] if copied else formula_text(guess.sketch, list(guess.ranges))
        parsed = parse_formula(text, sheet, at)
    except FortapError:
        return None
    if refers_to(parsed.ast, at, sheet):
        return None  # a reference to the cell itself: a circular formula
    return Prediction(
        to_text(parsed.ast),
        rank,
        float(info.get("logp", info.get("score", 0.0))),
        float(info.get("range_score", 0.0)),
        info["source"][len(COPY) :] if copied else None,
    )


def model_folder(folder: Path) -> Path:
    """`folder`, or `folder/model` when `folder` is a fine-tuning run's output; `FortapError`
    naming what is missing otherwise (worded for the `--model` option that names it)."""
    if not folder.exists():
        raise FortapError(f"--model {folder}: no such folder")
    if not folder.is_dir():
        raise FortapError(f"--model {folder}: not a folder (give a fine-tuned model folder)")
    if not (folder / MODEL_FILES[0]).is_file() and (folder / "model" / MODEL_FILES[0]).is_file():
        folder = folder / "model"
    missing = [name for name in MODEL_FILES if not (folder / name).is_file()]
    if missing:
        raise FortapError(
            f"--model {folder}: not a formula-prediction model folder (missing "
            f"{', '.join(missing)}; `fortap finetune formula-prediction -o OUT` writes one "
            "in OUT/model)"
        )
    return folder


def _stamp(folder: Path) -> tuple[int, ...]:
    """Modification times of the model's files: a folder written again is loaded again."""
    return tuple((folder / name).stat().st_mtime_ns for name in MODEL_FILES)


@functools.lru_cache(maxsize=2)
def _load(folder: str, stamp: tuple[int, ...], beam: int) -> FormulaPredictor:
    """One load per folder (and version) per process: several open workbooks (the service)
    share the model's weights. `stamp` only keys the cache."""
    try:
        model = load_formula_model(folder)
        inputs = load_inputs(folder)
    except (CheckpointError, OSError, ValueError, TypeError, RuntimeError) as err:
        raise FortapError(f"--model {folder}: cannot load the model: {err}") from None
    tokenizer = Tokenizer()
    vocab = model.encoder.config.vocab_size
    if vocab < tokenizer.vocab_size:
        raise FortapError(
            f"--model {folder}: its encoder has {vocab} token ids, the tokenizer "
            f"{tokenizer.vocab_size}: not a model fortap fine-tuned"
        )
    examples = dataclasses.replace(FormulaExamplesConfig(), serialize=inputs)
    torch.set_flush_denormal(True)
    decoding = DecodeConfig(beam=beam, top_k=beam)
    return FormulaPredictor(Path(folder), model, tokenizer, examples, decoding, inputs)
