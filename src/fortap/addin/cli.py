"""`fortap addin manifest` and `fortap addin oxt` (registered on the `fortap` app in `fortap.cli`)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="The Excel add-in's manifest and the LibreOffice Calc extension.",
                  no_args_is_help=True)  # fmt: skip


@app.command("manifest")
def manifest_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the manifests in.")],
    port: Annotated[int, typer.Option(help="The port of fortap serve --addin.")] = 8000,
    overwrite: Annotated[bool, typer.Option(help="Replace manifests already there.")] = False,
) -> None:
    """Write manifest.xml (to sideload in Excel) and manifest.json (the unified manifest, with its
    two icons) for the task pane `fortap serve --addin --port PORT` serves."""
    from fortap.addin.manifest import manifest_text
    from fortap.errors import FortapError

    if not 0 < port < 65536:
        raise FortapError(f"--port must be 1..65535, got {port}")
    if out.exists() and not out.is_dir():
        raise FortapError(f"--out {out}: is a file; give a folder")
    targets = [out / "manifest.xml", out / "manifest.json"]
    there = [t for t in targets if t.exists()]
    if there and not overwrite:
        raise FortapError(f"{there[0]} exists; pass --overwrite to replace it")
    out.mkdir(parents=True, exist_ok=True)
    for target in targets:
        target.write_text(manifest_text(port, target.suffix[1:]), encoding="utf-8")
    web = resources.files("fortap.service") / "web" / "addin"
    for icon in ("icon-outline.png", "icon-192.png"):
        (out / icon).write_bytes((web / icon).read_bytes())
    typer.echo(f"wrote {targets[0]} and {targets[1]} for https://localhost:{port}/addin/taskpane.html")


@app.command("oxt")
def oxt_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="The extension file to write (.oxt).")],
    overwrite: Annotated[bool, typer.Option(help="Replace OUT when it exists.")] = False,
) -> None:
    """Build the LibreOffice Calc extension (Tools menu: fortap: suggest formula, audit sheet,
    recover formulas); it runs fortap from this Python environment. Install it with
    unopkg add OUT, or Tools > Extensions in Calc."""
    from fortap.addin.oxt import build_oxt
    from fortap.outputs import check_file

    check_file(out, "--out", overwrite, suffix=".oxt")
    build_oxt(out)
    typer.echo(f"wrote {out}; install it with: unopkg add {out}")
