"""The shared fine-tuning recipe: every task's --lr is its head's peak rate and --encoder-lr
its encoder's, every task takes --device, and no task config redefines a shared field."""

from __future__ import annotations

import dataclasses

import pytest

from fortap.cli import _task_config
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.registry import names, task
from fortap.tasks import recipe
from fortap.training.optim import build_optimizer, set_lr

FINETUNED = ("formula-prediction", "cell-types", "table-qa")
SHARED = {"encoder": recipe.EncoderStart, "optim": recipe.Optim, "training": recipe.Training}


def model_of(name: str, cfg):
    encoder = FortapEncoder(ModelConfig.tiny(hidden_dropout=0.0))
    if name == "formula-prediction":
        from fortap.tasks.formula_prediction.model import FormulaPredictionModel

        return FormulaPredictionModel(encoder, cfg.decoder)
    if name == "cell-types":
        from fortap.tasks.cell_types.model import CellTypeModel

        return CellTypeModel(encoder)
    from fortap.tasks.table_qa.model import TableQAModel

    return TableQAModel(encoder)


@pytest.mark.parametrize("name", FINETUNED)
def test_lr_is_the_heads_and_encoder_lr_the_encoders(name):
    flags = {"lr": 1e-3, "encoder_lr": 1e-5, "device": "cpu"}
    _, cfg = _task_config(name, "finetune", None, [], flags)
    assert cfg.training.device == "cpu" and cfg.training.loop().device == "cpu"
    optim = cfg.optim.optimizer()
    model = model_of(name, cfg)
    optimizer = build_optimizer(model, optim)
    set_lr(optimizer, 1.0)  # the peak: the schedule's value after warm-up
    peak = {id(p): g["lr"] for g in optimizer.param_groups for p in g["params"]}
    encoder = {round(peak[id(p)], 12) for p in model.encoder.parameters()}
    heads = {round(peak[id(p)], 12) for n, p in model.named_parameters() if n[:8] != "encoder."}
    assert encoder == {1e-5} and heads == {1e-3}


@pytest.mark.parametrize("name", FINETUNED)
def test_each_tasks_defaults_are_its_shown_rates(name):
    cfg = task(name).config()
    assert (cfg.optim.lr, cfg.optim.encoder_lr) == recipe.TASK_RATES[name]


def test_no_task_config_redefines_a_shared_field():
    for name in names("finetune"):
        config = task(name).config
        if not dataclasses.is_dataclass(config) or not hasattr(config(), "training"):
            continue
        for section, shared in SHARED.items():
            cls = type(getattr(config(), section))
            assert issubclass(cls, shared), f"{name}: {section} is {cls.__name__}"
            if cls is shared:
                continue
            own = set(vars(cls).get("__annotations__", {}))
            shared_fields = {f.name for f in dataclasses.fields(shared)}
            assert not own & shared_fields, (
                f"{name}: {cls.__name__} redefines {own & shared_fields}"
            )


def test_old_head_lr_key_names_its_new_name():
    from fortap.config import ConfigError

    with pytest.raises(ConfigError, match="optim.head_lr is now optim.lr"):
        _task_config("table-qa", "finetune", None, ["optim.head_lr=1e-3"], {})


def test_a_shipped_encoder_is_taken_by_name():
    start = recipe.EncoderStart("fortap-tiny-1h")
    assert start.folder() == recipe.SHIPPED_ENCODERS / "fortap-tiny-1h"
    encoder = recipe.start_encoder(start, recipe.Training(), vocab_size=100)
    assert encoder.config.hidden == 64
    with pytest.raises(ValueError, match="encoder.name must be one of"):
        recipe.EncoderStart("no-such-encoder")
