"""How long `fortap check-model` takes on every shipped folder, and whether each passes.

    .venv/bin/python bench/check_models.py [--models models] [--skip-full] [--json PATH]

Every model folder under `--models` (the task folders and `encoders/*`) is checked as a user
checks it: `fortap check-model FOLDER` in a fresh process, so the time includes starting fortap
and loading the model. A folder with a stored sample (metrics.json's `check` record) is checked
on that sample; the baseline, measured in the same run, is the same folder's full check
(`--full`), so the ratio says what the sample saves. `--skip-full` leaves the baseline out.
Target (issue 58): every default check at most 3 minutes on 2 cores, and every check passes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from helpers.paths import REPO

TARGET_S = 180.0


def folders(root: Path) -> list[Path]:
    """Model folders (model.json) and encoder folders (config.json + model.safetensors)."""
    found = [p.parent for p in root.glob("*/model.json")]
    found += [p.parent for p in root.glob("encoders/*/model.safetensors")]
    return sorted(found)


def checked(folder: Path, *flags: str) -> dict:
    """One `fortap check-model` run: its seconds, exit code and what it re-scored."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "check.json"
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "fortap", "check-model", str(folder),
                               "--json", str(out), *flags], capture_output=True, text=True)  # fmt: skip
        seconds = time.perf_counter() - start
        payload = json.loads(out.read_text()) if out.is_file() else {}
    sample = "stored sample" in done.stdout
    if done.returncode not in (0, 1) or not payload:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"check-model {folder} failed: {tail[0]}")
    return {"folder": str(folder.relative_to(REPO)) if folder.is_relative_to(REPO) else str(folder),
            "check": "full" if flags else ("sample" if sample else "default"),
            "seconds": round(seconds, 1), "passed": done.returncode == 0,
            "rescored": payload.get("rescored", "")}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=REPO / "models")
    ap.add_argument("--skip-full", action="store_true", help="no full check as the baseline")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows = []
    for folder in folders(args.models.resolve()):
        row = checked(folder)
        rows.append(row)
        if row["check"] == "sample" and not args.skip_full:
            full = checked(folder, "--full")
            row["full_seconds"] = full["seconds"]
            row["ratio_to_full"] = round(row["seconds"] / full["seconds"], 3)
            rows.append(full)
    view = RichTable(title=f"fortap check-model per shipped folder (target ≤ {TARGET_S:.0f} s)")
    for head in ("folder", "check", "seconds", "passed", "ratio to full"):
        view.add_column(head)
    for r in rows:
        ratio = f"{r['ratio_to_full']:.2f}" if "ratio_to_full" in r else "-"
        view.add_row(r["folder"], r["check"], f"{r['seconds']:.1f}", str(r["passed"]), ratio)
    Console().print(view)
    default = [r for r in rows if r["check"] != "full"]
    slowest = max(r["seconds"] for r in default)
    targets = [
        {"name": f"slowest default check, s (≤ {TARGET_S:.0f})", "value": slowest,
         "target": TARGET_S, "met": slowest <= TARGET_S},
        {"name": "checks that pass", "value": sum(r["passed"] for r in rows),
         "target": len(rows), "met": all(r["passed"] for r in rows)},
    ]  # fmt: skip
    for t in targets:
        print(f"{'met' if t['met'] else 'NOT MET'}: {t['name']}: {t['value']}")
    if args.json:
        args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=1) + "\n")
    return 0 if all(t["met"] for t in targets) else 1


if __name__ == "__main__":
    raise SystemExit(main())
