"""Which vocabulary tokens may come next in a prefix sketch: the decoder's grammar constraint.

A prefix sketch carries no argument counts, so `[SUM] [RANGE] [RANGE]` may still grow
(`SUM(A1,B1,...)`) or end, and `[ROUND] [SUM] [RANGE] [C-NUM]` is `ROUND(SUM(A1),0)` only
because ROUND needs a second argument. The constraint therefore follows every reading at once:
a `Parse` is a stack of open frames (a function or operator with the number of arguments it
has taken), and a `GrammarState` is the set of stacks that explain the prefix so far. A token is
allowed when some stack can take it where the arity table (`grammar`) puts a slot that accepts
its value; `[END]` is allowed when some stack is complete and a `[RANGE]` has come (a formula
without a reference is never a target: `filters` discards it). A frame that has its minimum
number of arguments may close at any point, which is where the readings branch.

With a step budget (`allowed(state, budget)`), a token is allowed only when the sketch can still
be completed within the budget, so a decoder that stops at `max_len` still ends every sketch.

States are interned and every transition and mask is memoised: after warm-up a beam step costs
one dictionary lookup per hypothesis (`bench/formula_grammar.py` measures it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fortap.formula.grammar import FITS, FORMULA_SLOT, MANY, Signature, gives, signatures
from fortap.formula.tokens import END, FORMULA_VOCAB, RANGE, START

Frame = tuple[int, int]  # (vocabulary id of the function or operator, arguments taken)
Parse = tuple[Frame, ...]  # open frames, outermost first
_ROOT = -1  # the formula itself: one argument of kind FORMULA_SLOT
_DONE: Parse = ((_ROOT, 1),)
_FAR = 1 << 20  # tokens needed by a state that cannot end
_MEMO = 50_000  # memo entries kept before starting afresh (a long evaluation stays bounded)
_MAX_PARSES = 256  # readings kept per state (a safety bound)


@dataclass(frozen=True)
class GrammarState:
    """The readings of a prefix: each a stack of open frames that still accepts a token or is
    done; `has_range`: a `[RANGE]` came already."""

    parses: frozenset[Parse]
    has_range: bool = False

    @property
    def dead(self) -> bool:
        return not self.parses


@dataclass
class PrefixGrammar:
    """The prefix-grammar constraint over `FORMULA_VOCAB` ids.

    `unknown`: allow `[UNKOP]` as a function of any arguments (its text is not Excel).
    Use: `s = g.start()`; per step `mask = g.allowed(s, budget)` (a tuple of 41 bools), then
    `s = g.advance(s, token_id)`; `g.can_end(s)` says whether `[END]` may come now.
    """

    unknown: bool = False
    _table: dict[int, Signature] = field(init=False, repr=False)
    _gives: dict[int, str] = field(init=False, repr=False)
    _advance: dict[tuple[GrammarState, int], GrammarState] = field(init=False, repr=False)
    _allowed: dict[tuple[GrammarState, int], tuple[bool, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        table = signatures(self.unknown)
        self._table = {i: table[t] for i, t in enumerate(FORMULA_VOCAB) if t in table}
        self._gives = {}
        for i, t in enumerate(FORMULA_VOCAB):
            kind = gives(t, table)
            if kind is not None:
                self._gives[i] = kind
        self._advance, self._allowed = {}, {}
        self.end_id = FORMULA_VOCAB.index(END)
        self.range_id = FORMULA_VOCAB.index(RANGE)
        self.start_id = FORMULA_VOCAB.index(START)

    def start(self) -> GrammarState:
        """The state after `[START]`: one reading, the formula's value still to come."""
        return GrammarState(frozenset([((_ROOT, 0),)]))

    def slot_of(self, frame: Frame) -> str:
        token, taken = frame
        return FORMULA_SLOT if token == _ROOT else self._table[token].slot(taken)

    def advance(self, state: GrammarState, token: int) -> GrammarState:
        """The state after `token` (a dead state when no reading takes it)."""
        key = (state, token)
        found = self._advance.get(key)
        if found is None:
            if len(self._advance) > _MEMO:
                self._advance.clear()
            found = self._advance[key] = self._step(state, token)
        return found

    def can_end(self, state: GrammarState) -> bool:
        return state.has_range and _DONE in state.parses

    def allowed(self, state: GrammarState, budget: int = 1 << 30) -> tuple[bool, ...]:
        """One flag per vocabulary id: may it come next, with at most `budget` tokens left
        (`[END]` included)? Every allowed token leaves a prefix that can still end in time."""
        budget = min(budget, 64)  # no kept formula is that long; keeps the memo small
        key = (state, budget)
        found = self._allowed.get(key)
        if found is None:
            if len(self._allowed) > _MEMO:
                self._allowed.clear()
            ok = [False] * len(FORMULA_VOCAB)
            ok[self.end_id] = self.can_end(state) and budget >= 1
            for token in self._gives:
                nxt = self.advance(state, token)
                ok[token] = self.shortest(nxt) + 2 <= budget
            found = self._allowed[key] = tuple(ok)
        return found

    def shortest(self, state: GrammarState) -> int:
        """Fewest tokens (before `[END]`) that complete some reading of `state` (a large number
        when none can: a finished reading without a reference)."""
        if state.dead:
            return _FAR
        if state.has_range:
            return min(self._still_owed(p) for p in state.parses)
        # every reading is open (`_step` drops finished ones) and a `[RANGE]` fits every slot
        return min(max(1, self._still_owed(p)) for p in state.parses)

    def _still_owed(self, parse: Parse) -> int:
        # every missing required argument needs one token at least: a `[RANGE]` fits each slot
        return sum(max(0, self._min_args(t) - taken) for t, taken in parse)

    def _min_args(self, token: int) -> int:
        return 1 if token == _ROOT else self._table[token].min_args

    def _step(self, state: GrammarState, token: int) -> GrammarState:
        value = self._gives.get(token)
        out: set[Parse] = set()
        if value is not None:
            for parse in state.parses:
                if parse == _DONE or value not in FITS[self.slot_of(parse[-1])]:  # type: ignore[index]
                    continue
                top, taken = parse[-1]
                grown = (*parse[:-1], (top, self._count(top, taken + 1)))
                if token in self._table:
                    grown = (*grown, (token, 0))
                out.update(self._closure(grown))
        has_range = state.has_range or token == self.range_id
        if not has_range:
            out.discard(_DONE)  # finished without a reference: it can never end
        if len(out) > _MAX_PARSES:
            # a safety bound, never reached by sketches of decoder length: keep the readings
            # closest to an end (what stays allowed is still valid, some choices are lost)
            out = set(sorted(out, key=lambda p: (self._still_owed(p), len(p), p))[:_MAX_PARSES])
        return GrammarState(frozenset(out), has_range)

    def _count(self, token: int, taken: int) -> int:
        """Arguments taken, as far as the future can tell: past its minimum and its typed
        slots, a function of up to 255 arguments is the same whatever it has taken, so
        `SUM(A1,B1)` and `SUM(A1,B1,C1)` share one reading."""
        if token == _ROOT:
            return taken
        sig = self._table[token]
        if sig.max_args < MANY:
            return taken
        return min(taken, max(sig.min_args, len(sig.slots)))

    def _closure(self, parse: Parse) -> list[Parse]:
        """`parse` and every stack reached by closing frames that have enough arguments,
        keeping those that can take another token (or are done)."""
        found = []
        while True:
            token, taken = parse[-1]
            if token == _ROOT:
                found.append(parse)
                return found
            sig = self._table[token]
            if taken < sig.max_args:
                found.append(parse)
            if taken < sig.min_args:
                return found
            parse = parse[:-1]
