"""`load_cell_styles` gives every real workbook the cell formats openpyxl's `apply_stylesheet`
gives it (the reference), while skipping the named styles no `CellStyle` reads."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from openpyxl.reader.excel import ExcelReader
from openpyxl.styles.stylesheet import apply_stylesheet

from fortap.ingest import expand_paths
from fortap.sheet.styles import StyleTable, load_cell_styles

BIG_STYLES = 1_000_000  # bytes of styles.xml past which the reference takes seconds


def styles_size(path: Path) -> int:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.getinfo("xl/styles.xml").file_size
    except (zipfile.BadZipFile, KeyError, OSError):
        return -1


def cell_formats(path: Path, load) -> tuple:
    """Every cell format's `CellStyle`, and the date/timedelta format indices, as `load` reads."""
    reader = ExcelReader(str(path), read_only=False, keep_vba=False, keep_links=False)
    try:
        reader.read_manifest()
        reader.read_workbook()
        load(reader.archive, reader.wb)
    finally:
        reader.archive.close()
    wb = reader.wb
    table = StyleTable(wb)
    styles = [table[i] for i in range(len(wb._cell_styles))]
    return styles, sorted(wb._date_formats), sorted(wb._timedelta_formats), wb._number_formats


def same_formats(lean: tuple, reference: tuple) -> bool:
    """Equal cell formats; the reference's custom number formats may go on with the named
    styles' own (openpyxl binds them to the workbook), which no cell format points at."""
    *cells, numbers = lean
    *ref_cells, ref_numbers = reference
    return cells == ref_cells and list(ref_numbers[: len(numbers)]) == list(numbers)


def test_a_book_of_46720_named_styles_reads_its_cell_formats(data_dir):
    (path,) = (data_dir / "times_nz").rglob("VT_NI_IND_V2.xlsx")
    styles, dates, _, _ = cell_formats(path, load_cell_styles)
    assert len(styles) == 170 and len(set(styles)) > 10


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_cell_formats_equal_openpyxls_on_every_real_xlsx(data_dir):
    files = [f for f in expand_paths([data_dir])[0] if f.suffix.lower() in (".xlsx", ".xlsm")]
    checked = 0
    for path in files:
        size = styles_size(path)
        if size < 0 or size > BIG_STYLES:  # unreadable, or minutes of reference time (below)
            continue
        try:
            reference = cell_formats(path, apply_stylesheet)
        except Exception:  # the reference cannot read it either: ingest reports it skipped
            continue
        assert same_formats(cell_formats(path, load_cell_styles), reference), path
        checked += 1
    assert checked > 350
