"""`fortap finetune formula-prediction` and `fortap evaluate formula-prediction`.

`run_finetune` is the one fine-tuning run (`fortap.tasks.run.run`) with formula prediction's
part (`finetune.FormulaFinetune`): tables (Table JSONL from `fortap ingest`, or HiTab JSON)
whose kept formulas become examples split by workbook (`run_data.load_split`), an encoder
(`random`, `minilm`, a pretraining run's `encoder/` folder as `tuta`/`fortap`, or a shipped
one) with a new formula decoder trained on the train split (the run folder `OUT/training/`
holds its checkpoints and `metrics.jsonl`, and a rerun resumes there), evaluated on the test
split beside the rule baseline in the paper setting (no other formula visible) and the sheet
setting (fill from neighbours) and the sketch prior (`compare.py`: pooled and per-workbook
metrics with intervals). `run_evaluate` does the evaluation alone for a saved model. Both
write into `out`: `predictions.jsonl` (one record per test formula, ranked candidates),
`metrics.json` (every system's metrics, the split, the learning curve, the config) and
`report.md` with its PNG plots (`outputs.py`). Under torchrun every rank trains; rank 0 alone
evaluates and writes. The run config is `FormulaRunConfig` (`config.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from fortap.errors import FortapError
from fortap.tasks.formula_prediction.compare import compare
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.examples import SETTING_OF_MODE
from fortap.tasks.formula_prediction.finetune import FormulaFinetune
from fortap.tasks.formula_prediction.outputs import write_outputs
from fortap.tasks.formula_prediction.run_data import (  # noqa: F401  (start_encoder: callers')
    FormulaRun,
    load_split,
    start_encoder,
)
from fortap.tasks.run import run


def run_finetune(
    paths: Sequence[str | Path],
    out: str | Path,
    cfg: FormulaRunConfig | None = None,
    console: Console | None = None,
    stop_at: int | None = None,
) -> FormulaRun | None:
    """Fine-tune and evaluate (see module doc); the model is saved in `out/model/`. `stop_at`
    ends the training at that update as a kill would (checkpoint kept, nothing evaluated);
    returns None then, and on the ranks other than 0 under torchrun."""
    return run(FormulaFinetune(cfg or FormulaRunConfig()), paths, out, console, stop_at)


def run_evaluate(
    paths: Sequence[str | Path],
    out: str | Path,
    cfg: FormulaRunConfig | None = None,
    console: Console | None = None,
) -> FormulaRun:
    """Evaluate the model saved in `cfg.evaluation.model` on the test split of `paths` (same
    split rule and seed as `run_finetune`), beside the rule baseline."""
    import torch

    from fortap.tasks.formula_prediction.checkpoint import load_formula_model, load_inputs

    cfg = cfg or FormulaRunConfig()
    if not cfg.evaluation.model:
        raise FortapError("evaluate formula-prediction needs a model folder (--model OUT/model)")
    torch.set_flush_denormal(True)
    console = console or Console()
    model = load_formula_model(cfg.evaluation.model)
    cfg = with_model_inputs(cfg, load_inputs(cfg.evaluation.model))
    loaded = load_split(paths, cfg)
    tables, split = loaded.tables, loaded.split
    systems, records = compare(model, split["test"], cfg, tables, loaded.formulas, split["train"])
    done = FormulaRun(model, tables, split, systems, records, [loaded.note], loaded.formulas)
    write_outputs(Path(out), done, cfg, [], console)
    return done


def with_model_inputs(cfg: FormulaRunConfig, inputs) -> FormulaRunConfig:
    """`cfg` with the examples a saved model was trained on (its model.json inputs: sequence length
    and the setting, paper or sheet), so that it is evaluated on the inputs it knows; `cfg`
    as it is for a folder saved without them."""
    if inputs is None:
        return cfg
    setting = SETTING_OF_MODE.get(inputs.formula_mode, "paper")
    data = replace(cfg.data, setting=setting, max_seq_len=inputs.max_seq_len)
    return replace(cfg, data=data)
