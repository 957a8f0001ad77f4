"""The import graph of `src/fortap`: no file cycle, no folder cycle, no import from a lower stage
into a higher one.

Every module is read with `ast` (nothing is imported); absolute and relative imports count,
and so do imports inside functions and under `if TYPE_CHECKING:` (a deferred or type-only import
is still a dependency of the design), and a string that is exactly a dotted `fortap` name (a
module a registry imports by name later). A module depends on the deepest `fortap` module an import
names (`from fortap.table.model import Table` -> `fortap.table.model`; `from fortap.objectives
import ncp` -> `fortap.objectives.ncp`). A package's `__init__` may import its own children.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "fortap"

# The allowed order, lowest first. A stage may import any lower stage, never a higher one;
# stages on one line are siblings and may not import each other. A folder is a stage, and so
# is each top-level module.
STAGES: tuple[tuple[str, ...], ...] = (
    # the package's own `__init__` (its version), the error types, the console width rule
    ("fortap", "errors", "console"),
    # where commands write: the output-folder guard, atomic files, safe file names
    ("outputs",),
    # scores and intervals every objective and task measures with (`f1`, the cluster bootstrap)
    ("metrics",),
    # ingest report records; `config` is the preset/override machinery, knowing no component
    ("ingest_report", "config"),
    ("sheet",),
    # `synthesis` finds the formulas a block's values obey from a sheet's numbers alone
    ("table", "synthesis"),
    # `ingest` turns workbooks into tables (sheet + table) and nothing below needs it
    ("formula", "ingest"),
    ("text",),  # the tokenizer knows the formula tokens
    ("encoding",),
    ("corpus", "model"),  # siblings: samples and the encoder never import each other
    ("objectives",),
    ("training",),
    # `recover` puts formulas back from values (synthesis); the service offers it
    ("tasks", "recover"),
    ("suggest",),
    ("audit",),
    # `fortap serve`: the engine, the audit, recover and the task models over HTTP
    ("service",),
    # fortap inside the spreadsheet: the Excel add-in's manifest, the Calc extension's commands
    ("addin",),
    # every task the CLI offers, the evaluate-only ones of `suggest/` and `audit/` among them
    ("registry",),
    ("demo",),
    ("cli",),
    ("__main__",),
)

# A string that is exactly a dotted `fortap` name is an import too (`importlib` reads it later).
DOTTED = re.compile(r"fortap(\.[A-Za-z_][A-Za-z0-9_]*)+")

# Known exceptions, (importer, imported) modules; each would name the change that removes it.
KNOWN: set[tuple[str, str]] = set()


def module_name(path: Path, root: Path = SRC.parent) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, modules: set[str], root: Path = SRC.parent) -> set[str]:
    """The `fortap` modules `path` imports (each name cut back to a module that exists)."""
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if not DOTTED.fullmatch(node.value):
                continue
            names = [node.value]  # a module named to be imported later (a registry line)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != me and not name.startswith(me + "."):  # a package's children
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    files = sorted(SRC.rglob("*.py"))
    modules = {module_name(p) for p in files}
    graph = {module_name(p): imported(p, modules) for p in files}
    for importer, target in KNOWN:
        graph.get(importer, set()).discard(target)
    return graph


def folder(module: str) -> str:
    """`fortap.table.tree` -> `table`; a top-level module is its own folder (`config`)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def level() -> dict[str, int]:
    return {name: i for i, names in enumerate(STAGES) for name in names}


def test_the_graph_is_read():
    graph = import_graph()
    assert "fortap.table.tree" in graph["fortap.table.model"]
    assert "fortap.training.loop" in graph["fortap.training.pretrain"]
    assert all(folder(m) in level() for m in graph), (
        "every folder and top-level module needs a stage"
    )


def test_no_file_cycle():
    assert cycles(import_graph()) == []


def test_no_folder_cycle():
    folders: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        folders.setdefault(folder(module), set()).update(
            folder(t) for t in targets if folder(t) != folder(module)
        )
    assert cycles(folders) == []


def test_no_import_from_a_lower_stage_into_a_higher_one():
    stage = level()
    wrong = sorted(
        f"{module} ({folder(module)}) imports {target} ({folder(target)})"
        for module, targets in import_graph().items()
        for target in targets
        if folder(module) != folder(target) and stage[folder(module)] <= stage[folder(target)]
    )
    assert wrong == []


def test_a_module_named_in_a_string_is_an_import(tmp_path):
    lower = tmp_path / "fortap" / "tasks" / "lines.py"
    lower.parent.mkdir(parents=True)
    lower.write_text('"""Names `fortap.audit.task` in prose."""\nLINE = "fortap.audit.task"\n')
    modules = {"fortap.tasks.lines", "fortap.audit.task", "fortap.audit"}
    found = imported(lower, modules, tmp_path)
    assert found == {"fortap.audit.task"}  # the line, not the prose
    assert level()["tasks"] < level()["audit"]  # so the stage check refuses it


def test_the_checks_catch_a_cycle_and_an_upward_import():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    stage = level()
    assert stage["corpus"] == stage["model"]  # siblings: an import either way is refused
    assert stage["table"] < stage["training"] < stage["tasks"]
