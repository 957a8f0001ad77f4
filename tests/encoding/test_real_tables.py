"""Real tables survive serialisation: HiTab tables in row windows, EUSES workbooks' formulas as tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from fortap.encoding.collate import collate
from fortap.encoding.selection import chunk_rows, select_cells
from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.sheet.model import Region, Sheet
from fortap.sheet.read import read_workbook
from fortap.table.hitab import read_hitab
from fortap.table.model import Table

BOOKS = ("01sumdat.xlsx", "1999%20PWR%20Effluent-DRAFT.xlsx", "BLANK%20CHILDCARE%20F#A8B08.xlsx")


def check_example(ex, cfg: SerializeConfig) -> None:
    """Invariants every Example keeps."""
    assert len(ex) <= cfg.max_seq_len
    assert ex.token_ids[0] == 101
    assert (
        len(
            {
                len(getattr(ex, f))
                for f in ("numbers", "rows", "cols", "top_coords", "formats", "cell_ids")
            }
        )
        == 1
    )
    assert sorted(set(ex.cell_ids) - {0}) == list(range(1, len(ex.cell_coords) + 1))
    assert all(len(c) == 4 for c in ex.top_coords + ex.left_coords)


@pytest.mark.slow
def test_hitab_tables_serialise_in_row_windows(data_dir: Path, tokenizer):
    cfg = SerializeConfig()
    paths = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:40]
    assert len(paths) == 40
    examples = []
    for path in paths:
        table = read_hitab(path)
        context = " ".join(table.context)
        for window in chunk_rows(table, tokenizer, cfg, context=context):
            ex = serialize(table, tokenizer, cfg, context=context, cells=window)
            check_example(ex, cfg)
            examples.append(ex)
        target = (table.n_rows - 1, table.n_cols - 1)
        ex = serialize(
            table, tokenizer, cfg, context=context, cells=select_cells(table, target), keep=[target]
        )
        check_example(ex, cfg)
        assert target in ex.cell_coords
    batch = collate(examples)
    assert batch.token_ids.shape[0] == len(examples)
    assert batch.token_mask.sum().item() == sum(len(ex) for ex in examples)


def sheet_table(sheet: Sheet, max_rows: int = 120) -> Table:
    """The top-left of a sheet as one table with one header row and one header column."""
    n_rows, n_cols = min(sheet.n_rows, max_rows), min(sheet.n_cols, 40)
    cells = tuple(tuple(sheet.cell(r, c) for c in range(n_cols)) for r in range(n_rows))
    merged = tuple(m for m in sheet.merged if m.bottom < n_rows and m.right < n_cols)
    return Table(sheet.book, sheet.name, Region(0, 0, n_rows - 1, n_cols - 1), cells, merged, 1, 1)


@pytest.mark.slow
def test_workbook_formulas_serialise_as_pointing_tokens(data_dir: Path, tokenizer):
    cfg = SerializeConfig()
    shown = fell_back = pointing = 0
    examples = []
    for name in BOOKS:
        book = read_workbook(data_dir / "euses_excelint" / "subjects_xlsx" / name)
        for sheet in book.sheets:
            if sheet.n_rows == 0 or sheet.n_cols == 0:
                continue
            table = sheet_table(sheet)
            targets = [
                (r, c)
                for r in range(table.n_rows)
                for c in range(table.n_cols)
                if table.cell(r, c).formula
            ]
            for target in targets[:15]:
                ex = serialize(
                    table,
                    tokenizer,
                    cfg,
                    cells=select_cells(table, target),
                    formula_inputs={target: "tokens"},
                )
                check_example(ex, cfg)
                examples.append(ex)
                if ex.meta.get("formula_fallbacks"):
                    fell_back += 1
                    continue
                shown += 1
                k = ex.cell_coords.index(target) + 1
                spots = {(ex.rows[i], ex.cols[i]) for i, cid in enumerate(ex.cell_ids) if cid == k}
                pointing += len(spots) > 1
    print(f"formulas shown as tokens {shown}, fell back {fell_back}, pointing at cells {pointing}")
    assert shown + fell_back > 100
    assert shown >= 0.9 * (shown + fell_back), (shown, fell_back)
    assert pointing >= 0.5 * shown, (
        pointing,
        shown,
    )  # most formulas reference cells of their table
    assert collate(examples).token_ids.shape[0] == len(examples)
