"""Convert .xls and .ods workbooks to .xlsx with LibreOffice, cached by content.

xlrd reads .xls values but not formulas; LibreOffice headless keeps both (the shared data
notes measured 26,524 of 26,524 EUSES formula cells kept). One `soffice` start costs about
two seconds, so many files go through one call. Each process gets its own LibreOffice
profile directory: two `soffice` processes sharing a profile block each other.
Converted files are stored as `<sha256 of the original>.xlsx` in the cache directory, so a
rerun, a renamed copy or the same file in two folders costs nothing. That directory is
`$FORTAP_CACHE_DIR/converted` (default `~/.cache/fortap/converted`): the one place fortap
writes outside the output folders it is given.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from fortap.errors import SheetError
from fortap.sheet.limits import ReadLimits
from fortap.sheet.screening import screen

INSTALL_HINT = "install it with `apt-get install libreoffice-calc-nogui`"
CACHE_ENV = "FORTAP_CACHE_DIR"  # moves fortap's cache (today: LibreOffice conversions only)
DEFAULT_CACHE_ROOT = Path("~/.cache/fortap")

_profile_dir: Path | None = None


def find_soffice(path: Path | None = None) -> str:
    """The LibreOffice executable, or `SheetError("soffice_missing")` with an install hint."""
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        raise soffice_missing(path)
    return exe


def soffice_missing(path: Path | None) -> SheetError:
    return SheetError(
        "soffice_missing",
        f"LibreOffice (soffice) is needed to read .xls/.ods files: {INSTALL_HINT}",
        path,
    )


def conversion_cache_dir() -> Path:
    """Where converted copies go: `$FORTAP_CACHE_DIR/converted`, else `~/.cache/fortap/converted`."""
    root = os.environ.get(CACHE_ENV) or DEFAULT_CACHE_ROOT
    return Path(root).expanduser() / "converted"


def content_key(path: Path) -> str:
    """sha256 of the file's bytes: the name of its converted copy in the cache."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def convert_to_xlsx(
    paths: Sequence[Path], limits: ReadLimits, cache_dir: Path | None = None
) -> dict[Path, Path | SheetError]:
    """Each original path -> its converted .xlsx in the cache, or the error that stopped it.

    Each file is screened first (see `screening.screen`); files already in the cache are not
    converted again; the rest go to LibreOffice in batches
    of `limits.convert_batch_size`. A batch that crashes or times out is retried file by file,
    so one bad file costs only itself; after a clean exit, a missing output is that file's failure.
    """
    cache = cache_dir.expanduser() if cache_dir else conversion_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    results: dict[Path, Path | SheetError] = {}
    pending: list[tuple[Path, Path]] = []
    for path in paths:
        try:
            screen(path, limits)  # never hand LibreOffice a missing, encrypted or foreign file
        except SheetError as err:
            results[path] = err
            continue
        target = cache / f"{content_key(path)}.xlsx"
        if target.exists():
            results[path] = target
        else:
            pending.append((path, target))
    if not pending:
        return results
    exe = find_soffice(pending[0][0])
    size = limits.convert_batch_size
    for start in range(0, len(pending), size):
        batch = pending[start : start + size]
        failure = _run_batch(exe, batch, limits)
        for path, target in batch:
            if target.exists():
                results[path] = target
            elif len(batch) > 1 and failure is not None:
                # The batch died part-way (timeout, crash): this file may never have been tried.
                retry = _run_batch(exe, [(path, target)], limits)
                results[path] = target if target.exists() else _failed(path, retry)
            else:
                results[path] = _failed(path, failure)
    return results


def _failed(path: Path, failure: str | None) -> SheetError:
    if failure == "timeout":
        return SheetError("conversion_timeout", "LibreOffice conversion to .xlsx timed out", path)
    detail = f": {failure}" if failure else ""
    return SheetError(
        "conversion_failed", f"LibreOffice could not convert the file to .xlsx{detail}", path
    )


def _run_batch(exe: str, batch: list[tuple[Path, Path]], limits: ReadLimits) -> str | None:
    """Convert one batch into the cache; None on a clean exit, else a short failure text."""
    with tempfile.TemporaryDirectory(prefix="fortap-convert-") as tmp:
        inbox, outbox = Path(tmp, "in"), Path(tmp, "out")
        inbox.mkdir()
        outbox.mkdir()
        inputs = []
        for path, target in batch:
            # Name the copy after its cache key so the output lands as `<key>.xlsx`.
            staged = inbox / f"{target.stem}{path.suffix.lower()}"
            shutil.copyfile(path, staged)
            inputs.append(str(staged))
        command = [
            exe,
            f"-env:UserInstallation={_profile().as_uri()}",
            "--headless",
            "--norestore",
            "--nolockcheck",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(outbox),
            *inputs,
        ]
        timeout = limits.convert_timeout_s + limits.convert_timeout_per_file_s * (len(batch) - 1)
        failure = _run(command, timeout)
        for _, target in batch:
            produced = outbox / target.name
            if produced.exists() and produced.stat().st_size > 0:
                tmp_target = target.with_suffix(f".{os.getpid()}.part")
                shutil.move(produced, tmp_target)
                os.replace(tmp_target, target)  # atomic: a parallel reader never sees half a file
        return failure


def _run(command: list[str], timeout: float) -> str | None:
    try:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, so a timeout kills soffice.bin too
        )
    except OSError as err:
        return f"could not start soffice ({err})"
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "timeout"
    if proc.returncode != 0:
        text = err.decode("utf-8", "replace").strip().splitlines()
        return f"soffice exited with status {proc.returncode}" + (f" ({text[-1]})" if text else "")
    return None


def _profile() -> Path:
    """This process's private LibreOffice profile, created once and removed at exit."""
    global _profile_dir
    if _profile_dir is None:
        _profile_dir = Path(tempfile.mkdtemp(prefix=f"fortap-soffice-{os.getpid()}-"))
        atexit.register(shutil.rmtree, _profile_dir, True)
    return _profile_dir
