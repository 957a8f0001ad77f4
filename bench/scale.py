"""Ingest throughput by engine, driver memory by input size, and where ingest spends its time.

    nice .venv/bin/python bench/scale.py [--json PATH] [--data DIR] [--limit N] [--stages K]

Runs, one after another, each in a fresh process with an empty `FORTAP_CACHE_DIR` (so every
.xls/.ods is converted again) and its own output folder (removed after):

* `local 1`: `run_ingest(files, workers=1)`, the baseline;
* `local 2`: the local engine with 2 worker processes;
* `ray 2`: `engine="ray"` on a Ray instance of 2 CPUs started by the run (its start counted);
* `local 2 half`: `local 2` over every second file, for the driver-memory check.

Files: every spreadsheet `fortap ingest` finds under DIR (default ../shared/data: 693).
workbooks/s = files / the run's seconds (`run_ingest`, from call to return). Driver memory is
the run process's peak RSS (`ru_maxrss`; workers and Ray's own processes are not the driver).
The runs over all files must write the same shards (their sha256 is compared).

Targets: Ray time <= 1.3 x `local 2` time (equal CPUs); peak driver memory over all files
<= 1.1 x over half of them.

`--readers` times `ingest_file` on every .xlsx/.xlsm file with today's reader and with the
reference stylesheet loader it replaced (openpyxl's `apply_stylesheet`, which builds every
named style), alternating which goes first from file to file, and checks that both give the
same Table JSON lines and reports. Target: reference time >= 2 x today's (per core).

`--stages K` profiles `ingest_file` (cProfile, in this process) over every K-th file instead,
and sums each function's own time into stages by the module it lives in (open/unzip, values
and formulas, styles, LibreOffice conversion, table detection, headers, JSON, report); a
builtin's time goes to the stages of its callers (waiting on LibreOffice is `select.poll`
called by `subprocess`).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import hashlib
import json
import os
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RUNS = (
    ("local 1", "local", 1, 1),
    ("local 2", "local", 2, 1),
    ("ray 2", "ray", 2, 1),
    ("local 2 half", "local", 2, 2),
)  # fmt: skip  (name, engine, workers, every k-th file)
RAY_RATIO, MEMORY_RATIO = 1.3, 1.1


def child(spec: dict) -> dict:
    """One ingest run in this process; its seconds, peak RSS and the shards' sha256."""
    from fortap.ingest import expand_paths, run_ingest

    files = expand_paths([Path(spec["data"])])[0][:: spec["every"]][: spec["limit"] or None]
    out = Path(spec["out"])
    start = time.perf_counter()
    report = run_ingest(files, out, spec["workers"], progress=False, engine=spec["engine"])
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the hashing
    digest, lines = hashlib.sha256(), []
    for shard in sorted((out / "tables.jsonl").glob("*.jsonl")):
        digest.update(shard.read_bytes())
        for line in shard.read_text(encoding="utf-8").splitlines():
            lines.append([json.loads(line)["book"], hashlib.sha256(line.encode()).hexdigest()[:12]])
    totals = report.totals()
    return {"files": len(files), "files_read": totals["files_read"], "tables": totals["tables"],
            "seconds": round(seconds, 1), "workbooks_per_s": round(len(files) / seconds, 3),
            "peak_driver_mib": round(peak_mib, 1),
            "shards_sha256": digest.hexdigest()[:16], "lines": lines}  # fmt: skip


def run_one(name: str, engine: str, workers: int, every: int, args) -> dict:
    """`child` in a fresh process with an empty conversion cache and output folder."""
    with tempfile.TemporaryDirectory(prefix="fortap_scale_") as tmp:
        spec = {"data": str(args.data), "limit": args.limit, "every": every, "engine": engine,
                "workers": workers, "out": str(Path(tmp) / "out")}  # fmt: skip
        env = {**os.environ, "FORTAP_CACHE_DIR": str(Path(tmp) / "cache")}
        done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env,
                              capture_output=True, text=True, check=False)  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
        shutil.rmtree(tmp, ignore_errors=True)
    return {"run": name, "engine": engine, "workers": workers,
            **json.loads(done.stdout.strip().splitlines()[-1])}  # fmt: skip


def targets(rows: dict[str, dict]) -> list[dict]:
    """The targets whose runs are in `rows`."""
    found = []
    if {"ray 2", "local 2"} <= rows.keys():
        ray = rows["ray 2"]["seconds"] / rows["local 2"]["seconds"]
        found.append({"name": "ray 2 time / local 2 time", "value": round(ray, 3),
                      "target": RAY_RATIO, "met": ray <= RAY_RATIO})  # fmt: skip
    if {"local 2", "local 2 half"} <= rows.keys():
        memory = rows["local 2"]["peak_driver_mib"] / rows["local 2 half"]["peak_driver_mib"]
        found.append({"name": "driver peak all / half (local 2)", "value": round(memory, 3),
                      "target": MEMORY_RATIO, "met": memory <= MEMORY_RATIO})  # fmt: skip
    full = [n for n in ("local 1", "local 2", "ray 2") if n in rows]
    if len(full) > 1:
        # LibreOffice recalculates volatile formulas (NOW()) when it converts a file, so an
        # empty conversion cache per run may change a converted book's values; a native book
        # must come out the same
        differ = differing_books([rows[n]["lines"] for n in full])
        native = sorted(b for b in differ if Path(b).suffix.lower() not in (".xls", ".ods"))
        found.append({"name": "same tables on every engine (books that differ, all converted)",
                      "value": differ, "target": [], "met": not native})  # fmt: skip
    return found


