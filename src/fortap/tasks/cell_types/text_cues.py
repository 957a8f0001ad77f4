"""What a cell's text says about its type: `text_cues(text) -> tuple[float, ...]`, named by
`TEXT_FEATURES`.

The first 13 names are SAUS's (`saus.jl.gz`), with SAUS's definitions over the text as the
sheet stores it (leading spaces kept): ASCII classes from Python's `string` module, so
"capitalized" means *some* ASCII capital letter and "special_chars" a character outside
printable ASCII. Like SAUS, the empty text counts as all capitals, all letters and as starting
with a digit (the empty string lies in every set of characters), and `in_year_range` is left
to `features`, which knows whether the cell holds text.

`words` counts tokens as NLTK's English word tokenizer does for SAUS, by fortap's own rules:
whitespace splits; brackets, quotes, `$ % & ; ! ? #` and `--` are tokens of their own; a comma
or colon is one except between digits (`1,000`, `12:30`); a clitic (`'s`, `n't`) is split
off; a period is split from a word that ends a sentence (the text's end, or before a capital,
a digit or a bracket) unless the word holds another period (`U.S.`) or is one capital (an
initial).

The rest are fortap's own cues for notes and metadata, which SAUS's features miss: the first
word (`Source`, `Note`), a footnote mark (`\\1`, `/2`, `1/`), a unit in brackets
("(million dollars)"), a trailing sentence mark, the shares of digits and capitals, a percent,
and a first word that names an aggregate ("Total", "All industries", "United States",
"World"), the label of a row of totals.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache

SAUS_TEXT = ("length", "words", "leading_spaces", "first_char_num", "first_char_special",
             "capitalized", "all_upper", "is_alpha", "special_chars", "punctuations",
             "contains_colon", "words_like_total", "words_like_table")  # fmt: skip
OWN_TEXT = ("starts_source", "starts_note", "footnote_mark", "bracketed", "ends_sentence",
            "ends_colon", "digit_share", "upper_share", "percent_word", "aggregate_word")  # fmt: skip
TEXT_FEATURES = SAUS_TEXT + OWN_TEXT

UPPER = frozenset(string.ascii_uppercase)
UPPER_SPACE = frozenset(string.ascii_uppercase + string.whitespace)
LETTER_SPACE = frozenset(string.ascii_letters + string.whitespace)
WORD_START = frozenset(string.whitespace + string.ascii_letters + string.digits)
PRINTABLE = frozenset(string.printable)
PUNCTUATION = frozenset(string.punctuation) - {":"}
DIGITS = frozenset(string.digits)
TOTALS = ("total", "average", "maximum", "minimum")
AGGREGATES = ("all ", "total", "united states", "u.s.", "world")  # a row label that sums others

# a token of its own wherever it stands; a comma or colon only away from digits on either side
SPLIT = re.compile(r"--|\.\.\.|[\[\](){}<>;!?#$%&\"`]|(?<!\d)[,:]|[,:](?!\d)")
CLITIC = re.compile(r"(?i)(?<=\w)('s|'re|'ve|'ll|'d|'m|n't)$")
SENTENCE_NEXT = re.compile(r"[A-Z0-9(\[]")
FOOTNOTE = re.compile(r"(^|\s)(\\\d+|/\d+|\d+/)(\s|$)")
BRACKETED = re.compile(r"^\s*\(.*\)\s*$")


def count_words(text: str) -> int:
    """Tokens of `text` by the rules of the module doc."""
    tokens: list[str] = []
    for chunk in SPLIT.sub(lambda m: f" {m.group(0)} ", text).split():
        clitic = CLITIC.search(chunk)
        if clitic and clitic.start() > 0:
            tokens += [chunk[: clitic.start()], clitic.group(0)]
        else:
            tokens.append(chunk)
    count = len(tokens)
    for i, token in enumerate(tokens):
        if len(token) < 2 or not token.endswith(".") or "." in token[:-1]:
            continue
        if len(token) == 2 and token[0] in UPPER:
            continue  # an initial
        if i + 1 == len(tokens) or SENTENCE_NEXT.match(tokens[i + 1]):
            count += 1  # the sentence's period is a token of its own
    return count


@lru_cache(maxsize=65536)
def text_cues(text: str) -> tuple[float, ...]:
    """The `TEXT_FEATURES` of one text (module doc)."""
    chars = set(text)
    lower = text.lower()
    stripped = lower.strip()
    first = text[:1]
    spaces = len(text) - len(text.lstrip(" "))
    n = max(len(text), 1)
    saus = (len(text), count_words(text), spaces, first in string.digits,
            first not in WORD_START if first else False, bool(chars & UPPER),
            chars <= UPPER_SPACE, chars <= LETTER_SPACE, not chars <= PRINTABLE,
            bool(chars & PUNCTUATION), ":" in chars, any(w in lower for w in TOTALS),
            "table" in lower)  # fmt: skip
    own = (stripped.startswith("source"), stripped.startswith(("note", "footnote")),
           FOOTNOTE.search(text) is not None, BRACKETED.match(text) is not None,
           stripped.endswith((".", ";", ",")), stripped.endswith(":"),
           sum(ch in DIGITS for ch in text) / n, sum(ch in UPPER for ch in text) / n,
           "percent" in lower or "%" in chars, stripped.startswith(AGGREGATES))  # fmt: skip
    return tuple(float(v) for v in saus + own)
