"""Formulas in the paper's representation: typed AST, prefix tokens, sketch, ranges, verdict.

Entry point: `parse_formula(text, host_sheet, cell) -> Formula`; a table's formula cells are
parsed once through it by `table_formulas.parse_table_formulas`, and later stages carry those
`Formula` values. Modules: `parser` (formualizer
-> our AST in `nodes`), `printer` (AST -> text), `tokens` (the 41-token vocabulary), `sketch`
(prefix order, sketch, ranges), `references` (A1 <-> coordinates, R1C1), `filters` (keep/discard
reasons, with `excel_functions`), `occurrences` (first five per row/column), `targets` (NCP
candidates, referenced cells), `report` (the `fortap formula` command); for decoding: `grammar`
(the arity table), `prefix_grammar` (which token may come next), `from_sketch` (sketch + cells ->
AST), `validity` (what Excel rejects) and `degenerate` (valid forms to rank lower).
"""

from fortap.formula.formula import Formula, parse_formula
from fortap.formula.tokens import FORMULA_VOCAB, FormulaToken

__all__ = ["FORMULA_VOCAB", "Formula", "FormulaToken", "parse_formula"]
