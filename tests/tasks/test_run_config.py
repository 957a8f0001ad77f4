"""Fine-tuning run configs compose as pretraining's: defaults, a preset, `--set`, CLI flags."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.config import ConfigError
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.run_config import load_run_config


def test_defaults_are_the_old_hard_coded_run():
    cfg = load_run_config(FormulaRunConfig)
    assert (cfg.decoder.layers, cfg.decoder.heads, cfg.decoder.dropout) == (1, 2, 0.0)
    assert (cfg.optim.warmup, cfg.evaluation.max_dev, cfg.training.steps) == (0.05, 64, 200)
    loop = cfg.training.loop()
    assert (loop.eval_every, loop.keep_best) == (100, "eval/loss/formula")
    assert cfg.training.warmup_updates == 50  # steps // 4
    optim = cfg.optim.optimizer()
    assert (optim.lr, optim.encoder_lr, optim.weight_decay) == (1e-3, 1e-3, 0.01)


def test_the_paper_preset_and_overrides_compose_in_order():
    cfg = load_run_config(
        FormulaRunConfig, "fp_paper", ["training.steps=7", "decoder.dropout=0.0",
                                        "evaluation.curve=[0.2, 0.5]", "optim.encoder_lr=1e-4"],
    )  # fmt: skip
    assert (cfg.decoder.layers, cfg.decoder.heads, cfg.decoder.dropout) == (3, 8, 0.0)
    assert cfg.training.steps == 7 and cfg.training.loop().eval_every == 3
    assert cfg.evaluation.curve == (0.2, 0.5)
    assert (cfg.optim.optimizer().lr, cfg.optim.optimizer().encoder_lr) == (1e-3, 1e-4)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("decoder.layerz=3", "--set decoder.layerz=3: unknown key 'decoder.layerz'"),
        ("decodr.layers=3", "unknown key 'decodr'"),
        ("training.steps=many", "bad value for 'training.steps'"),
        ("training.steps=2.5", "bad value for 'training.steps': expected an integer"),
        ("decoder.heads=0", "decoder: DecoderConfig.heads must be >= 1, got 0"),
        ("encoder.name=bert", "encoder: encoder.name must be one of"),
        ("training.sketch_warmup=2", "training: FPTraining.sketch_warmup must be in [0, 1]"),
        ("steps", "is not KEY=VALUE"),
    ],
)
def test_bad_keys_and_values_name_the_key(override, message):
    with pytest.raises(ConfigError) as err:
        load_run_config(FormulaRunConfig, None, [override])
    assert message in str(err.value)


def test_an_unknown_preset_lists_the_presets():
    with pytest.raises(ConfigError, match="unknown config preset 'fp_nope'.*fp_paper"):
        load_run_config(FormulaRunConfig, "fp_nope")


def test_the_cli_reports_a_bad_key_in_one_line(tmp_path):
    args = ["finetune", "formula-prediction", str(tmp_path), "-o", str(tmp_path / "o")]
    done = CliRunner().invoke(app, [*args, "--set", "decoder.layerz=3"])
    assert done.exit_code == 1
    assert "unknown key 'decoder.layerz'" in done.output and "Traceback" not in done.output
    bad_flag = CliRunner().invoke(app, [*args, "--steps", "0"])
    assert bad_flag.exit_code == 1 and "TrainConfig.steps must be >= 1" in bad_flag.output
