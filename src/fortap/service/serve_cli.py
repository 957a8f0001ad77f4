"""`fortap serve` options -> `ServeConfig`, then the server; a missing [serve] extra is one line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fortap.errors import FortapError

if TYPE_CHECKING:
    from fortap.service.findings import Auditor


def run_serve_cli(
    host: str,
    port: int,
    model: Path | None,
    ranker: Path | None,
    max_upload_mb: float,
    max_workbooks: int,
    max_store_mb: float,
    quiet: bool,
    auditor: Auditor | None = None,
    max_per_browser: int = 8,
    addin: bool = False,
    cert_dir: Path | None = None,
    office_js: Path | None = None,
) -> None:
    """`auditor`: the findings toggle's audit, which the caller (a later stage) hands in."""
    try:
        from fortap.service.app import ServeConfig, run_serve
        from fortap.service.store import StoreLimits
    except ModuleNotFoundError as err:
        raise FortapError(
            f"fortap serve needs the [serve] extra ({err.name} is missing): "
            "pip install -e '.[serve]'"
        ) from None
    for name, value in (
        ("--max-upload-mb", max_upload_mb),
        ("--max-workbooks", max_workbooks),
        ("--max-workbooks-per-browser", max_per_browser),
        ("--max-store-mb", max_store_mb),
    ):
        if not 0 < value < float("inf"):  # also refuses nan, which no comparison holds for
            raise FortapError(f"{name} must be a positive number, got {value:g}")
    if ranker is not None and not ranker.is_dir():
        what = "not a folder" if ranker.exists() else "not found"
        raise FortapError(
            f"--ranker {ranker}: {what} (a ranker folder holds model.txt and features.json, "
            "as fortap train-ranker writes them)"
        )
    if model is not None:  # loaded now: a bad folder stops the start, and uploads share it
        from fortap.suggest.candidates.model import ModelSource

        ModelSource.load(model)
    tls, office = None, None
    if addin:
        from fortap.service.certs import default_cert_dir, ensure_cert

        tls = ensure_cert(cert_dir or default_cert_dir())
        office = office_js or default_office_js()
        if office is None or not (office / "office.js").is_file():
            print("note: Office.js not found (npm ci installs it, or --office-js DIR): the task "
                  "pane loads Microsoft's copy only")  # fmt: skip
    try:
        store = StoreLimits(max_books=max_workbooks, max_bytes=int(max_store_mb * 2**20),
                            max_per_client=max_per_browser)  # fmt: skip
        config = ServeConfig(
            host=host,
            port=port,
            model=model,
            ranker=ranker,
            max_upload_bytes=int(max_upload_mb * 2**20),
            store=store,
            quiet=quiet,
            addin=addin,
            tls=tls,
            office_js=office,
        )
    except ValueError as err:
        raise FortapError(str(err)) from None
    if config.max_upload_bytes > store.max_bytes:
        raise FortapError(
            f"--max-upload-mb {max_upload_mb:g} is over --max-store-mb {max_store_mb:g}: "
            "one upload could never be stored"
        )
    run_serve(config, auditor)


def default_office_js() -> Path | None:
    """Office.js's folder: `$FORTAP_OFFICE_JS`, else npm's copy under the current folder."""
    import os

    given = os.environ.get("FORTAP_OFFICE_JS")
    found = Path(given) if given else Path("node_modules/@microsoft/office-js/dist")
    return found.resolve() if found.is_dir() else None