def differing_books(runs: list[list]) -> list[str]:
    """Books with a table line that is not the same in every run (same order of lines)."""
    if len({len(r) for r in runs}) > 1:
        return ["(runs wrote different numbers of tables)"]
    return sorted({a[0] for a, *rest in zip(*runs, strict=True) if any(a != b for b in rest)})


STAGES = (  # (stage, substrings of a profiled function's file or name), first match wins
    ("LibreOffice conversion", ("sheet/convert.py", "subprocess.py", "selectors.py", "waitpid")),
    ("open/unzip", ("zipfile", "zlib", "reader/excel.py", "reader/strings.py", "packaging/",
                    "sheet/screening.py", "sheet/biff.py")),
    ("styles", ("openpyxl/styles", "sheet/styles.py", "descriptors/")),
    ("values and formulas", ("worksheet/_reader.py", "sheet/xlsx.py", "sheet/cells.py",
                             "openpyxl/", "xml", "sheet/model.py", "sheet/read.py")),
    ("headers", ("table/headers.py", "table/hierarchy.py", "table/tree.py")),
    ("table detection", ("fortap/table/",)),
    ("JSON", ("json/", "table/io.py", "dumps", "encode")),
    ("report", ("ingest_report.py", "ingest_files.py")),
)  # fmt: skip


def stage_of(where: str) -> str:
    return next((s for s, keys in STAGES if any(k in where for k in keys)), "other")


def stages(args) -> tuple[list[dict], dict]:
    """cProfile's own time per function over every K-th file, summed by stage."""
    from fortap.ingest import expand_paths, ingest_file

    files = expand_paths([args.data])[0][:: args.stages][: args.limit or None]
    with tempfile.TemporaryDirectory(prefix="fortap_stages_") as tmp:
        os.environ["FORTAP_CACHE_DIR"] = tmp
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.runcall(lambda: [ingest_file(str(f)) for f in files])
        wall = time.perf_counter() - start
    by_stage: dict[str, float] = {}
    top: list[tuple[float, str, str]] = []
    for (file, line, name), (_, _, own, _, callers) in pstats.Stats(profile).stats.items():
        if file == "~":  # a builtin (isinstance, a C parser's feed): its callers' stages
            parts = [(stage_of(f"{c[0]}:{c[2]}"), v[2]) for c, v in callers.items()]
        else:
            parts = [(stage_of(f"{file}:{name}"), own)]
        for stage, seconds in parts:
            by_stage[stage] = by_stage.get(stage, 0.0) + seconds
        top.append((own, parts[0][0] if parts else "other", f"{Path(file).name}:{line}:{name}"))
    total = sum(by_stage.values())
    heaviest = [f"{own:.2f}s {stage}: {where}" for own, stage, where in sorted(top)[-25:][::-1]]
    rows = [{"stage": s, "seconds": round(t, 2), "share": round(t / total, 3)}
            for s, t in sorted(by_stage.items(), key=lambda kv: -kv[1])]  # fmt: skip
    meta = {"files": len(files), "profiled_wall_s": round(wall, 1), "heaviest": heaviest}
    return rows, {**meta, "unprofiled_s": unprofiled(files)}


def unprofiled(files: list[Path]) -> dict:
    """Without a profiler, over the .xlsx files: a whole `ingest_file`, `read_workbook`, and
    its two first steps alone (package parts: manifest, shared strings, workbook; the
    stylesheet into openpyxl's objects), each timed on its own call."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.styles.stylesheet import apply_stylesheet

    from fortap.ingest import ingest_file
    from fortap.sheet import read_workbook

    sums = {"ingest_file": 0.0, "read_workbook": 0.0, "package parts": 0.0, "stylesheet": 0.0}
    xlsx = [f for f in files if f.suffix.lower() in (".xlsx", ".xlsm")]
    for path in xlsx:
        for name, fn, arg in (("ingest_file", ingest_file, str(path)),
                              ("read_workbook", read_workbook, path)):  # fmt: skip
            start = time.perf_counter()
            with contextlib.suppress(Exception):  # a skipped file still costs its time
                fn(arg)
            sums[name] += time.perf_counter() - start
        try:
            start = time.perf_counter()
            reader = ExcelReader(str(path), read_only=False, keep_vba=False, keep_links=False)
            reader.read_manifest()
            reader.read_strings()
            reader.read_workbook()
            sums["package parts"] += time.perf_counter() - start
            start = time.perf_counter()
            apply_stylesheet(reader.archive, reader.wb)
            sums["stylesheet"] += time.perf_counter() - start
            reader.archive.close()
        except Exception:
            continue
    return {"xlsx_files": len(xlsx), **{k: round(v, 2) for k, v in sums.items()}}


@contextlib.contextmanager
def reference_styles():
    """The reader as it was: openpyxl's `apply_stylesheet` in place of `load_cell_styles`."""
    from openpyxl.styles.stylesheet import apply_stylesheet

    import fortap.sheet.xlsx as xlsx

    lean = xlsx.load_cell_styles
    xlsx.load_cell_styles = apply_stylesheet
    try:
        yield
    finally:
        xlsx.load_cell_styles = lean


