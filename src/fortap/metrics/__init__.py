"""What every objective and task measures with, in one place below them all.

`f1` (the one F1 of the package: objectives' metrics, log means, cell types, the audit) and
`bootstrap` (cluster-bootstrap intervals: workbooks, tables or files resampled with
replacement, for a rate, the gap between two systems, or any statistic a task computes from
its own draws). Pure functions of numbers; nothing here imports another part of `fortap`.
"""
