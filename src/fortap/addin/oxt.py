"""`fortap addin oxt`: the LibreOffice Calc extension as an .oxt (a zip Calc's Extension Manager
installs). The files under `calc/` go in as they are, with `fortap_paths.json` naming this
interpreter's Python folders and fortap's own, so that the extension imports fortap and its
pinned packages from the venv that built it (soffice's Python is Debian's python3, the same
3.11 as the venv)."""

from __future__ import annotations

import json
import sys
import sysconfig
import zipfile
from pathlib import Path

import fortap

CALC = Path(__file__).parent / "calc"
FILES = ("META-INF/manifest.xml", "description.xml", "Addons.xcu", "fortap_calc.py")


def python_paths() -> list[str]:
    """fortap's import root first, then this interpreter's site-packages."""
    root = str(Path(fortap.__file__).resolve().parent.parent)
    paths = sysconfig.get_paths()
    found = [root, paths["purelib"], paths["platlib"]]
    return list(dict.fromkeys(p for p in found if Path(p).is_dir()))


def build_oxt(out: Path) -> Path:
    """Write the extension to `out` (.oxt); returns it."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in FILES:
            z.write(CALC / name, name)
        paths = {"sys_path": python_paths(), "python": sys.version.split()[0]}
        z.writestr("fortap_paths.json", json.dumps(paths, indent=1) + "\n")
    return out
