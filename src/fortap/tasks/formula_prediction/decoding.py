"""Decoding formulas: greedy and beam search over sketches, then greedy range filling.

Sketch search (per example, `beam` hypotheses batched through the decoder with their LSTM
states, so a step costs one decoder call instead of re-running the whole prefix as the
reference did): every live hypothesis expands to its `beam` best next tokens; the expansions
are pruned to `beam` by length-normalised log-probability logP / (len + 1)^alpha (the
reference's rule, alpha = 1); one ending in `[END]` is finished. The search stops when `beam`
hypotheses are finished or at `max_len` steps (then the live ones count as finished, as in the
reference). Finished sketches are ranked by raw logP, as the reference does (`rank_raw`; the
alternative ranks them by the pruning score).

Ranges: for each finished sketch the range decoder runs over that sketch, and every `[RANGE]`
slot takes the arg-max input cell (no joint beam over ranges, as the reference); it runs step by
step so that, with `pointer_feedback`, each slot sees the cell chosen for the previous one. With beam 1 the search is exactly greedy decoding (`greedy`), which the tests check.

Letters: B batch, K hypotheses, S steps, T tokens, C cells, D hidden, V vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from fortap.encoding.example import Batch
from fortap.formula.tokens import END, FORMULA_VOCAB, FORMULA_VOCAB_INDEX, RANGE, START
from fortap.model.precision import device_of
from fortap.tasks.formula_prediction.decoder import PAD
from fortap.tasks.formula_prediction.examples import FP_KEY
from fortap.tasks.formula_prediction.grammar_bias import GrammarBias
from fortap.tasks.formula_prediction.model import Encoded

START_ID, END_ID, RANGE_ID = (FORMULA_VOCAB_INDEX[t] for t in (START, END, RANGE))


@dataclass(frozen=True)
class Candidate:
    """One decoded formula: sketch ids (`[START]`..`[END]`), the 0-based input cell index of
    each `[RANGE]` slot, the sketch's log-probability and the chosen pointers' log-probability."""

    sketch_ids: tuple[int, ...]
    pointers: tuple[int, ...]
    score: float
    range_score: float

    @property
    def sketch(self) -> tuple[str, ...]:
        return tuple(FORMULA_VOCAB[i] for i in self.sketch_ids)


@dataclass(frozen=True)
class DecodeConfig:
    """How sketches are searched."""

    beam: int = 5  # hypotheses kept per step (1 = greedy)
    top_k: int = 5  # candidates returned per example
    max_len: int = 32  # sketch steps, [START] excluded (kept formulas have <= 30 tokens)
    alpha: float = 1.0  # length normalisation exponent of the pruning score
    rank_raw: bool = True  # rank finished sketches by raw logP (the reference), else normalised
    grammar: bool = True  # constrain sketches by the prefix grammar (fortap.formula.prefix_grammar)

    def __post_init__(self) -> None:
        for name in ("beam", "top_k", "max_len"):
            if getattr(self, name) < 1:
                raise ValueError(f"DecodeConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.alpha < 0:
            raise ValueError(f"DecodeConfig.alpha must be >= 0, got {self.alpha}")


def decode(model, batch: Batch, cfg: DecodeConfig | None = None) -> list[list[Candidate]]:
    """Ranked candidates for every example of `batch` (`model` a `FormulaPredictionModel`)."""
    return decode_at(model, batch, batch.targets[FP_KEY]["cell"], cfg)


@torch.no_grad()
def decode_at(
    model, batch: Batch, cell: torch.Tensor, cfg: DecodeConfig | None = None
) -> list[list[Candidate]]:
    """Ranked candidates for the cells `cell` (B,) (0-based cell index per example): `decode`
    for inputs that carry no gold formula (a suggestion for a cell of a user's sheet). The
    batch and `cell` move to the model's device first."""
    model.eval()
    device = device_of(model)
    return decode_encoded(model, model.encode(batch.to(device), cell.to(device)), cfg)


@torch.no_grad()
def decode_encoded(model, enc: Encoded, cfg: DecodeConfig | None = None) -> list[list[Candidate]]:
    """`decode_at` on a batch the model has encoded already (`model.encode`)."""
    cfg = cfg or DecodeConfig()
    grammar = GrammarBias() if cfg.grammar else None  # one memo for the whole batch
    out = []
    for b in range(enc.memory.shape[0]):
        one = enc.row(b)
        if cfg.beam == 1:
            found = [greedy(model.decoder, one, cfg.max_len, grammar)[0]]
        else:
            found = beam_sketches(model.decoder, one, cfg, grammar)
        out.append(fill_ranges(model.decoder, one, found[: cfg.top_k]))
    return out


def greedy(
    decoder, enc: Encoded, max_len: int, grammar: GrammarBias | None = None
) -> list[tuple[tuple[int, ...], float]]:
    """Arg-max sketch of every row of `enc`, with its log-probability."""
    n = enc.memory.shape[0]
    state = decoder.start_state(enc.formula_state)
    device = enc.memory.device  # every tensor made here follows the model's states
    token = torch.full((n, 1), START_ID, dtype=torch.long, device=device)  # (B, 1)
    seqs = [[START_ID] for _ in range(n)]
    logp = [0.0] * n
    done = [False] * n
    states = grammar.start(n) if grammar is not None else None
    for step in range(max_len):
        logits, _, state = decoder.sketch_step(token, state, enc.memory, enc.memory_pad)
        log_probs = logits[:, -1].log_softmax(-1)  # (B, V)
        if grammar is not None:  # mask, not renormalise: a sequence keeps the model's logP
            log_probs = log_probs + grammar.bias(states, max_len - step).to(device)  # (B, V)
        best = log_probs.argmax(-1)  # (B,)
        for b in range(n):
            if not done[b]:
                seqs[b].append(int(best[b]))
                logp[b] += float(log_probs[b, best[b]])
                done[b] = int(best[b]) == END_ID
        if all(done):
            break
        if grammar is not None:
            states = grammar.advance(states, best.tolist())
        token = best[:, None]
    return [(tuple(s), p) for s, p in zip(seqs, logp, strict=True)]


def beam_sketches(
    decoder, enc: Encoded, cfg: DecodeConfig, grammar: GrammarBias | None = None
) -> list[tuple[tuple[int, ...], float]]:
    """Finished sketches of one example (`enc` has one row), ranked by raw log-probability."""
    device = enc.memory.device  # every tensor made here follows the model's states
    state = decoder.start_state(enc.formula_state)  # (layers, 1, D) each
    live: list[tuple[tuple[int, ...], float]] = [((START_ID,), 0.0)]
    finished: list[tuple[tuple[int, ...], float]] = []
    states = grammar.start(1) if grammar is not None else None
    for step in range(cfg.max_len):
        k = len(live)
        token = torch.tensor([[seq[-1]] for seq, _ in live], device=device)  # (K, 1)
        rows = enc.row(0, k)
        logits, _, state = decoder.sketch_step(token, state, rows.memory, rows.memory_pad)
        log_probs = logits[:, -1].log_softmax(-1)  # (K, V)
        if grammar is not None:  # mask, not renormalise: a sequence keeps the model's logP
            log_probs = log_probs + grammar.bias(states, cfg.max_len - step).to(device)  # (K, V)
        top = log_probs.topk(cfg.beam, dim=-1)  # (K, beam)
        expansions = [
            (live[h][0] + (int(i),), live[h][1] + float(v), h)
            for h in range(k)
            for v, i in zip(top.values[h], top.indices[h], strict=True)
            if v > float("-inf")  # fewer than `beam` tokens may be allowed
        ]
        expansions.sort(key=lambda e: e[1] / (len(e[0]) ** cfg.alpha), reverse=True)
        keep, parents = [], []
        for seq, logp, h in expansions[: cfg.beam]:
            if seq[-1] == END_ID:
                finished.append((seq, logp))
            else:
                keep.append((seq, logp))
                parents.append(h)
        if len(finished) >= cfg.beam or not keep:
            break
        index = torch.tensor(parents, device=device)
        state = (state[0][:, index].contiguous(), state[1][:, index].contiguous())
        if grammar is not None:
            states = grammar.advance([states[h] for h in parents], [s[-1] for s, _ in keep])
        live = keep
    else:
        finished += live
    if cfg.rank_raw:
        return sorted(finished, key=lambda f: f[1], reverse=True)
    return sorted(finished, key=lambda f: f[1] / (len(f[0]) ** cfg.alpha), reverse=True)


def fill_ranges(
    decoder, enc: Encoded, sketches: list[tuple[tuple[int, ...], float]]
) -> list[Candidate]:
    """Greedy pointers for every `[RANGE]` slot of each sketch of one example, step by step so
    each slot sees the cell chosen for the previous one (`pointer_feedback`)."""
    if not sketches:
        return []
    k = len(sketches)
    steps = max(len(s) for s, _ in sketches) - 1
    sketch_in = torch.full((k, steps), PAD, dtype=torch.long)  # (K, S)
    is_range = torch.zeros((k, steps), dtype=torch.bool)  # (K, S) step t predicts a [RANGE]
    for j, (seq, _) in enumerate(sketches):
        sketch_in[j, : len(seq) - 1] = torch.tensor(seq[:-1])
        is_range[j, : len(seq) - 1] = torch.tensor(seq[1:]) == RANGE_ID
    device = enc.memory.device  # every tensor made here follows the model's states
    sketch_in, is_range = sketch_in.to(device), is_range.to(device)
    rows = enc.row(0, k)
    _, features, _ = decoder.sketch_step(
        sketch_in, decoder.start_state(rows.formula_state), rows.memory, rows.memory_pad
    )  # (K, S, 2D)
    keys = decoder.pointer_keys(rows.cell_states, rows.offsets)  # (K, C, D)
    previous = torch.zeros(k, 1, rows.cell_states.shape[-1], device=device)  # (K, 1, D)
    state = None
    chosen = torch.full((k, steps), -1, dtype=torch.long, device=device)  # (K, S)
    logp = torch.zeros(k, device=device)  # (K,)
    b = torch.arange(k, device=device)
    for t in range(steps):
        scores, state = decoder.range_scores(
            features[:, t : t + 1], rows.formula_state, keys, rows.candidates, previous, state
        )  # (K, 1, C)
        log_probs = scores[:, 0].log_softmax(-1)  # (K, C)
        best = log_probs.argmax(-1)  # (K,)
        here = is_range[:, t]  # (K,)
        chosen[here, t] = best[here]
        logp += torch.where(here, log_probs[b, best], torch.zeros(k, device=device))
        pointed = rows.cell_states[b, best][:, None]  # (K, 1, D)
        previous = torch.where(here[:, None, None], pointed, previous)
    return [
        Candidate(seq, tuple(int(p) for p in chosen[j][is_range[j]]), score, float(logp[j]))
        for j, (seq, score) in enumerate(sketches)
    ]
