"""What target builders need from the tokenizer: special ids and a way to encode loose text.

`Vocab` is the one adaptation point between the objectives and `fortap.text.tokenizer`:
`Vocab.from_tokenizer` reads the ids once; tests build a `Vocab` by hand over a toy vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from fortap.text.numbers import Features

# (token id, number features) per word piece of a text.
EncodeText = Callable[[str], list[tuple[int, Features]]]


@dataclass(frozen=True)
class Vocab:
    """Special ids, the size of the vocabulary, and a text encoder for appended snippets."""

    size: int  # rows of the token table the MLM decoder predicts over
    pad: int
    cls: int
    sep: int
    mask: int
    emp: int  # the empty-cell token
    encode_text: EncodeText  # text -> word pieces with number features, no [SEP]
    no_target: frozenset[int] = field(default_factory=frozenset)  # never masked nor predicted
    random_ids: tuple[int, int] = (1996, 29612)  # [low, high) ordinary word ids for MLM noise

    def __post_init__(self) -> None:
        if self.size <= 0:
            raise ValueError(f"Vocab.size must be positive, got {self.size}")
        low, high = self.random_ids
        if not 0 <= low < high:
            raise ValueError(f"Vocab.random_ids must be an increasing pair, got {self.random_ids}")
        specials = {self.pad, self.cls, self.sep, self.mask, self.emp}
        object.__setattr__(self, "no_target", frozenset(self.no_target) | specials)

    @cached_property
    def no_target_table(self) -> np.ndarray:
        """(V,) bool, True at the `no_target` ids: the same set as an array lookup."""
        table = np.zeros(max(self.size, max(self.no_target) + 1), dtype=bool)
        table[list(self.no_target)] = True
        return table

    def random_id(self, rng) -> int:
        """An ordinary word id drawn uniformly (clipped to the vocabulary)."""
        low, high = self.random_ids
        high = min(high, self.size)
        if low >= high:
            low = 0
        while True:
            token = rng.randrange(low, high)
            if token not in self.no_target:
                return token

    @classmethod
    def from_tokenizer(cls, tokenizer) -> Vocab:
        """Read the ids of `fortap.text.tokenizer.Tokenizer`."""
        return tokenizer_vocab(tokenizer)


def tokenizer_vocab(tokenizer) -> Vocab:
    """Build the `Vocab` of a `fortap.text.tokenizer.Tokenizer`.

    [VAL], [UNK], [FORMULA] and the formula tokens are inputs only: predicting "[VAL]" teaches
    nothing, and formula tokens belong to the formula objectives.
    """
    no_target = {tokenizer.val_id, tokenizer.unk_id, tokenizer.formula_id, *tokenizer.formula_ids}
    return Vocab(
        size=tokenizer.vocab_size,
        pad=tokenizer.pad_id,
        cls=tokenizer.cls_id,
        sep=tokenizer.sep_id,
        mask=tokenizer.mask_id,
        emp=tokenizer.emp_id,
        encode_text=tokenizer.encode_cell,
        no_target=frozenset(no_target),
    )
