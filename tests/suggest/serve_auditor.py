"""The `Auditor` the tests hand to `create_app`: the one `fortap serve` is handed
(`fortap.audit.page`)."""

from __future__ import annotations

from fortap.audit.page import page_auditor

PAGE_AUDITOR = page_auditor()
