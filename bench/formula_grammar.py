"""The decoder's grammar constraint: what it lets through, and what a beam step pays for it.

    .venv/bin/python bench/formula_grammar.py [--rounds N] [--json PATH] [--tables PATH]

Real sketches: the kept formulas of the 89,295 EUSES formulas of ../shared/data/xlparser-formulas
(and, with `--tables`, the kept formula cells of a `fortap ingest` output, each with its sheet),
those whose sketch fits the decoder's 32 steps (`DecodeConfig.max_len`).
* coverage: the share of kept formulas whose sketch `PrefixGrammar` allows from `[START]` to
  `[END]` — without `[UNKOP]` (the decoder's default: its text is not Excel) among formulas
  without it, and with `unknown=True` among all. What the grammar refuses, a constrained decoder
  can never write: these are array-style formulas (`SUM((A1:A9=B1)*C1:C9)`);
* valid: of the allowed sketches, the share that `formula_of_sketch` with the formula's own cells
  turns into text that parses back to the same AST, sketch and cells, with the verdict `keep`;
* cost: every allowed sketch replayed token by token as beam search would use the constraint,
  K = 5 hypotheses a step: `GrammarBias.bias(states, budget)` (per hypothesis
  `allowed(state, budget)`, its cached 0/-inf row, stacked to (K, V)) added to the logits, then
  `advance`. Baseline, in the same rounds: the step's own `log_softmax(-1).topk(5)` on (K, V)
  logits. `cold` starts from an empty memo each round; `warm` replays with the memo filled;
  `grammar only` is the Python part without tensors. For scale, the sketch decoder's own step
  (`FormulaDecoder.sketch_step`, default 3 layers and 8 heads, width 128, random weights, K
  hypotheses over a 256-token memory). Best round of each, CPU time.
Targets: coverage >= 0.97 of kept formulas without `[UNKOP]`; valid = 1.0; warm constraint cost
per beam step <= 10 % of the decoder's step.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from fortap.errors import FormulaError
from fortap.formula import parse_formula
from fortap.formula.from_sketch import formula_of_sketch
from fortap.formula.prefix_grammar import PrefixGrammar
from fortap.formula.printer import to_text
from fortap.formula.report import read_formula_lines
from fortap.formula.tokens import FORMULA_VOCAB, UNKOP
from fortap.tasks.formula_prediction.decoder import FormulaDecoder
from fortap.tasks.formula_prediction.grammar_bias import GrammarBias

REPO = Path(__file__).resolve().parents[1]
EUSES = REPO.parent / "shared" / "data" / "xlparser-formulas" / "euses" / "formulas.txt"
ID = {t: i for i, t in enumerate(FORMULA_VOCAB)}
K, MAX_LEN = 5, 32


def fits(f) -> bool:
    """Kept, and short enough for the decoder (`[START]` + at most MAX_LEN steps)."""
    return f.kept and len(f.sketch) <= MAX_LEN + 1


def kept_euses() -> list:
    out = []
    for text in read_formula_lines(EUSES):
        try:
            f = parse_formula(text)
        except FormulaError:
            continue
        if fits(f):
            out.append(f)
    return out


def kept_tables(path: Path) -> list:
    out = []
    shards = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]  # an ingest's shards
    for shard in shards:
        for line in shard.read_text(encoding="utf-8").splitlines():
            table = json.loads(line)
            for row, col, cell in table["cells"]:
                if "formula" not in cell:
                    continue
                try:
                    f = parse_formula(cell["formula"], table["sheet"], (row, col))
                except FormulaError:
                    continue
                if fits(f):
                    out.append(f)
    return out


def allows(grammar: PrefixGrammar, sketch: tuple[str, ...]) -> bool:
    state = grammar.start()
    for step, token in enumerate(sketch[1:-1]):
        if not grammar.allowed(state, MAX_LEN - step)[ID[token]]:
            return False
        state = grammar.advance(state, ID[token])
    return grammar.can_end(state)


def round_trips(f) -> bool:
    ast = formula_of_sketch(f.sketch, f.ranges)
    back = parse_formula(to_text(ast))
    return back.ast == ast and back.sketch == f.sketch and back.ranges == f.ranges and back.kept


def coverage_rows(name: str, formulas: list) -> list[dict]:
    plain, unknown = PrefixGrammar(), PrefixGrammar(unknown=True)
    without = [f for f in formulas if UNKOP not in f.sketch]
    ok = [f for f in without if allows(plain, f.sketch)]
    valid = sum(round_trips(f) for f in {f.sketch: f for f in ok}.values())
    return [
        {"set": name, "row": "coverage, no [UNKOP]", "of": len(without), "value": len(ok) / len(without)},
        {"set": name, "row": "coverage, unknown=True", "of": len(formulas),
         "value": sum(allows(unknown, f.sketch) for f in formulas) / len(formulas)},
        {"set": name, "row": "valid (unique allowed sketches)", "of": len({f.sketch for f in ok}),
         "value": valid / max(len({f.sketch for f in ok}), 1)},
    ]  # fmt: skip


def constrained_steps(bias: GrammarBias, sketches: list[tuple[int, ...]]) -> int:
    logits = torch.zeros(K, len(FORMULA_VOCAB))  # (K, V)
    steps = 0
    for seq in sketches:
        states = bias.start(K)
        for step, token in enumerate(seq):
            logits + bias.bias(states, MAX_LEN - step)  # (K, V)
            states = bias.advance(states, [token] * K)
            steps += 1
    return steps


def grammar_steps(grammar: PrefixGrammar, sketches: list[tuple[int, ...]]) -> int:
    steps = 0
    for seq in sketches:
        states = [grammar.start()] * K
        for step, token in enumerate(seq):
            for s in states:
                grammar.allowed(s, MAX_LEN - step)
            states = [grammar.advance(s, token) for s in states]
            steps += 1
    return steps


def baseline_steps(sketches: list[tuple[int, ...]]) -> int:
    logits = torch.randn(K, len(FORMULA_VOCAB))  # (K, V)
    steps = 0
    for seq in sketches:
        for _ in seq:
            logits.log_softmax(-1).topk(K, dim=-1)
            steps += 1
    return steps


@torch.no_grad()
def decoder_steps(n: int, hidden: int = 128, tokens: int = 256) -> int:
    """`n` sketch-decoder steps of K hypotheses over a `tokens`-long memory (random weights)."""
    decoder = FormulaDecoder(hidden).eval()
    memory = torch.randn(K, tokens, hidden)  # (K, T, D)
    pad = torch.zeros(K, tokens, dtype=torch.bool)  # (K, T)
    state = decoder.start_state(torch.randn(K, hidden))  # (layers, K, D) each
    token = torch.zeros(K, 1, dtype=torch.long)  # (K, 1)
    for _ in range(n):
        logits, _, state = decoder.sketch_step(token, state, memory, pad)  # (K, 1, V)
    return n


def timed(fn) -> tuple[float, int]:
    start = time.process_time()
    steps = fn()
    return time.process_time() - start, steps


def cost_rows(formulas: list, rounds: int) -> list[dict]:
    plain = PrefixGrammar()
    sketches = [
        tuple(ID[t] for t in f.sketch[1:])
        for f in formulas
        if UNKOP not in f.sketch and allows(plain, f.sketch)
    ]
    best: dict[str, float] = {}
    steps = 0
    for _ in range(rounds):
        fresh = GrammarBias()
        for name, fn in (
            ("baseline: log_softmax + top-k", lambda: baseline_steps(sketches)),
            ("constraint, cold memo", lambda b=fresh: constrained_steps(b, sketches)),
            ("constraint, warm memo", lambda b=fresh: constrained_steps(b, sketches)),
            ("grammar only (no tensor), warm", lambda b=fresh: grammar_steps(b.grammar, sketches)),
        ):
            seconds, steps = timed(fn)
            best[name] = min(best.get(name, float("inf")), seconds)
    base = best["baseline: log_softmax + top-k"]
    rows = [
        {"set": "euses", "row": name, "of": steps, "value": 1e6 * s / steps, "ratio": s / base}
        for name, s in best.items()
    ]
    n = 2000
    seconds = min(timed(lambda: decoder_steps(n))[0] for _ in range(rounds))
    rows.append({"set": "euses", "row": "decoder sketch_step (D=128, T=256)", "of": n,
                 "value": 1e6 * seconds / n, "ratio": seconds / n / (base / steps)})  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--tables", type=Path, help="a tables.jsonl written by `fortap ingest`")
    args = ap.parse_args()
    torch.set_num_threads(1)
    euses = kept_euses()
    results = coverage_rows("euses", euses)
    if args.tables is not None:
        results += coverage_rows("tables", kept_tables(args.tables))
    results += cost_rows(euses, args.rounds)
    t = Table("set", "row", "of", "value", "ratio to baseline")
    for r in results:
        unit = " µs/step" if "ratio" in r else ""
        t.add_row(r["set"], r["row"], str(r["of"]), f"{r['value']:.4f}{unit}",
                  f"{r['ratio']:.2f}" if "ratio" in r else "")  # fmt: skip
    Console(width=120).print(t)
    by = {(r["set"], r["row"]): r for r in results}
    warm = (
        by[("euses", "constraint, warm memo")]["value"]
        / by[("euses", "decoder sketch_step (D=128, T=256)")]["value"]
    )
    targets = [
        {"name": f"coverage, no [UNKOP] ({s})", "value": by[(s, "coverage, no [UNKOP]")]["value"],
         "target": 0.97, "met": by[(s, "coverage, no [UNKOP]")]["value"] >= 0.97}
        for s in sorted({r["set"] for r in results if "ratio" not in r})
    ] + [
        {"name": f"valid ({s})", "value": by[(s, "valid (unique allowed sketches)")]["value"],
         "target": 1.0, "met": by[(s, "valid (unique allowed sketches)")]["value"] == 1.0}
        for s in sorted({r["set"] for r in results if "ratio" not in r})
    ] + [{"name": "warm constraint / decoder step", "value": warm, "target": 0.1,
          "met": warm <= 0.1}]  # fmt: skip
    for tg in targets:
        print(
            f"{tg['name']}: {tg['value']:.4f} (target {tg['target']}) {'met' if tg['met'] else 'NOT met'}"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": results, "targets": targets}, indent=2))


if __name__ == "__main__":
    main()
