"""No path in `src/`, `bench/` or `scripts/` names a folder of one machine (`/tmp/...`,
`/work/...`, `/home/...`): defaults are relative to the repository (`runs/`, `../shared/data`,
found from the file's own location) or a temporary folder made at run time. Python is read
string by string (defaults, docstrings, usage lines); shell and config files line by line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("src", "bench", "scripts")
TEXT = {".sh", ".yaml", ".yml", ".toml", ".json", ".cfg"}
ABSOLUTE = re.compile(
    r"(?<![\w.~])/(?:work|root|tmp|home|mnt|data|scratch|opt|srv|var|usr|Users|media|private)"
    r"(?:/|\b)"
)


def absolute_paths(path: Path, root: Path = REPO) -> list[str]:
    """`file:line: text` of every string (Python) or line (other text) naming a machine's folder."""
    text = path.read_text(errors="replace")
    if path.suffix == ".py":
        found = [(node.lineno, line) for node in ast.walk(ast.parse(text, str(path)))
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)
                 for line in node.value.splitlines()]  # fmt: skip
    else:
        found = [(i, line) for i, line in enumerate(text.splitlines(), start=1)
                 if not line.startswith("#!")]  # fmt: skip
    return [f"{path.relative_to(root)}:{i}: {line.strip()}" for i, line in sorted(found)
            if ABSOLUTE.search(line)]  # fmt: skip


def test_the_scan_catches_machine_folders(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "import argparse, pathlib\n"
        "ap = argparse.ArgumentParser()\n"
        'ap.add_argument("--data", default=pathlib.Path("/work/shared/data/tasi"))\n'
        'OUT = "/tmp/fortap_corpus/corpus"\n'
        'CACHE = "~/.cache/fortap"; RUNS = "runs/x"; ROUTE = "/suggest"; DATA = "../shared/data"\n'
        'def f():\n    """Example: python bench/x.py --out /home/me/out"""\n'
    )
    sh = tmp_path / "s.sh"
    sh.write_text("#!/usr/bin/env bash\nWORK=${1:-runs/x}\nOUT=${2:-/tmp/out}\n")
    got = [hit.split(": ", 1)[1] for p in (src, sh) for hit in absolute_paths(p, tmp_path)]
    assert got == ['/work/shared/data/tasi', '/tmp/fortap_corpus/corpus',
                   'Example: python bench/x.py --out /home/me/out', 'OUT=${2:-/tmp/out}']  # fmt: skip


def test_no_absolute_default_paths():
    files = [p for folder in FOLDERS for p in sorted((REPO / folder).rglob("*"))
             if p.is_file() and (p.suffix == ".py" or p.suffix in TEXT)
             and "egg-info" not in str(p)]  # fmt: skip
    assert len(files) > 100
    wrong = [hit for p in files for hit in absolute_paths(p)]
    assert not wrong, "\n".join(wrong)