def readers(args) -> tuple[list[dict], dict]:
    """Per-file `ingest_file` seconds with both stylesheet loaders, and whether they agree."""
    from dataclasses import replace

    from fortap.ingest import expand_paths, ingest_file

    files = [f for f in expand_paths([args.data])[0] if f.suffix.lower() in (".xlsx", ".xlsm")]
    seconds = {"reference": 0.0, "today": 0.0}
    differ = []
    for i, path in enumerate(files[: args.limit or None]):
        results = {}
        for name in ("reference", "today") if i % 2 == 0 else ("today", "reference"):
            with reference_styles() if name == "reference" else contextlib.nullcontext():
                start = time.perf_counter()
                result = ingest_file(str(path))
                seconds[name] += time.perf_counter() - start
            results[name] = (result.lines, replace(result.report, seconds=0.0))
        if results["reference"] != results["today"]:
            differ.append(str(path))
    n = min(len(files), args.limit or len(files))
    rows = [{"reader": k, "files": n, "seconds": round(v, 1),
             "workbooks_per_s": round(n / v, 3)} for k, v in seconds.items()]  # fmt: skip
    return rows, {"differ": differ, "speedup": round(seconds["reference"] / seconds["today"], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, help="write {results, targets} here")
    ap.add_argument("--data", type=Path, default=DATA, help="folder of workbooks")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files (0 = all)")
    ap.add_argument("--stages", type=int, default=0, help="profile every K-th file by stage")
    ap.add_argument("--readers", action="store_true", help="today's reader vs the reference")
    ap.add_argument("--runs", help="only these runs, comma-separated (default: all four)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    console = Console()
    if args.readers:
        rows, meta = readers(args)
        view = Table(title="ingest_file on the .xlsx files: stylesheet loaders")
        for col in ("reader", "files", "seconds", "workbooks/s"):
            view.add_column(col, justify="left" if col == "reader" else "right")
        for row in rows:
            view.add_row(row["reader"], str(row["files"]), f"{row['seconds']:.1f}",
                         f"{row['workbooks_per_s']:.2f}")  # fmt: skip
        console.print(view)
        speedup, same = meta["speedup"], not meta["differ"]
        console.print(
            f"speed-up {speedup}x (target 2.0); files whose Tables differ: {meta['differ']}"
        )
        result = {"results": rows, "targets": [
            {"name": "reference time / today's", "value": speedup, "target": 2.0,
             "met": speedup >= 2.0},
            {"name": "identical Tables and reports", "value": same, "target": True, "met": same},
        ]}  # fmt: skip
    elif args.stages:
        rows, meta = stages(args)
        view = Table(title=f"ingest by stage, {meta['files']} files (cProfile own time)")
        for col in ("stage", "seconds", "share"):
            view.add_column(col, justify="left" if col == "stage" else "right")
        for row in rows:
            view.add_row(row["stage"], f"{row['seconds']:.2f}", f"{row['share']:.1%}")
        console.print(view)
        console.print("\n".join(meta["heaviest"]), highlight=False)
        console.print(f"unprofiled seconds: {meta['unprofiled_s']}", highlight=False)
        result = {"results": rows, "targets": [], "meta": meta}
    else:
        rows = {}
        chosen = args.runs.split(",") if args.runs else [r[0] for r in RUNS]
        for name, engine, workers, every in (r for r in RUNS if r[0] in chosen):
            rows[name] = run_one(name, engine, workers, every, args)
            shown = {k: v for k, v in rows[name].items() if k != "lines"}
            console.print(f"{name}: {shown}", highlight=False)
        base = next(iter(rows.values()))["seconds"]
        view = Table(title="fortap ingest by engine (empty conversion cache each)")
        for col in ("run", "files", "seconds", "workbooks/s", "vs first", "driver MiB"):
            view.add_column(col, justify="left" if col == "run" else "right")
        for row in rows.values():
            view.add_row(row["run"], str(row["files"]), f"{row['seconds']:.1f}",
                         f"{row['workbooks_per_s']:.2f}", f"{base / row['seconds']:.2f}x",
                         f"{row['peak_driver_mib']:.0f}")  # fmt: skip
        console.print(view)
        result = {"results": list(rows.values()), "targets": targets(rows)}
        for row in result["results"]:
            row.pop("lines")
        for t in result["targets"]:
            console.print(f"{t['name']}: {t['value']} (target {t['target']}): "
                          f"{'met' if t['met'] else 'NOT met'}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
