"""`bench/pretrain_throughput.py`: the recipe it times is the GPU pair's ForTaP run, its probe
times a pipeline in a fresh process with the stages that add up to it, and its targets are
the ratios of the issue."""

from __future__ import annotations

from bench import pretrain_throughput as bench
from fortap.training.run_config import load_config
from helpers.paths import REPO


def test_the_recipe_is_the_pairs_fortap_run():
    cfg = load_config("small", [*bench.RECIPE, *bench._objective_overrides()])
    assert set(cfg.use) == {"mlm", "cell_cloze", "table_context", "nrp", "ncp", "formula_mlm"}
    assert cfg.objectives["nrp"].weight == cfg.objectives["ncp"].weight == 4
    assert cfg.objectives["mlm"].weight == 0.3 and cfg.data.formula_samples_only
    assert cfg.training.batch_size == 32 and cfg.optim.freeze_word_embeddings


def test_the_probe_times_the_pipeline_and_its_stages(tiny_corpus):
    recipe = [*bench.RECIPE, *bench._objective_overrides(), "data.eval_samples=8"]
    items = bench._train_items(tiny_corpus, recipe)
    got = bench._probe(REPO / "src", tiny_corpus, 2, items, recipe, stages=True)
    assert got["samples"] == 64 and got["wall"] > 0 and got["cpu"] > 0
    stages = got["stages"]
    assert {"nrp", "cell_cloze", "mlm", "collate", "rest", "decode (once)"} <= set(stages)
    assert all(v > 0 for k, v in stages.items() if k != "rest")


def test_targets_are_the_ratios_of_the_rows():
    rows = [bench._row("pipeline old (parent commit)", "core", 100, 1, cpu_rate=200),
            bench._row("pipeline new", "core", 900, 1, cpu_rate=1200)]  # fmt: skip
    targets = bench._targets(rows, {1: 1000, 2: 1800}, 2, 0.0, 0.0)
    assert [(t["value"], t["met"]) for t in targets] == [(6.0, True), (1.8, True)]
