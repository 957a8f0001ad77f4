"""Tasks over the encoder, one folder each (`formula_prediction/`), registered in
`registry.py` (one line per task, imported lazily) and described by `base.Task`; their run
configs compose as `run_config.py` describes."""
