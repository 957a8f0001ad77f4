"""Fuzz of the `fortap` command line: every command against a corpus of hostile inputs.

The corpus (made again by this script in a temporary folder) holds what a stranger's file or a
careless command line can be: a cell at XFD1048576, a note at AZ60000, a 4 M-cell bomb in under a
MB, a zip bomb member, an empty file, a PDF and random bytes named .xlsx, a truncated zip, CSVs
in UTF-16, Latin-1 and with NUL bytes, sheets named `a/b` and `../../x`, a folder and a missing
path given as a workbook; then bad option values and unwritable outputs (`/proc`, under a file,
a .txt PNG). Each case runs `python -m fortap ...` in its own process, timed, its peak resident
memory read from the kernel, and killed past `--timeout` seconds. A case passes when its exit
code is the expected one (0 for a valid if odd input, non-zero for a refusal), nothing printed
holds a traceback, an error is one line, and it stays under `--max-mb` and the time limit.

    python bench/cli_fuzz.py --json out.json      # the whole corpus
    python bench/cli_fuzz.py --fast               # the CI subset (tests/test_cli_fuzz.py)
    python bench/cli_fuzz.py --dense-only         # the 1.9 M-cell book and the cap books

Then (not with `--fast` or `--no-dense`) a generated book of 1.9 M cells of varied numbers
(`dense_book`, under every reader limit): `ingest` must read it in at most 1.5 GB, and `audit`,
`suggest` and `cell-types`, which hold far more a cell, must refuse it, naming their cap, within
5 s; then each of those three on a book holding exactly its cap (`cap_cases`), which it must
read in at most 1.5 GB. Each row reports its peak memory per 100k cells.

Targets (issue 46): at least 60 cases; 0 tracebacks, 0 hangs, 0 wrong exit codes, 0 errors
longer than a line; the peak memory of every call under 1 GB (the dense book's, above).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "try:\n"
    "    p = subprocess.run(sys.argv[2:], capture_output=True, text=True, errors='replace',\n"
    "                       timeout=float(sys.argv[1]))\n"
    "    code, out, err = p.returncode, p.stdout, p.stderr\n"
    "except subprocess.TimeoutExpired:\n"
    "    code, out, err = 'hang', '', ''\n"
    "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
    "import json\n"
    "print(json.dumps([code, time.perf_counter() - t, rss, out[-2000:], err[-2000:]]))\n"
)
OK, FAIL = 0, "nonzero"


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]
    expect: int | str  # 0, or "nonzero" for a refusal
    fast: bool = False  # part of the CI subset
    seconds: float | None = None  # its own time limit (else `--timeout`)
    cells: int = 0  # cells with content of its book, where its memory is read per cell


@dataclass
class Result:
    name: str
    expect: int | str
    code: int | str
    seconds: float
    peak_mb: float
    traceback: bool
    lines: int  # non-empty lines of stderr on a refusal
    passed: bool
    cells: int = 0  # `Case.cells`


def build_corpus(folder: Path) -> dict[str, Path]:
    """Write the hostile files; returns name -> path."""
    import openpyxl

    files: dict[str, Path] = {}

    def book(name: str, cells: dict[str, object], title: str = "Sheet1") -> None:
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.title = title
        for address, value in cells.items():
            ws[address] = value
        files[name] = folder / f"{name}.xlsx"
        wb.save(files[name])

    book("ten", {f"{c}{r}": (f"r{r}" if c == "A" else r * 3) for r in range(1, 6) for c in "AB"})
    book("far", {"A1": "note", "XFD1048576": 5})
    book("far_note", {"A1": "title", "B2": 3, "AZ60000": "a note far below"})
    book("slash_sheet", {"A1": "x", "B1": 1, "A2": "y", "B2": 2}, title="SLASH")
    book("dots_sheet", {"A1": "x", "B1": 1, "A2": "y", "B2": 2}, title="DOTS")
    # names Excel refuses but a file can still hold (openpyxl refuses to write them)
    _rename_sheet(files["slash_sheet"], "SLASH", "a/b")
    _rename_sheet(files["dots_sheet"], "DOTS", "../../x")
    files["bomb"] = cell_bomb(folder / "bomb.xlsx")
    files["zip_bomb"] = _zip_bomb(folder / "zip_bomb.xlsx")
    raw = {
        "empty.xlsx": b"",
        "pdf.xlsx": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n",
        "random.xlsx": bytes(range(256)) * 40,
        "truncated.xlsx": files["ten"].read_bytes()[:1500],
        "utf16.csv": "name,value\nα,1\nβ,2\n".encode("utf-16"),
        "latin1.csv": "name;value\ncafé;1\nniño;2\n".encode("latin-1"),
        "nul.csv": b"a,b\n1,\x00\x00\n2,3\n",
        "notes.txt": b"not a workbook\n",
    }
    for name, data in raw.items():
        files[name.replace(".", "_")] = folder / name
        (folder / name).write_bytes(data)
    (folder / "a-folder").mkdir()
    files["folder"] = folder / "a-folder"
    files["missing"] = folder / "missing.xlsx"
    (folder / "a-file").write_text("x")
    files["a_file"] = folder / "a-file"
    return files


def cases(files: dict[str, Path], out: Path) -> list[Case]:
    """Every command over every hostile file, then bad options and unwritable outputs."""
    valid = {"ten", "far", "far_note", "slash_sheet", "dots_sheet", "utf16_csv", "latin1_csv"}
    answerable = {"ten", "slash_sheet", "dots_sheet", "utf16_csv", "latin1_csv"}  # hold a table
    found: list[Case] = []
    for name, path in files.items():
        if name in ("a_file",):
            continue
        good = name in valid
        found += [
            Case(
                f"ingest {name}",
                ("ingest", str(path), "-o", str(out / f"ingest-{name}")),
                OK if good else FAIL,
                fast=name in ("far", "pdf_xlsx"),
            ),  # fmt: skip
            Case(
                f"audit {name}",
                ("audit", str(path), "--max-checks", "20"),
                OK if good else FAIL,
                fast=name == "bomb",
            ),  # fmt: skip
            Case(f"suggest {name}", ("suggest", str(path), "C3"), OK if good else FAIL),
            Case(f"ask {name}", ("ask", str(path), "x"), OK if name in answerable else FAIL),
            Case(f"cell-types {name}", ("cell-types", str(path)), OK if good else FAIL),
        ]
    ten, far = str(files["ten"]), str(files["far"])
    blocker = str(files["a_file"])
    found += [
        Case(
            "ingest --workers 0",
            ("ingest", ten, "-o", str(out / "w0"), "--workers", "0"),
            FAIL,
            fast=True,
        ),  # fmt: skip
        Case(
            "ingest --files-per-task 0",
            ("ingest", ten, "-o", str(out / "f0"), "--files-per-task", "0"),
            FAIL,
        ),  # fmt: skip
        Case("ingest -o /proc", ("ingest", ten, "-o", "/proc/fortap-x"), FAIL),
        Case("ingest -o a file", ("ingest", ten, "-o", blocker), FAIL),
        Case("audit -o a file", ("audit", ten, "-o", blocker), FAIL, fast=True),
        Case("audit -o under a file", ("audit", ten, "-o", f"{blocker}/out"), FAIL),
        Case("audit -o /proc", ("audit", ten, "-o", "/proc/fortap-x"), FAIL),
        Case("audit --min-score 2", ("audit", ten, "--min-score", "2"), FAIL),
        Case("audit --check-seconds nan", ("audit", ten, "--check-seconds", "nan"), FAIL),
        Case("audit --max-checks -1", ("audit", ten, "--max-checks", "-1"), FAIL),
        Case("audit a folder", ("audit", str(files["folder"])), FAIL),
        Case("ask empty question", ("ask", ten, ""), FAIL, fast=True),
        Case("ask blank question", ("ask", ten, "   "), FAIL),
        Case("cell-types --rows -1", ("cell-types", ten, "--rows", "-1"), FAIL),
        Case("cell-types --png .txt", ("cell-types", ten, "--png", str(out / "x.txt")), FAIL),
        Case(
            "cell-types --png no folder", ("cell-types", ten, "--png", str(out / "no/x.png")), FAIL
        ),  # fmt: skip
        Case("cell-types --png /proc", ("cell-types", ten, "--png", "/proc/x.png"), FAIL),
        Case(
            "cell-types --model missing",
            ("cell-types", ten, "--model", str(out / "none")),
            FAIL,
            fast=True,
        ),  # fmt: skip
        Case("formula unbalanced", ("formula", "=SUM(A1:A3"), FAIL),
        Case("formula empty", ("formula", ""), FAIL),
        Case(
            "formula --report .txt",
            ("formula", "--file", blocker, "--report", str(out / "r.txt")),
            FAIL,
        ),  # fmt: skip
        Case("suggest bad cell", ("suggest", ten, "ZZZZZ0"), FAIL),
        Case("suggest far cell", ("suggest", far, "XFD1048575"), OK),
        Case("serve --port -1", ("serve", "--port", "-1"), FAIL),
        Case("serve --max-upload-mb 0", ("serve", "--max-upload-mb", "0"), FAIL),
        Case(
            "build-corpus --workers 0",
            ("build-corpus", ten, "-o", str(out / "c0"), "--workers", "0"),
            FAIL,
        ),  # fmt: skip
        Case("finetune unknown task", ("finetune", "nope", ten, "-o", str(out / "ft")), FAIL),
        Case("pretrain -o a file", ("pretrain", "--tables", ten, "-o", blocker), FAIL),
    ]
    return found


def run_case(case: Case, cwd: Path, timeout: float, max_mb: float) -> Result:
    timeout = case.seconds or timeout
    cmd = [sys.executable, "-c", MEASURE, str(timeout), sys.executable, "-m", "fortap", *case.args]
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout + 60)
    code, seconds, peak, out, err = json.loads(done.stdout)
    traceback = "Traceback (most recent call last)" in out + err
    lines = len([line for line in err.splitlines() if line.strip()])
    if code == "hang":
        right = False
    elif case.expect == FAIL:
        right = code != 0 and lines <= 1
    else:
        right = code == case.expect
    passed = right and not traceback and peak <= max_mb and code != "hang"
    return Result(case.name, case.expect, code, round(seconds, 2), round(peak, 1), traceback,
                  lines, passed, case.cells)  # fmt: skip


DENSE_CELLS = 1_900_000  # the dense book's cells (`dense_book`: 95,000 rows of 20)
REFUSE_S = 5.0  # a command that refuses the dense book must say so within this
DENSE_MB = 1536.0  # or read it in at most this much memory


def dense_cases(book: Path, out: Path) -> list[Case]:
    """Each command that reads a whole book, on 1.9 M cells: it reads them in bounded memory
    (ingest streams tables) or refuses the book, naming its cap, within `REFUSE_S`."""
    return [
        Case("dense ingest", ("ingest", str(book), "-o", str(out / "dense")), OK, seconds=600,
             cells=DENSE_CELLS),
        Case("dense audit", ("audit", str(book)), FAIL, seconds=REFUSE_S,
             cells=DENSE_CELLS),
        Case("dense suggest", ("suggest", str(book), "C3"), FAIL, seconds=REFUSE_S,
             cells=DENSE_CELLS),
        Case("dense cell-types", ("cell-types", str(book)), FAIL, seconds=REFUSE_S,
             cells=DENSE_CELLS),
    ]


def caps() -> dict[str, int]:
    """Each refusing command's cap: the cells with content it reads at most."""
    from fortap.audit.cli import MAX_AUDIT_CELLS
    from fortap.suggest.engine import MAX_BOOK_CELLS
    from fortap.tasks.cell_types.show import MAX_TYPED_CELLS

    return {"audit": MAX_AUDIT_CELLS, "suggest": MAX_BOOK_CELLS, "cell-types": MAX_TYPED_CELLS}


