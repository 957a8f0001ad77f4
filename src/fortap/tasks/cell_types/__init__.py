"""Cell type classification, the paper's third task: the type of every non-empty cell.

Six types (`labels.CELL_TYPES`): metadata, notes, data, left attribute, top attribute and
*derived* (totals, averages, shares: numbers computed from other cells). SAUS
(`../shared/data/saus_ctc`, 220 labelled sheets of 200 .xls files once duplicates are dropped)
stands in for the paper's DeEx, which is not public.

The path, module by module:

- `saus`: a SAUS line -> `Sheet` (numbers, codes, the shared SAUS feature -> `CellStyle`
  mapping), then one `Table` over the whole used range, so titles and notes stay cells;
- `split`: 5 folds grouped by file, written once to `saus_folds.json`;
- `examples`: windows (`encoding.selection.chunk_table`: column bands repeating the left
  headers, row windows repeating the top headers), their targets and the head's extra
  features, and the owner rule that scores each labelled cell once (its first window);
- `model`: a linear head over `EncoderOutput.cell_states` + the extra features,
  class-weighted cross-entropy; `finetune`: through `training.loop.train`, resumable;
- `metrics`: macro-F1 over the six classes pooled per fold, per-class F1, the confusion
  matrix, file-resampling intervals and paired gaps; `baselines`: majority and the forest;
- `features`: each cell's features computed from a `Sheet` (`text_cues`, `layout`, `sums`),
  SAUS's 43 where a sheet has them and fortap's own; `saus_source`: a SAUS sheet as a reader
  gives its source file; `feature_models` and `boosted`: the forest and LightGBM on them;
- `run`: `fortap finetune cell-types` / `fortap evaluate cell-types`, which `boosted_run` takes
  over for `model.kind=boosted` (LightGBM as a model folder, the shipped `models/cell-types`);
- `cell_typer`: `CellTyper.load`, the one door into a model folder of either kind
  (`encoder_typer`, `boosted_typer`); `show`: `fortap cell-types BOOK` types a real sheet,
  prints the grid and writes a PNG, or `--json`.

**Formats.** The encoder reads the 11-dim `encoding.formats.format_vector` of each cell, which
comes from the `CellStyle` that fortap's reader fills from a real workbook; on SAUS,
`saus.saus_style` fills it from the features that mean the same thing (bold, indentation,
centred alignment, a thin top border). `FORMAT_DIM` stays 11, because shards and the shipped
encoders depend on it; indentation, alignment and leading spaces reach the head as extra
features (`examples.EXTRA_NAMES`), from the same `CellStyle` on both sides.

**What a user's sheet adds that SAUS lacks.** SAUS has no formulas and no merged regions
(its `is_aggr_formula` feature is the .xls numeric-cell flag, not a formula flag). A workbook read
by fortap has both: its formula cells set the format vector's formula bit (dim 7), and a
merged region sets the merge spans (dims 0-1) of every cell in it. A model trained on SAUS has
seen those inputs only at their SAUS values (formula bit 0, spans 1x1), so on a user's sheet
they are inputs it has not learned to read: a sheet's own formulas are a strong signal for
*derived* (a total is usually `=SUM(...)`), which this model cannot use until it is trained on
sheets that have them. Fill and font colours, which SAUS gives only as palette slots, are read
from a user's sheet but were white and black (the format vector's defaults) in training, and
SAUS never sets a bottom, left or right border. So `fortap cell-types` gives a SAUS-trained
model the view of a user's sheet that SAUS would give (`saus.as_saus`): bold, indent,
alignment and the top border kept, formulas (their values kept), merges, other borders and
colours left out. A model trained on sheets with formulas and merges would read them instead.
"""
