"""The page's findings toggle: the open sheet audited as `fortap audit BOOK --sheet NAME` does it.

The audit is handed to `create_app` as an `Auditor` (`audit_page.page_auditor` for `fortap
serve`; a test may hand in another), as the engine itself is handed in as an `Opener`. Its
`run` is the command's own entry point on the session's `Suggester` (the engine the page
suggests with, holding the formulas accepted so far) and one sheet, with a budget of engine
checks that is a count and no clock, so the same sheet gives the same findings on every request.
The structural pass reads every cell, so a sheet with more than `MAX_AUDITED_CELLS` cells with
content is refused with a pointer to the command.

Each finding is named as `fortap audit --json` names it (`cell`, `kind`, `score`, `fix`,
`evidence`, the evidence cut to `MAX_EVIDENCE` characters), with the auditor's legend (the
colours of the command's PNG, so the page and the report agree). The route caches the record
per sheet in the session (`OpenBook.findings`) until a formula is written into any sheet (a
finding compares values, which a write elsewhere can change). The page applies a fix through
`POST /workbooks/{id}/cells`, as it accepts a suggestion: that route, and its token, are the
only way a finding changes the workbook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fortap.errors import FortapError
from fortap.service.grid import refuse_large
from fortap.sheet.model import Sheet
from fortap.suggest.api import Suggester

# the structure pass is linear in the cells; past this the command (with its progress) is the tool
MAX_AUDITED_CELLS = 100_000
MAX_EVIDENCE = 300  # characters of a finding's evidence the page shows; --json has it whole
COUNTS = ("typed_numbers", "labels", "formulas", "planned_checks", "checked")


@dataclass(frozen=True)
class Auditor:
    """The audit as the findings toggle calls it (see the module docstring for why it is handed
    in rather than imported)."""

    # (suggester, sheet name) -> the record `fortap audit --json` prints for that sheet
    run: Callable[[Suggester, str], dict[str, Any]]
    legend: tuple[tuple[str, str], ...]  # (finding kind, its colour as #rrggbb), in report order


class NoAuditor(FortapError):
    """The server was started without an `Auditor` (a 503: the request itself was fine)."""


def findings_record(auditor: Auditor | None, suggester: Suggester, sheet: Sheet) -> dict[str, Any]:
    """The audit of `sheet` (one of the suggester's sheets) as one record: its findings, best
    score first, the legend, and the counts `fortap audit --json` prints (less the seconds,
    which differ between runs). The caller holds the session's lock: the audit previews."""
    if auditor is None:
        raise NoAuditor(
            "the findings toggle needs the audit, which this server was started without "
            "(create_app's auditor); fortap audit BOOK --sheet NAME gives the same findings"
        )
    refuse_large(sheet, MAX_AUDITED_CELLS, "the findings toggle audits", "fortap audit")
    done = auditor.run(suggester, sheet.name)
    findings = [
        {
            "cell": f["cell"],
            "kind": f["kind"],
            "score": round(f["score"], 4),
            "fix": f["fix"],
            "evidence": _short(f["evidence"]),
        }
        for f in done["findings"]
    ]
    legend = [{"kind": kind, "colour": colour} for kind, colour in auditor.legend]
    counts = {name: done[name] for name in COUNTS}
    return {"sheet": sheet.name, "legend": legend, **counts, "findings": findings}


def _short(text: str) -> str:
    return text if len(text) <= MAX_EVIDENCE else text[: MAX_EVIDENCE - 1].rstrip() + "…"
