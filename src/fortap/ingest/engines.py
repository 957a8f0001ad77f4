"""Where the data commands run their tasks: here, in a local process pool, or on Ray.

`fortap ingest` and `fortap build-corpus` cut their work into tasks that each write their own
output files and return a small record. `run_tasks(fn, items, cfg, shared)` calls
`fn(item, *shared)` for every item and yields an `Outcome` per task as it completes, with the
same function whatever the engine:

- `local` (the default): `workers` = 1 runs in this process; more runs a spawn process pool
  (a worker that dies breaks the pool: its tasks and the ones after it fail, and the caller's
  rerun resumes them).
- `ray`: one Ray task per item (`pip install 'fortap[ray]'`, imported only here and only
  then). With no `address` a Ray instance with `workers` CPUs is started on this machine and
  stopped at the end; with `address` (`auto`, `ray://head:10001`) the tasks go to that
  cluster, whose nodes need fortap installed and the input paths at the same place. A task
  whose worker process dies is run again (`retries` times): tasks write through temporary
  files and renames, so a rerun replaces, never duplicates.

Either way at most `window` tasks are in flight (default two per CPU): the driver never holds
the whole plan's futures, and results (which are small records, never table content) are
handed on as they arrive. `shared` values (a config, a lookup table) are sent once per worker
on Ray (`ray.put`) and with each task locally.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from fortap.errors import FortapError

ENGINES = ("local", "ray")
RAY_HINT = "Ray is an optional extra: pip install 'fortap[ray]'"


@dataclass(frozen=True)
class EngineConfig:
    """Which engine runs the tasks, on how many CPUs, with how many in flight."""

    engine: str = "local"  # "local" (this machine) or "ray"
    workers: int = 1  # local: processes (1 = this one); ray: CPUs of a Ray instance started here
    address: str | None = None  # ray: a running cluster's address; None starts one here
    window: int = 0  # most tasks in flight; 0 = two per CPU
    retries: int = 3  # ray: reruns of a task whose worker process died

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise FortapError(f"--engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.workers < 1:
            raise FortapError(f"--workers must be >= 1, got {self.workers}")
        if self.address and self.engine != "ray":
            raise FortapError("--address names a Ray cluster: use it with --engine ray")
        if self.window < 0 or self.retries < 0:
            raise FortapError(f"EngineConfig.window and retries must be >= 0, got {self}")


@dataclass(frozen=True)
class Outcome:
    """One task's end: its item and the function's value, or the error that ended it."""

    item: Any
    value: Any = None
    error: BaseException | None = None


def run_tasks(
    fn: Callable, items: Iterable, cfg: EngineConfig, shared: tuple = ()
) -> Iterator[Outcome]:
    """`fn(item, *shared)` for each item on `cfg`'s engine, yielded in completion order."""
    items = iter(items)
    if cfg.engine == "ray":
        return _ray_outcomes(fn, items, cfg, shared)
    if cfg.workers == 1:
        return _here(fn, items, shared)
    return _pool_outcomes(fn, items, cfg, shared)


@contextlib.contextmanager
def engine_session(cfg: EngineConfig):
    """Start Ray once for several `run_tasks` calls (a no-op for `local`); stop it at the end
    if it was started here."""
    if cfg.engine != "ray":
        yield
        return
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        _start_ray(ray, cfg)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def _here(fn: Callable, items: Iterator, shared: tuple) -> Iterator[Outcome]:
    for item in items:
        try:
            value = fn(item, *shared)
        except Exception as err:  # reported like a pool's failure; the caller decides
            yield Outcome(item, error=err)
            continue
        yield Outcome(item, value)


def _pool_outcomes(fn: Callable, items: Iterator, cfg: EngineConfig, shared: tuple):
    window = cfg.window or 2 * cfg.workers
    # spawn, not fork: the parent may hold threads (the progress bar) that fork would copy mid-lock.
    with ProcessPoolExecutor(max_workers=cfg.workers, mp_context=get_context("spawn")) as pool:
        pending: dict[Future, Any] = {}
        try:
            for item in items:
                while len(pending) >= window:
                    yield from _pool_done(pending)
                try:
                    pending[pool.submit(fn, item, *shared)] = item
                except BrokenExecutor as err:  # a worker died: the pool takes no more tasks
                    yield Outcome(item, error=err)
            while pending:
                yield from _pool_done(pending)
        finally:
            for future in pending:
                future.cancel()


def _pool_done(pending: dict[Future, Any]) -> Iterator[Outcome]:
    done, _ = wait(pending, return_when=FIRST_COMPLETED)
    for future in done:
        item = pending.pop(future)
        error = future.exception()
        yield Outcome(item, None if error else future.result(), error)


def _ray_outcomes(fn: Callable, items: Iterator, cfg: EngineConfig, shared: tuple):
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        _start_ray(ray, cfg)
    try:
        cpus = int(ray.cluster_resources().get("CPU", cfg.workers))
        window = cfg.window or 2 * max(cpus, 1)
        remote = ray.remote(fn).options(num_cpus=1, max_retries=cfg.retries)
        refs = [ray.put(value) for value in shared]
        pending: dict = {}
        for item in items:
            while len(pending) >= window:
                yield _ray_next(ray, pending)
            pending[remote.remote(item, *refs)] = item
        while pending:
            yield _ray_next(ray, pending)
    finally:
        if started:
            ray.shutdown()


def _ray_next(ray, pending: dict) -> Outcome:
    (ref,), _ = ray.wait(list(pending), num_returns=1)
    item = pending.pop(ref)
    try:
        return Outcome(item, ray.get(ref))
    except ray.exceptions.RayError as err:
        return Outcome(item, error=err)


def _start_ray(ray, cfg: EngineConfig) -> None:
    if cfg.address:
        ray.init(address=cfg.address, logging_level=logging.WARNING)
        return
    # tasks return small records, so a small object store is enough (Ray's default takes
    # 30% of memory); no dashboard: it is a web server this run does not need
    ray.init(num_cpus=cfg.workers, object_store_memory=256 * 2**20, include_dashboard=False,
             logging_level=logging.WARNING)  # fmt: skip


def _import_ray():
    try:
        import ray
    except ImportError as err:
        raise FortapError(f"--engine ray needs Ray, which is not installed: {RAY_HINT}") from err
    return ray
