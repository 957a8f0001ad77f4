"""Where commands write: output folders and files are checked before any work, never replaced
without a word, and written whole or not at all.

- `claim_folder(out, command, overwrite)` is the one output-folder guard. It refuses a path that
  is a file, or that cannot be created or written. An empty folder, or one that holds this
  command's own run, is taken (the run resumes, or replaces what the command wrote before);
  any other non-empty folder is refused unless `overwrite`, which empties it first. A claimed
  folder gets `.fortap-output.json` naming the command; folders written before that marker
  existed are recognised by the files the command writes (`OWN_RUN`).
- `check_file(path, option, overwrite, suffix)` does the same for one output file.
- `atomic_path(path)` yields a temporary name beside `path` and renames it into place only when
  the write succeeded, so an interrupted or failed write never leaves half a file.
- `file_part(name)` turns a sheet or workbook name into a safe part of a file name.

Every refusal is a `FortapError` naming the option and the path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from fortap.errors import FortapError

MARKER = ".fortap-output.json"
# files by which a folder is recognised as a command's run written before the marker existed
OWN_RUN: dict[str, tuple[str, ...]] = {
    "ingest": ("ingest.json",),
    "build-corpus": ("split.json", "index.json"),
    "pretrain": ("checkpoints", "encoder"),
    "finetune": ("training",),
    "evaluate": ("metrics.json",),
    "audit": ("report.md",),
    "train-ranker": ("model.txt",),
    "release": ("release.json", "pretraining_books.json"),  # a model's, an encoder's
}


def claim_folder(
    out: Path,
    command: str,
    overwrite: bool = False,
    option: str = "--out",
    inputs: Sequence[Path] = (),
) -> Path:
    """Make `out` this command's output folder, or raise saying why it cannot be (module doc)."""
    out = Path(out)
    shown = f"{option} {out}"
    if out.exists() and not out.is_dir():
        raise FortapError(f"{shown}: is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise FortapError(f"{shown}: cannot create the folder ({_reason(err)})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise FortapError(f"{shown}: the folder is not writable")
    entries = sorted(p.name for p in out.iterdir() if not p.name.startswith(MARKER))
    if entries and not _holds_run(out, command, entries):
        if not overwrite:
            listed = ", ".join(entries[:3]) + (
                f" and {len(entries) - 3} more" if len(entries) > 3 else ""
            )
            raise FortapError(
                f"{shown}: the folder is not empty ({listed}) and holds no `fortap {command}` "
                "run; nothing was written. Choose an empty folder, or give --overwrite to "
                "delete what it holds"
            )
        _empty(out, shown, inputs)
    _write_marker(out, command)
    return out


def check_file(path: Path, option: str, overwrite: bool = False, suffix: str | None = None) -> Path:
    """Check before any work that `path` can be written: its suffix, its folder, no file in the
    way unless `overwrite`."""
    path = Path(path)
    shown = f"{option} {path}"
    if suffix is not None and path.suffix.lower() != suffix:
        raise FortapError(f"{shown}: the file name must end in {suffix}")
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise FortapError(f"{shown}: its folder {folder} {what}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FortapError(f"{shown}: its folder {folder} is not writable")
    if path.is_dir():
        raise FortapError(f"{shown}: is a folder, not a file")
    if path.exists() and not overwrite:
        raise FortapError(f"{shown}: the file exists; give --overwrite to replace it")
    try:  # a folder the permissions allow can still refuse a file (/proc, a read-only mount)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise FortapError(f"{shown}: its folder {folder} takes no file ({err.strerror})") from None
    return path


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path beside `path`, renamed onto it when the block ends without an error."""
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def file_part(name: str, limit: int = 40, default: str = "sheet") -> str:
    """A sheet or workbook name as a safe piece of a file name: letters, digits, `_` and `-`
    only, so `a/b` or `../x` never leaves the folder."""
    return re.sub(r"[^A-Za-z0-9-]+", "_", name).strip("_")[:limit] or default


def _holds_run(out: Path, command: str, entries: list[str]) -> bool:
    with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
        return json.loads((out / MARKER).read_text(encoding="utf-8")).get("command") == command
    return any(name in entries for name in OWN_RUN.get(command, ()))


def _write_marker(out: Path, command: str) -> None:
    marker = out / MARKER
    with contextlib.suppress(OSError, ValueError):
        if json.loads(marker.read_text(encoding="utf-8")).get("command") == command:
            return
    with atomic_path(marker) as tmp:
        tmp.write_text(json.dumps({"command": command}) + "\n", encoding="utf-8")


def _empty(out: Path, shown: str, inputs: Sequence[Path]) -> None:
    """Delete what `out` holds, unless that would delete the inputs or a folder one lives in."""
    here = out.resolve()
    if here in (Path(here.anchor), Path.home().resolve()) or Path.cwd().resolve().is_relative_to(
        here
    ):
        raise FortapError(f"{shown}: --overwrite would empty {here}, which holds far more than "
                          "an output; choose a folder of its own")  # fmt: skip
    for given in inputs:
        if Path(given).resolve().is_relative_to(here):
            raise FortapError(f"{shown}: --overwrite would delete the input {given}, which lies "
                              "inside it; choose another output folder")  # fmt: skip
    for entry in out.iterdir():
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except OSError as err:
            raise FortapError(f"{shown}: cannot delete {entry.name} ({_reason(err)})") from None


def _reason(err: OSError) -> str:
    return err.strerror or type(err).__name__
