"""Header and label words that can stand for each other (`swap_words`), for augmentation.

A small table of our own: each group lists spellings a spreadsheet author uses for one idea
("Total", "Sum", "Overall"; "Q1", "Quarter 1"). `swap_words(text, rng)` replaces every
occurrence of a listed spelling in a cell's text by another spelling of its group, drawn with
`rng`, and keeps the case the author wrote: an upper-case word stays upper case, a capitalised
one stays capitalised, a lower-case one goes lower case unless the new spelling is an acronym
(`FY`, `YTD`), which keeps its own case. A spelling matches as a whole word, in any case; the
longest listed spelling wins where several start at one place ("Grand total" before "total").
"""

from __future__ import annotations

import random
import re

GROUPS: tuple[tuple[str, ...], ...] = (
    ("Total", "Sum", "Overall", "Grand total"),
    ("Subtotal", "Sub-total", "Sub total"),
    ("Average", "Mean", "Avg"),
    ("Change", "Difference", "Delta", "Diff"),
    ("Percent", "%", "Share", "Pct", "Percentage"),
    ("Year", "FY"),
    ("Year to date", "YTD"),
    ("Number", "No.", "Count"),
    ("Amount", "Value"),
    ("Quantity", "Qty"),
    ("Maximum", "Max", "Highest"),
    ("Minimum", "Min", "Lowest"),
    ("Cost", "Expense"),
    ("Actual", "Act"),
    ("Budget", "Plan"),
    ("Month", "Mo"),
    ("Q1", "Quarter 1", "1st quarter"),
    ("Q2", "Quarter 2", "2nd quarter"),
    ("Q3", "Quarter 3", "3rd quarter"),
    ("Q4", "Quarter 4", "4th quarter"),
    ("January", "Jan"),
    ("February", "Feb"),
    ("March", "Mar"),
    ("April", "Apr"),
    ("June", "Jun"),
    ("July", "Jul"),
    ("August", "Aug"),
    ("September", "Sep", "Sept"),
    ("October", "Oct"),
    ("November", "Nov"),
    ("December", "Dec"),
)

_GROUP_OF = {form.lower(): group for group in GROUPS for form in group}
assert len(_GROUP_OF) == sum(len(g) for g in GROUPS), "a spelling is listed in two groups"
# whole words: no letter or digit right before or after the spelling
_WORDS = re.compile(
    r"(?<![0-9A-Za-z])("
    + "|".join(re.escape(f) for f in sorted(_GROUP_OF, key=len, reverse=True))
    + r")(?![0-9A-Za-z])",
    re.IGNORECASE,
)


def has_synonyms(text: str) -> bool:
    """True when `text` holds a listed spelling."""
    return _WORDS.search(text) is not None


def swap_words(text: str, rng: random.Random) -> str:
    """`text` with every listed spelling replaced by another of its group (module doc)."""

    def swap(m: re.Match) -> str:
        written = m[0]
        group = _GROUP_OF[written.lower()]
        others = [f for f in group if f.lower() != written.lower()]
        return keep_case(written, rng.choice(others))

    return _WORDS.sub(swap, text)


def keep_case(written: str, new: str) -> str:
    """`new` in the case `written` was in (see module doc)."""
    letters = [ch for ch in written if ch.isalpha()]
    if not letters:
        return new
    if len(letters) > 1 and all(ch.isupper() for ch in letters):
        return new.upper()
    if letters[0].isupper():
        return new[:1].upper() + new[1:]
    if sum(ch.isupper() for ch in new) > 1:  # an acronym keeps its own case
        return new
    return new.lower()
