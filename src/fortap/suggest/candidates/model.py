"""Model candidates: a fine-tuned formula-prediction model's ranked formulas for the target cell.

The suggestion engine reads whole sheets; the model reads one table, as `fortap ingest` and
`fortap finetune formula-prediction` see it. So the target's sheet is cut into table regions
with the project's detector (`fortap.table.regions.find_regions`, once per sheet on the sheet
as read, kept on the `BookContext`: only where a table ends may depend on a hidden cell being
filled), and the region holding the target is built into a `Table` with its header rows,
columns and trees (`fortap.table.build_table`) from a copy of the region in which the hidden
cells (in the new-formula setting the target's dragged block) are empty but keep their
formatting, and the target is what fine-tuning shows of a target without its gold (a formula
cell of kind number, its own style, no value and no formula text): on the cells fine-tuning
saw, the input is the same, token for token and format for format. An empty target within
`REACH` rows below or columns right of a region (a total row or column not written yet) joins
that region; a target in no region and beside none (or past the first 256 rows or columns of a
long table, where the detector cuts it) gets no model candidates.

The example is the fine-tuning one without its gold (`examples.prediction_input`), built with
the `SerializeConfig` saved beside the model (`inputs.json`; the run default of 128 tokens for
folders saved before it existed), so it is in the model's own setting:

- *paper* (other formula cells shown by value): the header cells plus the target's row and
  column, the target as `[SEP] [FORMULA]`; beam search gives up to `DecodeConfig.top_k`
  sketches with their pointed cells;
- *sheet* (other formulas shown as their tokens, cut as fine-tuning cuts them): a model with a
  copy head also scores copying each shown formula, moved as Excel's fill moves it
  (`copies.copy_targets`, with no gold), and copies and written formulas are ranked by one
  probability (`evaluate.ranked_at`, as `fortap evaluate` ranks them). The hidden cells are
  empty, so the target's own formula (and in the new-formula setting its dragged block) is
  never shown or copied.

A written entry becomes Excel text through `formula.from_sketch.formula_of_sketch` with A1
references at the cells' sheet coordinates (areas written top-left first); a copy is the filled
formula's text. Both are printed as every source prints. An entry is **dropped** when its sketch
holds a placeholder the 41-token vocabulary cannot fill in (`<num>`, `"<text>"`, `<bool>`
constants, `[UNKOP]`), when it has no reading as a formula, when its text does not parse back
(`parse_formula`), or when an area of it covers the target (a circular formula): what is left
are formulas Excel accepts as they are. The reason names the rank, counted before dropping
("model (beam rank 2)", or for a sheet-setting model "model (copy of D4, rank 1)" and "model
(rank 2)"); the features carry it and the log-probabilities, all named `model_*`: a formula
another source proposes too takes them into that source's candidate, where a ranker trained
without the model ignores them (features such as `land_*` would change what it sees of that
candidate, so the model source adds none).

`ModelSource.load` reads the model once (safetensors and JSON only: nothing is unpickled); a
folder that is not a model gives one `FortapError`. Per call: one table build, one encoder pass
over at most `max_seq_len` tokens, a beam of 5 and, with a copy head, one score per shown
formula (`bench/suggest_model.py` measures it).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fortap.errors import FortapError
from fortap.suggest.context import BookContext, Place, Target

if TYPE_CHECKING:
    from fortap.tasks.formula_prediction.decoding import DecodeConfig
    from fortap.tasks.formula_prediction.examples import FormulaExamplesConfig
    from fortap.tasks.formula_prediction.model import FormulaPredictionModel
    from fortap.text.tokenizer import Tokenizer

REACH = 2  # an empty target this many rows below / columns right of a table joins it
# The target as fine-tuning shows its targets, minus what the gold gives: a formula cell (the
# format vector's formula flag) of kind number (most targets' kind; constant, so it tells
# nothing) with its own style, whose formula text and value are never read (`[FORMULA]` tag).
UNKNOWN_FORMULA = "="
TARGET_KIND = "number"
MODEL_FILES = ("decoder.json", "decoder.safetensors", "encoder/config.json")


@dataclass
class ModelSource:
    """A formula-prediction model loaded once, with its tokenizer and input settings."""

    folder: Path
    model: FormulaPredictionModel  # in eval mode
    tokenizer: Tokenizer
    examples: FormulaExamplesConfig  # how the target's input is built
    decoding: DecodeConfig  # the beam search

    @classmethod
    def load(cls, folder: str | Path, beam: int = 5) -> ModelSource:
        """The model in `folder` (what `fortap finetune formula-prediction -o OUT` writes in
        `OUT/model`; `OUT` itself is accepted too); `FortapError` when it is not one."""
        path = model_folder(Path(folder))
        return _load(str(path.resolve()), _stamp(path), beam)

    @property
    def sheet_setting(self) -> bool:
        """A sheet-setting model: the other formulas are shown to it as their tokens."""
        return self.examples.setting == "sheet"

    def candidates(self, ctx: BookContext, target: Target, hidden: frozenset[Place]) -> list:
        """The model's `Candidate`s for `target`, best first (see the module doc)."""
        import torch

        from fortap.encoding.collate import collate
        from fortap.tasks.formula_prediction.evaluate import ranked_at

        found = self.example(ctx, target, hidden)
        if found is None:
            return []
        example, index = found
        batch = collate([example])
        ranked = ranked_at(self.model, [example], batch, torch.tensor([index]), self.decoding)[0]
        out = []
        for rank, (guess, info) in enumerate(ranked, start=1):
            cand = self._candidate(target, guess, info, rank)
            if cand is not None:
                out.append(cand)
        return out

    def example(self, ctx: BookContext, target: Target, hidden: frozenset[Place]):
        """(the target's `Example`, the target's 0-based cell index in it); None when the
        target is in no table or alone does not fit. The example's `targets[FP_KEY]` holds the
        table's sheet (top, left) as `origin` and, for a sheet-setting model, the copies of the
        shown formulas (`copies.copy_targets`, without a gold)."""
        from fortap.formula.table_formulas import parse_table_formulas
        from fortap.tasks.formula_prediction.copies import copy_targets
        from fortap.tasks.formula_prediction.examples import FP_KEY, prediction_input

        table = table_at(ctx, target, hidden | {(target.sheet, target.row, target.col)})
        if table is None:
            return None
        top, left = table.region.top, table.region.left
        rc = (target.row - top, target.col - left)
        cells = parse_table_formulas(table) if self.sheet_setting else None
        example = prediction_input(table, rc, self.tokenizer, self.examples, cells)
        if example is None:
            return None
        index = next(k for k, at in enumerate(example.cell_coords) if tuple(at) == rc)
        example.targets[FP_KEY] = {"origin": [top, left]}
        if cells is not None and self.model.decoder.copy_head is not None:
            example.targets[FP_KEY]["copies"] = copy_targets(table, rc, example, cells, None)
        return example, index

    def _candidate(self, target: Target, guess, info: dict, rank: int):
        from fortap.formula import parse_formula
        from fortap.formula.from_sketch import formula_text
        from fortap.formula.printer import to_text
        from fortap.formula.references import refers_to
        from fortap.suggest.candidates import Candidate
        from fortap.tasks.formula_prediction.evaluate import has_formula

        copied = str(info.get("source", "")).startswith("copy:")
        if not copied and not has_formula(guess):
            return None
        try:
            text = info["formula"] if copied else formula_text(guess.sketch, list(guess.ranges))
            parsed = parse_formula(text, target.sheet, (target.row, target.col))
        except FortapError:
            return None
        if refers_to(parsed.ast, (target.row, target.col), target.sheet):
            return None  # a reference to the target: a circular formula
        feats = {
            "model_rank": float(rank),
            "model_logp": float(info.get("logp", info.get("score", 0.0))),
            "model_range_logp": float(info.get("range_score", 0.0)),
        }
        what = f"copy of {info['source'][5:]}, " if copied else ""
        reason = f"model ({what}{'rank' if self.sheet_setting else 'beam rank'} {rank})"
        return Candidate(to_text(parsed.ast), "model", reason, feats)


