"""`fortap audit`: typed numbers that stand where a formula should be, and formulas unlike
the block around them (`auditor.audit` finds them; `keys` reads two published answer keys)."""
