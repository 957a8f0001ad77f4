"""`fortap pretrain` end to end on a few HiTab tables with the tiny preset: losses fall."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fortap.cli import app
from fortap.model.encoder import FortapEncoder


def test_pretrain_cli_on_hitab_tables_losses_fall(data_dir, tmp_path):
    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:12]
    args = ["pretrain", "--config", "tiny", "--objectives", "mlm,cell_cloze,table_context"]
    for path in files:
        args += ["--tables", str(path)]
    args += ["--out", str(tmp_path / "run"), "--steps", "40", "--no-progress"]
    args += ["--set", "serialize.max_seq_len=64", "--set", "data.max_tokens=96"]
    args += ["--set", "training.batch_size=4", "--set", "data.eval_tables=2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [
        json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    ]
    train = [e for e in lines if "loss" in e]
    evals = [e for e in lines if "eval/loss" in e]
    assert [e["step"] for e in train] == [5, 10, 15, 20, 25, 30, 35, 40]
    assert train[-1]["loss"] < train[0]["loss"]
    assert train[-1]["loss/mlm"] < train[0]["loss/mlm"]
    assert {"loss/cell_cloze", "loss/table_context", "acc/mlm", "lr", "tokens_per_s"} <= set(
        train[0]
    )
    assert [e["step"] for e in evals] == [30, 40]
    assert (tmp_path / "run" / "checkpoints" / "step-00000040" / "trainer.json").is_file()
    encoder = FortapEncoder.from_pretrained(tmp_path / "run" / "encoder")
    assert encoder.config.hidden == 64
    print("pretrain losses:", [round(e["loss"], 3) for e in train])


def test_pretrain_cli_rejects_an_unknown_objective(data_dir, tmp_path):
    path = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[0]
    args = ["pretrain", "--tables", str(path), "--out", str(tmp_path), "--objectives", "mlm,nope"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert "objectives.use names 'nope'" in result.output


def test_examples_from_real_tables_fit_the_budget(data_dir):
    import random

    from fortap.table.io import read_tables
    from fortap.training.pretrain import setup_pretrain
    from fortap.training.run_config import load_config

    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:30]
    cfg = load_config("tiny", ["data.eval_tables=2"])
    setup = setup_pretrain(cfg, read_tables(files))
    rng = random.Random(0)
    lengths = []
    for table in setup.stream.items:
        example = setup.stream.make(table, rng)
        assert example is not None
        assert len(example) <= cfg.data.max_tokens
        assert set(example.targets) == {"mlm", "cell_cloze", "table_context"}
        lengths.append(len(example))
    assert max(lengths) > cfg.serialize.max_seq_len  # appended items go past the table budget


def test_pretrain_cli_on_a_corpus_evaluates_every_objective(tmp_path, data_dir):
    """`--corpus`: the train split trains, fixed dev samples are evaluated with each metric."""
    import json as _json

    from fortap.corpus.build import run_build_corpus
    from fortap.corpus.split import book_key
    from fortap.ingest import run_ingest

    books = {"summ0602.xlsx": "train", "FinHrdshp_Wrksht.xlsx": "dev"}
    run_ingest([data_dir / "euses_excelint" / "subjects_xlsx" / b for b in books], tmp_path / "t",
               progress=False)  # fmt: skip
    (tmp_path / "s.json").write_text(_json.dumps({book_key(b): s for b, s in books.items()}))
    run_build_corpus([tmp_path / "t" / "tables.jsonl"], tmp_path / "c", progress=False,
                     split_overrides=tmp_path / "s.json")  # fmt: skip
    args = ["pretrain", "--corpus", str(tmp_path / "c"), "--out", str(tmp_path / "run")]
    args += ["--config", "tiny", "--objectives", "mlm,cell_cloze,nrp,ncp,formula_mlm"]
    args += ["--steps", "4", "--no-progress", "--set", "training.eval_every=2"]
    args += ["--set", "training.batch_size=4", "--set", "data.max_tokens=256"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    evals = [e for e in lines if "eval/loss" in e]
    assert [e["step"] for e in evals] == [2, 4]
    for key in ("eval/f1/nrp", "eval/acc/ncp", "eval/acc/formula_mlm", "eval/acc/mlm"):
        assert key in evals[0], key
    assert evals[0]["eval/n/nrp"] == evals[1]["eval/n/nrp"] > 0  # the same fixed dev targets
    assert evals[0]["eval/n/ncp"] == evals[1]["eval/n/ncp"] > 0
    info = json.loads((tmp_path / "run" / "config.json").read_text())
    assert info["corpus"] == str(tmp_path / "c") and info["world"] == 1


def test_pretrain_cli_needs_tables_or_a_corpus(tmp_path):
    result = CliRunner().invoke(app, ["pretrain", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "either --corpus or --tables" in result.output


def test_dev_subset_caps_each_workbook_then_the_total():
    from types import SimpleNamespace

    from fortap.training.pretrain_data import dev_subset
    from fortap.training.run_config import DataConfig

    books = ["big"] * 50 + ["mid"] * 6 + ["one"]
    samples = [SimpleNamespace(meta={"book_key": b}, i=i) for i, b in enumerate(books)]
    capped = dev_subset(samples, DataConfig(eval_samples=0, eval_per_book=5), seed=1)
    counts = {b: sum(s.meta["book_key"] == b for s in capped) for b in ("big", "mid", "one")}
    assert counts == {"big": 5, "mid": 5, "one": 1}
    assert [s.i for s in capped] == sorted(s.i for s in capped)  # corpus order kept
    assert capped == dev_subset(samples, DataConfig(eval_samples=0, eval_per_book=5), seed=1)
    both = dev_subset(samples, DataConfig(eval_samples=4, eval_per_book=5), seed=1)
    assert len(both) == 4 and set(map(id, both)) <= set(map(id, capped))
    assert len(dev_subset(samples, DataConfig(eval_samples=0, eval_per_book=0), seed=1)) == 57


def test_train_per_book_caps_the_training_samples_of_each_workbook():
    import random
    from types import SimpleNamespace

    import pytest

    from fortap.training.pretrain_data import per_book
    from fortap.training.run_config import DataConfig

    samples = [SimpleNamespace(meta={"book_key": b}) for b in ["a"] * 9 + ["b"] * 2]
    kept = per_book(samples, 3, random.Random(0))
    assert [samples[i].meta["book_key"] for i in kept].count("a") == 3
    assert kept[-2:] == [9, 10] and kept == sorted(kept)
    assert per_book(samples, 0, random.Random(0)) == list(range(11))
    with pytest.raises(ValueError, match="train_per_book"):
        DataConfig(train_per_book=-1)


def test_corpus_table_samples_give_table_context_choices(data_dir, tmp_path):
    """Table samples keep their context snippets, so table-context retrieval has true choices
    and distractors (from the train split's snippets) on a corpus too."""
    import json as _json

    from fortap.corpus.build import run_build_corpus
    from fortap.corpus.split import book_key
    from fortap.training.pretrain import setup_pretrain
    from fortap.training.run_config import load_config

    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:8]
    split = {book_key(str(f)): "dev" if i < 2 else "train" for i, f in enumerate(files)}
    (tmp_path / "s.json").write_text(_json.dumps(split))
    for f in files:
        (tmp_path / "raw").mkdir(exist_ok=True)
        (tmp_path / "raw" / f.name).symlink_to(f)
    run_build_corpus([tmp_path / "raw"], tmp_path / "c", progress=False,
                     split_overrides=tmp_path / "s.json")  # fmt: skip
    cfg = load_config("tiny", ["data.max_tokens=256", "training.batch_size=2"])
    setup = setup_pretrain(cfg, tmp_path / "c")
    assert setup.stream.make.negatives  # the train samples' snippets
    labels = [label for e in setup.eval_examples for label in e.targets["table_context"]["labels"]]
    assert 1 in labels and 0 in labels
