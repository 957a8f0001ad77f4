"""The model candidate source is a thin adapter: it reaches formula prediction only through the
task's public entry point (`tasks/formula_prediction/predictor.py`), with top-level imports.
Read with `ast`, as `tests/test_imports.py` reads the package: nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "src/fortap/suggest/candidates/model.py"
ENTRY = "fortap.tasks.formula_prediction.predictor"


def imports(tree: ast.Module) -> list[tuple[str, bool]]:
    """(module named, whether the import sits at the top level of the module) of every import."""
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            out += [(f"{base}.{alias.name}", id(node) in top) for alias in node.names]
    return out


def reaches_formula_prediction(name: str) -> bool:
    return name == "fortap.tasks" or name.startswith("fortap.tasks.")


def test_the_model_source_reaches_formula_prediction_only_through_the_predictor():
    found = imports(ast.parse(SOURCE.read_text(encoding="utf-8")))
    tasks = sorted({name for name, _ in found if reaches_formula_prediction(name)})
    assert tasks and all(name.startswith(ENTRY + ".") for name in tasks), tasks
    inside = sorted(name for name, at_top in found if not at_top)
    assert inside == [], f"imports inside functions or under TYPE_CHECKING: {inside}"


def test_the_check_catches_an_internal_or_a_deferred_import():
    tree = ast.parse(
        "from fortap.tasks.formula_prediction.predictor import FormulaPredictor\n"
        "def f():\n"
        "    from fortap.tasks.formula_prediction.evaluate import ranked_at\n"
    )
    found = imports(tree)
    assert found == [
        (f"{ENTRY}.FormulaPredictor", True),
        ("fortap.tasks.formula_prediction.evaluate.ranked_at", False),
    ]
    assert not all(n.startswith(ENTRY + ".") for n, _ in found if reaches_formula_prediction(n))
