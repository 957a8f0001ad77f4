"""`ReadLimits`: how much a workbook may hold before fortap refuses to read it.

Spreadsheets come from strangers. These bounds keep one hostile or broken file (a zip bomb,
a sheet with a million formatted rows, a LibreOffice conversion that hangs) from taking the
whole ingest run down with it; each breach is a `SheetError` with a stable `reason`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadLimits:
    """Bounds checked while reading one workbook."""

    max_file_bytes: int = 200 * 2**20  # size of the file on disk
    max_uncompressed_bytes: int = 2 * 2**30  # sum of the zip members' declared sizes (.xlsx/.ods)
    max_compression_ratio: float = 1000.0  # declared size / compressed size of one zip member
    ratio_min_bytes: int = 2**20  # members smaller than this are never judged by their ratio
    max_cells: int = 2_000_000  # cells stored in one sheet (valued, formula or styled)
    max_sheet_bytes: int = 1 * 2**30  # declared uncompressed size of one sheet's XML part
    max_sheet_ratio: float = 200.0  # declared / compressed size of a sheet part (real ones: < 20)
    max_rows: int = 1_048_576  # last used row of a sheet (Excel's own limit)
    max_cols: int = 16_384  # last used column of a sheet (Excel's own limit)
    convert_timeout_s: float = (
        120.0  # one LibreOffice call, plus `convert_timeout_per_file_s` per file
    )
    convert_timeout_per_file_s: float = 30.0  # added per file when several are converted at once
    convert_batch_size: int = 16  # files per LibreOffice call when many are converted

    def __post_init__(self) -> None:
        for name in (
            "max_file_bytes",
            "max_uncompressed_bytes",
            "ratio_min_bytes",
            "max_cells",
            "max_sheet_bytes",
            "max_rows",
            "max_cols",
            "convert_batch_size",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"ReadLimits.{name} must be positive, got {getattr(self, name)}")
        for name in ("max_compression_ratio", "max_sheet_ratio", "convert_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"ReadLimits.{name} must be positive, got {getattr(self, name)}")
        if self.convert_timeout_per_file_s < 0:
            raise ValueError(
                "ReadLimits.convert_timeout_per_file_s must be >= 0, "
                f"got {self.convert_timeout_per_file_s}"
            )
