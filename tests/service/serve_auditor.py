"""The `Auditor` the tests hand to `create_app`: the one `fortap serve` is handed
(`fortap.service.audit_page`)."""

from __future__ import annotations

from fortap.service.audit_page import page_auditor

PAGE_AUDITOR = page_auditor()
