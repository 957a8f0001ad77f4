"""The audit reaches the suggestion engine through `fortap.suggest.api` only (an AST scan)."""

from __future__ import annotations

import ast
from pathlib import Path

import fortap.audit

AUDIT = Path(fortap.audit.__file__).parent
DOOR = "fortap.suggest.api"


def suggest_imports(path: Path, package: str = "fortap.audit") -> list[tuple[int, str]]:
    """(line, dotted name) of every module of `fortap.suggest` that `path` (a module of
    `package`) imports, at its top or inside a function; relative imports resolved."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join(parts[: len(parts) + 1 - node.level]) if node.level else ""
            module = ".".join(filter(None, (base, node.module)))
            if module in ("fortap", "fortap.suggest"):  # `from fortap.suggest import api`
                out += [(node.lineno, f"{module}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, module))
    return [(line, name) for line, name in out
            if name == "fortap.suggest" or name.startswith("fortap.suggest.")]  # fmt: skip


def test_scan_sees_every_form(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "import fortap.suggest.engine\n"
        "from fortap.suggest import api, preview\n"
        "from fortap.suggest.api import Suggester\n"
        "from fortap.suggest.candidates.anchor import reanchor\n"
        "from . import findings\n"
        "from ..suggest.context import Target\n"
        "from .. import suggest\n"
        "def f():\n    from fortap.suggest.cli import suggestion_table\n"
        "from fortap.formula import Formula\n"
    )
    assert suggest_imports(src) == [
        (1, "fortap.suggest.engine"),
        (2, "fortap.suggest.api"),
        (2, "fortap.suggest.preview"),
        (3, "fortap.suggest.api"),
        (4, "fortap.suggest.candidates.anchor"),
        (6, "fortap.suggest.context"),
        (7, "fortap.suggest"),
        (9, "fortap.suggest.cli"),
    ]


def package_of(path: Path) -> str:
    """The package a module of the audit lies in (`fortap.audit.checks` for its checks)."""
    return ".".join(("fortap", *path.parent.relative_to(AUDIT.parent).parts))


def test_audit_imports_suggest_through_its_door_only():
    files = sorted(AUDIT.rglob("*.py"))  # its checks too
    assert len(files) > 10 and AUDIT / "checks" / "breaks.py" in files
    wrong = [f"{p.relative_to(AUDIT)}:{line} imports {name}" for p in files
             for line, name in suggest_imports(p, package_of(p)) if name != DOOR]  # fmt: skip
    assert not wrong, "\n".join(wrong)
    assert any(suggest_imports(p) for p in files)  # the scan reads the audit's imports
