"""DDP on CPU: two gloo processes train a tiny model and end with identical parameters."""

from __future__ import annotations

import json
import socket

import pytest
import torch
import torch.multiprocessing as mp

from fortap.training.distributed import Dist, gather, init_from_env, shutdown, wrap
from fortap.training.stream import ExampleStream

TINY = [
    "serialize.max_seq_len=64",
    "data.max_tokens=96",
    "data.eval_tables=2",
    "training.batch_size=2",
    "training.grad_accum=2",
    "training.steps=3",
    "training.log_every=1",
    "training.progress=false",
    "model.hidden_dropout=0.1",  # each rank draws its own dropout masks
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank: int, world: int, port: int, files: list, out: str, extra: list) -> None:
    from fortap.table.io import read_tables
    from fortap.training.loop import train
    from fortap.training.pretrain import setup_pretrain
    from fortap.training.run_config import load_config

    torch.set_num_threads(1)
    env = {"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank)}
    env |= {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
    import os

    os.environ.update(env)
    dist = init_from_env()
    try:
        cfg = load_config("tiny", [*TINY, *extra])
        setup = setup_pretrain(cfg, read_tables(files), "random", dist)
        before = {k: v.clone() for k, v in setup.model.state_dict().items()}
        train(
            setup.model, setup.stream, cfg.training, cfg.optim, out, setup.eval_batches, dist=dist
        )
        after = setup.model.state_dict()
        torch.save({"before": before, "after": after}, f"{out}/rank{rank}.pt")
    finally:
        shutdown(dist)


@pytest.mark.parametrize("workers", [0, 2])
def test_two_gloo_processes_stay_in_sync(hitab_files, tmp_path, workers):
    """With `data.workers`, each rank's stream is built by its own worker processes."""
    port = free_port()
    extra = [f"data.workers={workers}"]
    mp.spawn(worker, args=(2, port, hitab_files[:8], str(tmp_path), extra), nprocs=2, join=True)
    ranks = [torch.load(tmp_path / f"rank{r}.pt") for r in range(2)]
    moved = 0
    for name, a in ranks[0]["after"].items():
        assert torch.equal(a, ranks[1]["after"][name]), name
        moved += not torch.equal(a, ranks[0]["before"][name])
    assert moved > 10  # training changed the weights
    trainer = json.loads((tmp_path / "checkpoints" / "step-00000003" / "trainer.json").read_text())
    assert len(trainer["data_ranks"]) == 2  # every rank's data position is saved
    assert trainer["data_ranks"][0] != trainer["data_ranks"][1]
    assert len(trainer["torch_rng_ranks"]) == 2
    steps = [json.loads(line)["step"] for line in (tmp_path / "metrics.jsonl").open()]
    assert steps == [1, 2, 3, 3]  # rank 0 alone logs: three train lines and one evaluation


def test_single_process_without_torchrun_variables():
    dist = init_from_env({})
    assert dist == Dist() and not dist.enabled and dist.is_main
    model = torch.nn.Linear(2, 2)
    assert wrap(model, dist) is model
    assert gather({"a": 1}, dist) == [{"a": 1}]


def test_rank_shards_are_disjoint_and_cover_an_epoch():
    items = list(range(10))
    seen = []
    for rank in range(2):
        stream = ExampleStream(items, lambda i, rng: i, list, 1, seed=3, rank=rank, world=2)
        seen.append([stream.next_example() for _ in range(5)])
    assert not set(seen[0]) & set(seen[1])
    assert sorted(seen[0] + seen[1]) == items
    quarters = []  # 2 ranks x 2 workers (`data.workers`): four disjoint quarters of an epoch
    for rank in range(2):
        for w in range(2):
            stream = ExampleStream(list(range(12)), lambda i, rng: i, list, 1, 3, rank, 2, w, 2)
            quarters += [stream.next_example() for _ in range(3)]
    assert sorted(quarters) == list(range(12))


@pytest.mark.parametrize(("rank", "world"), [(2, 2), (-1, 2), (0, 0)])
def test_dist_rejects_a_rank_outside_the_world(rank, world):
    with pytest.raises(ValueError, match="rank"):
        Dist(rank, world)