def model_folder(folder: Path) -> Path:
    """`folder`, or `folder/model` when `folder` is a fine-tuning run's output; `FortapError`
    naming what is missing otherwise."""
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
def _load(folder: str, stamp: tuple[int, ...], beam: int) -> ModelSource:
    """One load per folder (and version) per process: several open workbooks (the service)
    share the model's weights. `stamp` only keys the cache."""
    import torch

    from fortap.errors import CheckpointError
    from fortap.tasks.formula_prediction.checkpoint import load_formula_model, load_inputs
    from fortap.tasks.formula_prediction.config import FPData
    from fortap.tasks.formula_prediction.decoding import DecodeConfig
    from fortap.tasks.formula_prediction.examples import FormulaExamplesConfig, with_serialize
    from fortap.text.tokenizer import Tokenizer

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
    examples = FormulaExamplesConfig()
    if inputs is not None:
        examples = dataclasses.replace(examples, serialize=inputs)
    else:
        examples = with_serialize(examples, max_seq_len=FPData().max_seq_len)
    torch.set_flush_denormal(True)
    return ModelSource(
        Path(folder), model, tokenizer, examples, DecodeConfig(beam=beam, top_k=beam)
    )


def table_at(ctx: BookContext, target: Target, hidden: frozenset[Place]):
    """The `Table` of the region holding `target` (grown to reach it when it lies just beside
    one), built with the `hidden` cells empty (formatting kept) and the target an unknown
    formula cell (see the module doc); None when there is none."""
    from fortap.sheet.model import Cell, Region
    from fortap.table.detect import DEFAULT_TABLES, build_table

    sheet = ctx.sheet(target.sheet).sheet
    found = _regions(ctx, target.sheet)
    at = next((t for t in found if t.region.contains(target.row, target.col)), None)
    region = None if at is None else at.region
    if at is None:
        at = next((t for t in found if _beside(t.region, target)), None)
        if at is None:
            return None
        r = at.region
        region = Region(r.top, r.left, max(r.bottom, target.row), max(r.right, target.col))
    assert region is not None
    cells = dict(_window(sheet, region))
    for name, r, c in hidden:
        if name == target.sheet and region.contains(r, c):
            old = cells.pop((r, c), None)
            if old is not None:
                cells[(r, c)] = Cell(style=old.style)
    style = sheet.cell(target.row, target.col).style
    cells[(target.row, target.col)] = Cell(None, TARGET_KIND, UNKNOWN_FORMULA, style=style)
    masked = dataclasses.replace(sheet, cells=cells)
    return build_table(masked, region, at.context, DEFAULT_TABLES.headers)


def _regions(ctx: BookContext, name: str) -> tuple:
    """The sheet's `TableRegion`s, found once per context."""
    from fortap.table.detect import DEFAULT_TABLES
    from fortap.table.regions import find_regions

    found = ctx.regions.get(name)
    if found is None:
        found = find_regions(ctx.sheet(name).sheet, DEFAULT_TABLES.regions).tables
        ctx.regions[name] = found
    return found


def _beside(region, target: Target) -> bool:
    below = region.left <= target.col <= region.right and 0 < target.row - region.bottom <= REACH
    right = region.top <= target.row <= region.bottom and 0 < target.col - region.right <= REACH
    return below or right


def _window(sheet, region):
    """The non-empty cells of `sheet` inside `region`, by whichever is smaller to scan."""
    if len(sheet.cells) <= region.n_rows * region.n_cols:
        return ((rc, cell) for rc, cell in sheet.cells.items() if region.contains(*rc))
    return (
        ((r, c), sheet.cells[(r, c)])
        for r in range(region.top, region.bottom + 1)
        for c in range(region.left, region.right + 1)
        if (r, c) in sheet.cells
    )
