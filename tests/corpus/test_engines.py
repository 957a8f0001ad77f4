"""Ingest and build-corpus on Ray (a local instance of 2 CPUs) equal the local engine's output,
and a build whose Ray worker is killed midway finishes with the same output."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from fortap.corpus.build import run_build_corpus
from fortap.ingest import run_ingest

ray = pytest.importorskip("ray")

SMALL_XLSX = 6  # the smallest EUSES workbooks: a few seconds of reading
XLS = ["30day.xls", "HMWK112403.xls"]  # converted by LibreOffice on the workers


@pytest.fixture(scope="module")
def ray_instance(tmp_path_factory):
    """One local Ray instance of 2 CPUs for the module; the engines use it as they find it.
    Its workers get the environment of this moment: an empty conversion cache of their own."""
    saved = os.environ.get("FORTAP_CACHE_DIR")
    os.environ["FORTAP_CACHE_DIR"] = str(tmp_path_factory.mktemp("ray_cache"))
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=128 * 2**20,
             logging_level="WARNING")  # fmt: skip
    yield
    ray.shutdown()
    if saved is None:
        os.environ.pop("FORTAP_CACHE_DIR")
    else:
        os.environ["FORTAP_CACHE_DIR"] = saved


@pytest.fixture
def books(data_dir: Path, tmp_path: Path) -> list[Path]:
    """Small real workbooks (.xlsx and .xls) and one truncated workbook."""
    folder = data_dir / "euses_excelint" / "subjects_xlsx"
    xlsx = sorted(folder.glob("*.xlsx"), key=lambda p: (p.stat().st_size, p.name))[:SMALL_XLSX]
    xls = [data_dir / "checkcell_benchmarks" / "files" / name for name in XLS]
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(xlsx[-1].read_bytes()[:500])
    return [*xlsx, *xls, broken]


def untimed_report(out: Path) -> dict:
    report = json.loads((out / "report.json").read_text())
    for file in report["files"]:
        file.pop("seconds")
    report["totals"].pop("seconds")
    return report


def files_of(out: Path, folder: str) -> dict[str, bytes]:
    """Every file under `out/folder` by name, sorted (the same names hold the same rows)."""
    return {p.name: p.read_bytes() for p in sorted((out / folder).rglob("*")) if p.is_file()}


def corpus_outputs(out: Path) -> dict[str, bytes]:
    names = ["split.json", "stats.json", "index.json"]
    return {**{n: (out / n).read_bytes() for n in names}, **files_of(out, "shards")}


def test_ray_ingest_and_build_equal_local(ray_instance, books, tmp_path):
    local, remote = tmp_path / "local", tmp_path / "ray"
    report = run_ingest(books, local, progress=False, files_per_task=3)
    run_ingest(books, remote, progress=False, files_per_task=3, engine="ray", workers=2)
    assert report.files_read == len(books) - 1 and report.totals()["tables"] > 10
    assert report.files[-1].reason == "corrupt_zip"  # reported, the batch went on
    assert files_of(local, "tables.jsonl") == files_of(remote, "tables.jsonl")
    assert len(files_of(local, "tables.jsonl")) == 3
    assert untimed_report(local) == untimed_report(remote)

    stats = run_build_corpus([remote], tmp_path / "c_local", tables_per_task=8, progress=False)
    run_build_corpus([remote], tmp_path / "c_ray", tables_per_task=8, progress=False,
                     engine="ray", workers=2)  # fmt: skip
    assert sum(stats["samples"].values()) > 50
    assert corpus_outputs(tmp_path / "c_local") == corpus_outputs(tmp_path / "c_ray")


def kill_one_worker(title: str, stop: threading.Event, killed: list[int]) -> None:
    """SIGKILL the first process whose title is `title` (Ray names a worker `ray::<function>`
    while it runs a task of that function), then return."""
    while not stop.is_set():
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.startswith(title.encode()):
                os.kill(int(entry.name), signal.SIGKILL)
                killed.append(int(entry.name))
                return
        time.sleep(0.01)


def run_killing_one_worker(title: str, run) -> None:
    """`run()` while a thread kills the first Ray worker seen running `title`."""
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=kill_one_worker, args=(title, stop, killed))
    killer.start()
    try:
        run()
    finally:
        stop.set()
        killer.join()
    assert killed, f"no Ray worker was seen running {title}"


def test_a_killed_ray_worker_is_retried_without_loss_or_duplicates(ray_instance, books, tmp_path):
    tables = tmp_path / "tables"
    run_ingest(books[:SMALL_XLSX], tables, progress=False, files_per_task=3)
    run_build_corpus([tables], tmp_path / "clean", tables_per_task=2, progress=False)

    run_killing_one_worker("ray::run_task", lambda: run_build_corpus(
        [tables], tmp_path / "killed", tables_per_task=2, progress=False, engine="ray", workers=2
    ))  # fmt: skip
    assert corpus_outputs(tmp_path / "clean") == corpus_outputs(tmp_path / "killed")


def test_a_killed_ray_worker_in_ingest_is_retried(ray_instance, books, tmp_path):
    xlsx = books[:SMALL_XLSX]
    run_ingest(xlsx, tmp_path / "clean", progress=False, files_per_task=1)
    run_killing_one_worker("ray::ingest_task", lambda: run_ingest(
        xlsx, tmp_path / "killed", progress=False, files_per_task=1, engine="ray", workers=2
    ))  # fmt: skip
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    assert files_of(clean, "tables.jsonl") == files_of(killed, "tables.jsonl")
    assert untimed_report(clean) == untimed_report(killed)
    assert untimed_report(killed)["totals"]["files_read"] == SMALL_XLSX
