"""Names that both halves of `bench/device_pair.py` use: the GPU-side run (the bench) and the
steps here (`pair_pack.py`). Standard library only: the GPU machine runs it without fortap."""

from __future__ import annotations

WORDS = "embeddings.word_embeddings.weight"
PRETRAIN = {  # the tiny-1h recipe's objectives and weights (models/encoders/README.md)
    "tuta": ["--objectives", "mlm,cell_cloze,table_context"],
    "fortap": ["--objectives", "mlm,cell_cloze,table_context,nrp,ncp,formula_mlm",
               "--set", "objectives.nrp.weight=4", "--set", "objectives.ncp.weight=4",
               "--set", "data.formula_samples_only=true"],
}  # fmt: skip
