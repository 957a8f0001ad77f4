"""Which fine-tuned runs a bench compares, from their names: at each pretraining recipe (the name
after `fortap`: `-tiny`, `-tiny-elr1e-3`, `-gpu3m`, ...) fortap against tuta, and each against
that recipe's unpretrained start (`minilm` with the same tail where it ran, else `fallback`)."""

from __future__ import annotations


def recipe_pairs(names: list[str], fallback: str | None = None) -> list[tuple[str, str]]:
    """The (a, b) pairs of those comparisons whose runs are both in `names`."""
    out = []
    for name in names:
        if name.startswith("fortap"):
            tail = name.removeprefix("fortap")
            start = f"minilm{tail}" if f"minilm{tail}" in names else fallback
            out += [(name, f"tuta{tail}"), (name, start), (f"tuta{tail}", start)]
    return [(a, b) for a, b in out if a in names and b in names]