def cap_cases(folder: Path) -> list[Case]:
    """Each refusing command on a book of as many cells as its cap allows (a header row and
    varied numbers, 20 columns): a cap is a bound only if the book it lets through is read in
    at most `DENSE_MB`."""
    found = []
    for command, cap in caps().items():
        book = dense_book(folder / f"cap-{command}.xlsx", cap // 20, 20)
        args = (command, str(book), *(("C3",) if command == "suggest" else ()))
        found.append(Case(f"dense at cap {command} {cap // 1000}k", args, OK, seconds=900,
                          cells=cap))
    return found


def run_all(
    fast: bool = False, timeout: float = 60.0, max_mb: float = 1024.0, folder: Path | None = None,
    dense: bool = False, corpus: bool = True,
) -> tuple[list[Result], list[dict]]:
    """Build the corpus, run the cases (only the CI subset when `fast`; the 1.9 M-cell book's
    and the books at each cap with `dense`; those alone without `corpus`); results and targets."""
    with tempfile.TemporaryDirectory(prefix="fortap-fuzz-", dir=folder) as tmp:
        root = Path(tmp)
        (root / "in").mkdir()
        (root / "out").mkdir()
        results = []
        if corpus:
            files = build_corpus(root / "in")
            chosen = [c for c in cases(files, root / "out") if c.fast or not fast]
            results = [run_case(c, root, timeout, max_mb) for c in chosen]
        if dense:
            book = dense_book(root / "in" / "dense.xlsx", DENSE_CELLS // 20, 20)
            chosen = dense_cases(book, root / "out") + cap_cases(root / "in")
            results += [run_case(c, root, timeout, DENSE_MB) for c in chosen]
    return results, targets(results, fast, max_mb)


def targets(results: list[Result], fast: bool, max_mb: float) -> list[dict]:
    wrong = sum(r.code != "hang" and not r.passed and not r.traceback for r in results)
    plain = [r for r in results if not r.name.startswith("dense ")]
    peak = max((r.peak_mb for r in plain), default=0.0)
    dense = [r for r in results if r.name.startswith("dense ")]
    rows = [(f"{r.name}: peak MB per 100k cells (≤ {DENSE_MB:.0f} MB in all, or refused within "
             f"{REFUSE_S:.0f} s)", round(r.peak_mb / (r.cells / 1e5), 1),
             round(DENSE_MB / (r.cells / 1e5), 1), r.passed) for r in dense]  # fmt: skip
    rows += [] if not plain else [
        ("cases", len(results), 5 if fast else 60, len(results) >= (5 if fast else 60)),
        ("tracebacks", sum(r.traceback for r in results), 0, None),
        ("hangs", sum(r.code == "hang" for r in results), 0, None),
        ("wrong exit codes or long errors", wrong, 0, None),
        ("peak memory (MB)", peak, max_mb, peak <= max_mb),
    ]
    return [{"name": n, "value": v, "target": t, "met": v == t if met is None else met}
            for n, v, t, met in rows]  # fmt: skip


HEAD = b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'


def _with_sheet(path: Path, write) -> Path:
    """An openpyxl workbook whose one sheet's XML `write(part)` writes, streamed into the zip."""
    import openpyxl

    plain = io.BytesIO()
    openpyxl.Workbook().save(plain)
    src = zipfile.ZipFile(plain)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename != "xl/worksheets/sheet1.xml":
                dst.writestr(info.filename, src.read(info.filename))
                continue
            with dst.open(info.filename, "w", force_zip64=True) as part:
                write(part)
    return path


def cell_bomb(path: Path, rows: int = 200_000, cols: int = 20, dimension: bool = False) -> Path:
    """`rows` x `cols` cells of `<c><v>1</v></c>` in well under a MB; `dimension`: with an
    honest `<dimension>` (else the reader must count the cells)."""
    row = b"<row>" + b"<c><v>1</v></c>" * cols + b"</row>"
    last = f"{chr(ord('A') + cols - 1)}{rows}" if cols <= 26 else ""
    ref = f'<dimension ref="A1:{last}"/>'.encode() if dimension and last else b""

    def write(part) -> None:
        part.write(HEAD + ref + b"<sheetData>")
        for _ in range(rows // 1000):
            part.write(row * 1000)
        part.write(b"</sheetData></worksheet>")

    return _with_sheet(path, write)


def dense_book(path: Path, rows: int = 95_000, cols: int = 20, seed: int = 0) -> Path:
    """`rows` x `cols` cells of varied numbers and a header row, as a real export holds them
    (about 12 MB for 1.9 M cells: under every reader limit, so each command must bound its own
    memory or refuse the sheet)."""
    import random

    rng = random.Random(seed)
    letters = [chr(ord("A") + c) for c in range(cols)]

    def write(part) -> None:
        part.write(HEAD + b'<sheetData><row r="1">' + b"".join(
            f'<c r="{x}1" t="inlineStr"><is><t>col {x}</t></is></c>'.encode() for x in letters
        ) + b"</row>")  # fmt: skip
        for r in range(2, rows + 1):
            cells = "".join(f'<c r="{x}{r}"><v>{rng.random() * 1e4:.2f}</v></c>' for x in letters)
            part.write(f'<row r="{r}">{cells}</row>'.encode())
        part.write(b"</sheetData></worksheet>")

    return _with_sheet(path, write)


def _rename_sheet(path: Path, old: str, new: str) -> None:
    """Rename a sheet in the workbook part itself."""
    data = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            member = src.read(info.filename)
            if info.filename == "xl/workbook.xml":
                member = member.replace(f'name="{old}"'.encode(), f'name="{new}"'.encode())
            dst.writestr(info, member)


def _zip_bomb(path: Path) -> Path:
    """A workbook with a 200 MB member of zeros that compresses to about 200 KB."""
    import openpyxl

    plain = io.BytesIO()
    openpyxl.Workbook().save(plain)
    src = zipfile.ZipFile(plain)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
        with dst.open("xl/media/zeros.bin", "w", force_zip64=True) as member:
            for _ in range(200):
                member.write(bytes(2**20))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="only the CI subset")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a call may take")
    ap.add_argument("--max-mb", type=float, default=1024.0, help="peak memory a call may use")
    ap.add_argument("--json", type=Path, help="write results and targets here")
    ap.add_argument("--no-dense", action="store_true", help="without the 1.9 M-cell book")
    ap.add_argument("--dense-only", action="store_true", help="only the 1.9 M-cell and cap books")
    args = ap.parse_args()
    start = time.perf_counter()
    results, met = run_all(args.fast, args.timeout, args.max_mb, dense=not args.no_dense,
                           corpus=not args.dense_only)  # fmt: skip
    print(f"{'case':44} {'expect':>7} {'code':>5} {'s':>6} {'MB':>7} ok")
    for r in results:
        print(f"{r.name[:44]:44} {str(r.expect):>7} {str(r.code):>5} {r.seconds:6.1f} "
              f"{r.peak_mb:7.0f} {'yes' if r.passed else 'NO'}")  # fmt: skip
    for t in met:
        print(f"target {t['name']}: {t['value']} vs {t['target']} -> "
              f"{'met' if t['met'] else 'MISSED'}")  # fmt: skip
    print(f"{len(results)} calls in {time.perf_counter() - start:.0f} s")
    if args.json:
        doc = {"results": [asdict(r) for r in results], "targets": met}
        args.json.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
