"""Read a .csv or .tsv file as one sheet of values (no formulas, no styles).

CSV files found in the wild are rarely UTF-8 and rarely comma-separated in Europe, so the
encoding is detected with charset-normalizer and the delimiter sniffed from the first lines.
Cells that read as numbers become floats with kind "number"; everything else stays text.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from charset_normalizer import from_bytes

from fortap.errors import SheetError
from fortap.sheet.limits import ReadLimits
from fortap.sheet.model import Cell, Sheet

DELIMITERS = ",;\t|"
SNIFF_BYTES = 64 * 1024


def read_delimited(path: Path, limits: ReadLimits) -> Sheet:
    """The file as one `Sheet` named after the file's stem."""
    text = decode(path.read_bytes(), path)
    delimiter = sniff_delimiter(text[:SNIFF_BYTES], default="\t" if path.suffix == ".tsv" else ",")
    cells: dict[tuple[int, int], Cell] = {}
    n_rows = n_cols = 0
    try:
        for r, record in enumerate(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)):
            if r >= limits.max_rows:
                raise SheetError(
                    "sheet_too_large", f"more than {limits.max_rows:,} rows", path, path.stem
                )
            for c, field in enumerate(record):
                cell = parse_field(field)
                if cell is not None:
                    cells[(r, c)] = cell
                    n_rows, n_cols = max(n_rows, r + 1), max(n_cols, c + 1)
            if len(cells) > limits.max_cells:
                raise SheetError(
                    "sheet_too_large", f"more than {limits.max_cells:,} cells", path, path.stem
                )
    except csv.Error as err:
        raise SheetError("corrupt_csv", f"malformed CSV ({err})", path) from None
    return Sheet(name=path.stem, book=str(path), n_rows=n_rows, n_cols=n_cols, cells=cells)


def decode(data: bytes, path: Path) -> str:
    """Bytes -> text in the detected encoding (UTF-8 first; BOMs honoured)."""
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        guess = from_bytes(data[:SNIFF_BYTES]).best()
        if guess is None or not guess.encoding.startswith("utf_16"):
            raise SheetError("not_a_spreadsheet", "binary data, not a text table", path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    guess = from_bytes(data).best()
    if guess is None:
        raise SheetError("unknown_encoding", "text encoding could not be detected", path)
    return str(guess)


def sniff_delimiter(sample: str, default: str) -> str:
    """The delimiter the sample's lines agree on, else `default`."""
    lines = "\n".join(sample.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(lines, delimiters=DELIMITERS).delimiter
    except csv.Error:
        return default


def parse_field(field: str) -> Cell | None:
    """One CSV field -> a number or text `Cell`; None for a blank field."""
    stripped = field.strip()
    if not stripped:
        return None
    number = _as_number(stripped)
    if number is not None:
        return Cell(number, "number")
    return Cell(field, "text")


def _as_number(text: str) -> float | None:
    candidate = text.replace(",", "") if _has_thousands_commas(text) else text
    if "_" in candidate:
        return None  # Python's float() accepts 1_000; a spreadsheet does not
    try:
        value = float(candidate)
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # "nan"/"inf" are words in a table


def _has_thousands_commas(text: str) -> bool:
    """`1,234,567.5` style: commas between groups of exactly three digits."""
    head, _, _ = text.lstrip("+-").partition(".")
    groups = head.split(",")
    return (
        len(groups) > 1
        and 1 <= len(groups[0]) <= 3
        and groups[0].isdigit()
        and all(len(g) == 3 and g.isdigit() for g in groups[1:])
    )
