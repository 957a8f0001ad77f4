"""Formula prediction: given a table and an empty cell, which formula belongs there?

`task.py` is the registry's entry (`TASK`). Its parts: `examples` (targets and the split),
`model` (encoder + formula decoder), `decoder` (the sketch and range decoder), `copy_head` (copy a
shown formula or write one), `grammar_bias` (the prefix grammar as a logit bias), `finetune`
(through the shared training loop), `decoding` (beam search), `metrics` (exact match of prefix
sketches), `evaluate` (metrics, predictions), `report` (comparison table and plots), `hits`
(per-target hits read back from predictions), `rule_baseline` (the rule-based suggester),
`checkpoint` (saved models), `split` (workbook split of a run), `config` (the run config) and
`run` (the commands' runs).

`predictor.py` (`FormulaPredictor`: load, predict, save) is the entry point for callers
outside the task, and `release.py` writes and checks a released model folder.
"""
