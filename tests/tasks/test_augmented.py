"""Per-draw augmentation of training examples: traced back to their table, deterministic in
(seed, draw), the example as built when nothing is drawn, and a run with it resumes exactly."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fortap.config import ConfigError
from fortap.tasks.formula_prediction.augmented import Augmenter, target_of
from fortap.tasks.formula_prediction.config import (
    FormulaRunConfig,
    FPAugment,
    FPData,
    FPTraining,
)
from fortap.tasks.formula_prediction.examples import (
    FP_KEY,
    FormulaExamplesConfig,
    formula_examples,
    parse_tables,
    place_of,
)
from fortap.tasks.formula_prediction.run import run_finetune
from fortap.tasks.run_config import load_run_config

from .sales_table import sales_table
from .test_finetune_resume import tables_file, tensors

ALL = FPAugment(synonyms=1.0, numbers=1.0, insert=1.0, transpose=1.0)


def augmenter(tokenizer, cfg: FPAugment, seed: int = 0):
    table = sales_table()
    formulas = parse_tables([table])
    examples = formula_examples(
        table, tokenizer, FormulaExamplesConfig(), formulas[place_of(table)]
    )
    return Augmenter(examples, [table], formulas, tokenizer, FormulaExamplesConfig(), cfg, seed)


def test_every_example_leads_back_to_its_table_cell_and_formula(tokenizer):
    aug = augmenter(tokenizer, ALL)
    assert len(aug.examples) >= 10 and all(t is not None for t in aug.targets)
    for example, target in zip(aug.examples, aug.targets, strict=True):
        assert target.formula.text == example.meta["formula"]
        assert target_of(example, {}, {}) is None  # an unknown table: not augmented


def test_a_draw_is_a_function_of_seed_and_serial(tokenizer):
    aug, other = augmenter(tokenizer, ALL), augmenter(tokenizer, ALL)
    for index in range(len(aug.examples)):
        a, b = aug(index, 17), other(index, 17)
        assert (a.token_ids, a.targets, a.rows, a.cols) == (b.token_ids, b.targets, b.rows, b.cols)
        assert {"synonyms", "insert", "transpose"} <= set(a.meta["augmented"])  # always apply here
    firsts = {tuple(aug(0, serial).token_ids) for serial in range(8)}
    assert len(firsts) > 1  # other draws, other surfaces
    seeded = augmenter(tokenizer, ALL, seed=1)
    assert any(seeded(0, s).token_ids != aug(0, s).token_ids for s in range(4))
    assert aug.counts["transpose"] == aug.counts["draws"] - aug.counts["too long"]


def test_the_sketch_never_changes_and_nothing_drawn_is_the_example_as_built(tokenizer):
    aug = augmenter(tokenizer, ALL)
    for index, example in enumerate(aug.examples):
        for serial in range(5):
            new = aug(index, serial).targets[FP_KEY]
            assert new["sketch"] == example.targets[FP_KEY]["sketch"]
            assert sum(p != 0 for p in new["pointers"]) == sum(
                p != 0 for p in example.targets[FP_KEY]["pointers"]
            )
    none = augmenter(tokenizer, FPAugment(synonyms=0.5))
    drawn = [none(0, serial) for serial in range(40)]
    kept = [d for d in drawn if "augmented" not in d.meta]
    assert 5 < len(kept) < 35 and all(d is none.examples[0] for d in kept)


def test_augment_config_keys_and_bad_probabilities():
    cfg = load_run_config(FormulaRunConfig, None, ["data.augment.synonyms=0.5",
                                                   "data.augment.transpose=1"])  # fmt: skip
    assert cfg.data.augment == FPAugment(synonyms=0.5, transpose=1.0) and cfg.data.augment.active
    assert not FormulaRunConfig().data.augment.active  # off by default
    with pytest.raises(ConfigError, match=r"data.augment: FPAugment.numbers must be a probab"):
        load_run_config(FormulaRunConfig, None, ["data.augment.numbers=1.5"])


def test_an_augmented_run_stopped_mid_way_resumes_to_the_same_parameters(tmp_path):
    cfg = FormulaRunConfig(
        data=FPData(augment=FPAugment(synonyms=0.5, numbers=0.5, insert=0.5, transpose=0.5)),
        training=FPTraining(steps=6, batch_size=4, dev_checks=2, save_every=2, log_every=1,
                            progress=False),
    )  # fmt: skip
    tables = tables_file(tmp_path)
    assert run_finetune([tables], tmp_path / "whole", cfg) is not None
    assert run_finetune([tables], tmp_path / "killed", cfg, stop_at=3) is None
    assert run_finetune([tables], tmp_path / "killed", cfg) is not None
    a, b = tensors(tmp_path / "whole" / "model"), tensors(tmp_path / "killed" / "model")
    assert a.keys() == b.keys() and all(a[k].equal(b[k]) for k in a)
    counts = json.loads((tmp_path / "whole" / "training" / "augment_counts.json").read_text())
    assert counts["draws"] == 24 and counts.get("insert", 0) > 0
    plain = dataclasses.replace(cfg, data=FPData())
    assert run_finetune([tables], tmp_path / "plain", plain) is not None
    c = tensors(tmp_path / "plain" / "model")
    assert any(not a[k].equal(c[k]) for k in a)  # augmentation changed what was learned
