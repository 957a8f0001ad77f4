"""The tree transformer: `ModelConfig`, `FortapEncoder`, its output and its checkpoints.

config.py (sizes), tree_ids.py (coordinates → node ids), embeddings.py, tree_attention.py,
layers.py, encoder.py, output.py (the `EncoderOutput` contract), state_file.py (safetensors
save/load of any module), pretrained.py (the MiniLM init), precision.py (the one bf16 policy of training and inference).
"""

from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.model.output import EncoderOutput
from fortap.model.pretrained import LoadReport, load_minilm

__all__ = ["EncoderOutput", "FortapEncoder", "LoadReport", "ModelConfig", "load_minilm"]
