"""The benches' helpers load one way only: as `helpers.<module>` (bench/ on the path, as when a
bench runs as a script; `tests/conftest.py` puts it there for the tests). An import of
`bench.helpers.<module>`, or a `python -m bench.helpers...` line, would load a second copy of
the same module under another name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OTHER_FORM = re.compile(r"\bbench\.helpers\b")


def other_form(path: Path, root: Path = REPO) -> list[str]:
    """`file:line` of every import of the helpers as `bench.helpers` (Python), or mention of
    that dotted name (a usage line in a docstring, a shell script or a doc)."""
    text = path.read_text(errors="replace")
    lines = []
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            if any(n == "bench.helpers" or n.startswith("bench.helpers.") for n in names):
                lines.append(node.lineno)
    lines += [i for i, line in enumerate(text.splitlines(), start=1) if OTHER_FORM.search(line)]
    return [f"{path.relative_to(root)}:{i}" for i in sorted(set(lines))]


def test_the_scan_sees_both_spellings(tmp_path):
    (tmp_path / "a.py").write_text(
        "from bench.helpers.runs import labelled_runs\nimport bench.helpers.paths\n"
        "from bench import helpers\nfrom helpers.runs import labelled_runs\n"
    )
    (tmp_path / "b.md").write_text("run it:\n\n    python -m bench.helpers.audit_rankers OUT\n")
    got = other_form(tmp_path / "a.py", tmp_path) + other_form(tmp_path / "b.md", tmp_path)
    assert got == ["a.py:1", "a.py:2", "a.py:3", "b.md:3"]


def test_helpers_are_imported_as_helpers_only():
    files = [p for folder in ("bench", "tests", "scripts", "docs") for p in (REPO / folder).rglob("*")
             if p.suffix in (".py", ".sh", ".md") and "journal" not in p.parts
             and p != Path(__file__).resolve()]  # fmt: skip
    assert any(p.name == "audit.py" for p in files)
    wrong = [hit for p in sorted(files) for hit in other_form(p)]
    assert not wrong, "\n".join(wrong)
