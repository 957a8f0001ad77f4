"""The audit as `fortap serve`'s page runs it: one sheet with `AuditConfig`'s defaults, as
`fortap audit BOOK --sheet NAME` does, legended in the colours of its PNG. `create_app` is
handed it (`findings.Auditor`), so a test can hand in another."""

from __future__ import annotations

from fortap.audit.auditor import AuditConfig, audit
from fortap.audit.findings import KINDS
from fortap.audit.report import COLOURS
from fortap.service.findings import Auditor


def _run(suggester, sheet: str) -> dict:
    return audit(suggester, [sheet], AuditConfig()).to_json()


def page_auditor() -> Auditor:
    return Auditor(run=_run, legend=tuple((kind, COLOURS[kind]) for kind in KINDS))
