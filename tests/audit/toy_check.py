"""A toy audit check, declared as a shipped one is (`test_checks.py` adds it to `CHECKS`): a
formula holding numbers typed into it (`=B2*1.2`), an inconsistent formula of its own kind."""

from __future__ import annotations

from fortap.audit.checks.base import AuditedSheet, Check, Fact, Found
from fortap.audit.findings import INCONSISTENT
from fortap.sheet.model import a1

FACTS = (Fact("constants", "numbers typed into the formula", count=True),)


def find(sheet: AuditedSheet) -> list[Found]:
    out = []
    for cell, f in zip(sheet.context.cells, sheet.context.formulas, strict=True):
        typed = [t.text for t in f.tokens if t.kind == "CONST" and _number(t.text)]
        if typed:
            text = f"{a1(*cell)}: {f.text} holds {', '.join(typed)} typed into it"
            out.append(Found(cell, {"constants": float(len(typed))}, text))
    return out


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


CHECK = Check("constants", INCONSISTENT, FACTS, find)
