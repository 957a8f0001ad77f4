"""`fortap recover`: formulas put back where a workbook holds only their values.

Some workbooks arrive as values: an export, a paste, a model whose formulas were replaced.
`recover_book` finds, for each typed number, the formula its block obeys (`fortap.synthesis`)
and keeps it where it gives exactly the typed value and the block supports it; `write_book`
(the `cli` module) saves a copy with those formulas in. Nothing here changes a value.
"""

from fortap.recover.core import RecoverConfig, Recovered, recover_book, recover_sheet, score

__all__ = ["RecoverConfig", "Recovered", "recover_book", "recover_sheet", "score"]
