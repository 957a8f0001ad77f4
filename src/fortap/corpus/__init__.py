"""The ForTaP pretraining corpus: formula cells of real tables -> serialised samples in shards.

Modules: `headers` (a cell's nearest top and left header), `facts` (what one formula says
about its table: kept or why not, referenced cells, NRP header pairs, NCP groups), `samples`
(one formula cell -> one `Example` whose `targets[FORMULA_KEY]` is a `FormulaTargets`),
`snippets` (a table's context cut into snippets), `split` (workbook de-duplication and the
train/dev/test split), `tasks` (the resumable units of a build), `stats` (counts and label
distributions), `build` (`run_build_corpus`, the command).
"""
