"""Fine-tuning under DDP on CPU: two gloo processes run `fortap finetune formula-prediction`'s
run; their parameters stay identical and rank 0 alone writes."""

from __future__ import annotations

import dataclasses
import json
import os
import socket

import torch
import torch.multiprocessing as mp

from fortap.table.io import write_jsonl

from .expense_table import expense_table

BOOKS = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx", "e.xlsx", "f.xlsx")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank: int, world: int, port: int, tables: str, out: str) -> None:
    from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPTraining
    from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
    from fortap.tasks.formula_prediction.run import load_split, run_finetune, start_encoder
    from fortap.training.distributed import init_from_env

    torch.set_num_threads(1)
    os.environ.update({"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank),
                       "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})  # fmt: skip
    dist = init_from_env()
    # the model's parameters: no dev checks, so no rank keeps a best state of its own
    plain = FormulaRunConfig(training=FPTraining(steps=3, batch_size=2, dev_checks=0,
                                                 progress=False))  # fmt: skip
    loaded = load_split([tables], plain)
    encoder = start_encoder(plain, loaded.tokenizer.vocab_size)
    model, _ = finetune_formula_prediction(
        loaded.split["train"], loaded.split["dev"], encoder, plain, f"{out}/loop", dist
    )
    torch.save(model.state_dict(), f"{out}/rank{rank}.pt")
    # the whole command's run (it shuts the process group down)
    cfg = FormulaRunConfig(training=FPTraining(steps=4, batch_size=2, dev_checks=2, progress=False))
    assert (run_finetune([tables], f"{out}/run", cfg) is None) == (rank != 0)


def test_two_gloo_processes_fine_tune_in_sync(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, [dataclasses.replace(expense_table(), book=name) for name in BOOKS])
    mp.spawn(worker, args=(2, free_port(), str(tables), str(tmp_path)), nprocs=2, join=True)
    ranks = [torch.load(tmp_path / f"rank{r}.pt") for r in range(2)]
    for name, a in ranks[0].items():
        assert torch.equal(a, ranks[1][name]), name
    trainer = json.loads(
        (tmp_path / "loop" / "checkpoints" / "step-00000003" / "trainer.json").read_text()
    )
    assert len(trainer["data_ranks"]) == 2  # (the shares: tests/training/test_shuffled.py)
    run = tmp_path / "run"
    for name in ("metrics.json", "predictions.jsonl", "report.md", "model/head.safetensors"):
        assert (run / name).is_file(), name
    steps = [json.loads(line)["step"] for line in (run / "training" / "metrics.jsonl").open()]
    assert steps == [2, 4, 4]  # rank 0 alone logs: dev checks at 2 and 4, the last update
