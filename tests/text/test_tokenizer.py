"""The number-aware WordPiece tokenizer over the MiniLM vocabulary, by example."""

from __future__ import annotations

from pathlib import Path

import pytest

from fortap.text.numbers import NAN_FEATURES as NAN
from fortap.text.tokenizer import Tokenizer, TokenizerConfig, added_token_words, default_vocab_path


def tokens(tokenizer: Tokenizer, text: str) -> list[tuple[str, tuple[int, int, int, int]]]:
    return [(tokenizer.token_of(i), n) for i, n in tokenizer.encode_cell(text)]


def test_vocab_is_the_bert_uncased_one_shipped_with_minilm(tokenizer):
    path = default_vocab_path()
    assert path.name == "vocab.txt" and path.is_file()
    assert len(path.read_text(encoding="utf-8").splitlines()) == 30522
    assert tokenizer.vocab_size == 30522


def test_special_and_added_ids(tokenizer):
    assert (tokenizer.pad_id, tokenizer.val_id, tokenizer.emp_id) == (0, 1, 2)
    assert (tokenizer.unk_id, tokenizer.cls_id, tokenizer.sep_id, tokenizer.mask_id) == (
        100,
        101,
        102,
        103,
    )
    assert tokenizer.formula_id == 104
    assert [tokenizer.id_of(t) for t in ("[PAD]", "[VAL]", "[EMP]", "[FORMULA]", "[CLS]", "[SEP]", "[MASK]")] == [
        0, 1, 2, 104, 101, 102, 103,
    ]  # fmt: skip
    assert tokenizer.formula_ids == tuple(range(110, 151))


def test_formula_tokens_take_ids_110_to_150_in_vocabulary_order(tokenizer):
    names = tokenizer.formula_vocab
    assert len(names) == 41
    assert [tokenizer.formula_token_id(name) for name in names] == list(range(110, 151))
    assert tokenizer.token_of(110) == "[START]"
    assert tokenizer.token_of(113) == "[RANGE]"
    assert (
        tokenizer.formula_token_id("SUM")
        == tokenizer.formula_token_id("[SUM]")
        == 110 + names.index("[SUM]")
    )


def test_ordinary_tokens_keep_their_minilm_ids(tokenizer):
    assert tokenizer.id_of("the") == 1996
    assert tokenizer.id_of("%") == 1003
    assert tokenizer.token_of(105) == "[unused100]"  # untouched unused slots stay


def test_every_added_token_is_named_by_ordinary_words(tokenizer):
    words = added_token_words(tokenizer)
    assert sorted(words) == [1, 2, 104, *range(110, 151)]
    named = {tokenizer.token_of(k): [tokenizer.token_of(i) for i in v] for k, v in words.items()}
    assert named["[SUM]"] == ["sum"] and named["[<>]"] == ["<", ">"]
    assert named["[RANGE]"] == ["cell"] and named["[FORMULA]"] == ["formula"]
    assert named["[VLOOKUP]"] == ["look", "##up"]
    added = set(words)
    for ids in words.values():  # words, never another added or unused slot
        assert all(i not in added and not tokenizer.token_of(i).startswith("[") for i in ids)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("58.50%", [("[VAL]", (2, 2, 5, 0)), ("%", NAN)]),
        ("$1,234.5", [("$", NAN), ("[VAL]", (4, 1, 1, 5))]),
        ("abc123def", [("abc", NAN), ("123", (3, 0, 1, 3)), ("def", NAN)]),
        ("3,000", [("3000", (4, 0, 3, 0))]),
        (".5", [(".", NAN), ("5", (1, 0, 5, 5))]),
        (
            "192.0.0.1",
            [
                ("192", (3, 0, 1, 2)),
                (".", NAN),
                ("0", (1, 0, 0, 0)),
                (".", NAN),
                ("0", (1, 0, 0, 0)),
                (".", NAN),
                ("1", (1, 0, 1, 1)),
            ],
        ),
        ("Total 2019.", [("total", NAN), ("2019", (4, 0, 2, 9)), (".", NAN)]),
        ("-12", [("-", NAN), ("12", (2, 0, 1, 2))]),
        ("Héllo WORLD", [("hello", NAN), ("world", NAN)]),
        ("Spreadsheets", [("spreads", NAN), ("##hee", NAN), ("##ts", NAN)]),
        ("123456", [("[VAL]", (6, 0, 1, 6))]),
    ],
)
def test_encode_cell(tokenizer, text, expected):
    assert tokens(tokenizer, text) == expected


def test_blank_text_has_no_tokens(tokenizer):
    assert tokenizer.encode_cell("") == []
    assert tokenizer.encode_cell(" \t\n") == []


def test_special_token_text_in_a_cell_is_not_special(tokenizer):
    assert tokens(tokenizer, "[SEP]") == [("[", NAN), ("sep", NAN), ("]", NAN)]
    assert tokens(tokenizer, "[VAL]") == [("[", NAN), ("val", NAN), ("]", NAN)]


def test_overlong_word_is_unknown(tokenizer):
    assert tokens(tokenizer, "x" * 65) == [("[UNK]", NAN)]


def test_cached_result_cannot_be_changed_by_a_caller(tokenizer):
    first = tokenizer.encode_cell("cache me 42")
    first.append((0, NAN))
    assert tokenizer.encode_cell("cache me 42") == first[:-1]


def test_decode_glues_word_pieces(tokenizer):
    ids = (
        [tokenizer.cls_id]
        + [i for i, _ in tokenizer.encode_cell("Subtotals 2019")]
        + [tokenizer.sep_id, 0, 0]
    )
    assert len(ids) == 9  # sub ##to ##tal ##s
    assert tokenizer.decode(ids) == "[CLS] subtotals 2019 [SEP]"


def test_unknown_token_and_id_name_the_input(tokenizer):
    with pytest.raises(KeyError, match="'no-such-token'"):
        tokenizer.id_of("no-such-token")
    with pytest.raises(KeyError, match="99999"):
        tokenizer.token_of(99999)


def test_vocabulary_of_the_wrong_size_is_refused(tmp_path: Path):
    bad = tmp_path / "vocab.txt"
    bad.write_text("[PAD]\n[unused0]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected 30522"):
        Tokenizer(bad, formula_vocab=["x"] * 41)


def test_formula_vocabulary_must_have_41_names():
    with pytest.raises(ValueError, match="expected 41"):
        Tokenizer(formula_vocab=["SUM"])


def test_very_long_text_is_read_up_to_max_text_chars():
    tok = Tokenizer(cfg=TokenizerConfig(max_text_chars=11, cache_size=2))
    assert [tok.token_of(i) for i, _ in tok.encode_cell("alpha beta gamma")] == ["alpha", "beta"]
    for text in ("a", "b", "c"):  # the cache empties itself when full instead of growing
        tok.encode_cell(text)
    assert len(tok._cache) <= 2


def test_tokenizer_config_rejects_nonsense():
    with pytest.raises(ValueError, match="TokenizerConfig.max_word_chars"):
        TokenizerConfig(max_word_chars=0)
    with pytest.raises(ValueError, match="TokenizerConfig.cache_size"):
        TokenizerConfig(cache_size=-1)
