"""Does a pretrained model read the formula's pointers? NRP and NCP on dev by how the formula is shown.

    .venv/bin/python bench/pretrain_by_mode.py --run DIR [--corpus PATH] [--set K=V ...] [--json PATH]

`DIR` is a `bench/pretrain.py --out` folder; its latest checkpoint (encoder and heads) is
evaluated on the same dev subset that run evaluated (same `--eval-per-book`, `--objectives`
and `--set` as the run). A corpus sample shows its formula cell as formula tokens, a
`[FORMULA]` tag or its value. Only in "tokens" mode does the input say which cells the formula
references (each reference token carries its cell's position), so a model that reads the
pointers scores higher there than in the other two modes; one that does not scores alike
in all three. Token-mode positives are split further: "pointed", where a reference token
points into the candidate header's column (top side) or row (left side), and "interior",
headers inside a range that no token names (`SUM(B4:G4)` names B and G, not C..F).

Rows: per objective and group, accuracy, items and the rate of positive answers (NRP). No
targets of its own (issue 5 names none); the JSON's `targets` holds the check that tokens-mode
NRP accuracy is above both other modes', as information.
"""

from __future__ import annotations

import torch

torch.set_flush_denormal(True)  # before the first parallel op (cpu_stack note §4.6)

import argparse  # noqa: E402
import json  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

from fortap.encoding.formula_targets import FORMULA_KEY  # noqa: E402
from fortap.model.state_file import load_state  # noqa: E402
from fortap.training.checkpoint import MODEL_FILE, latest_checkpoint  # noqa: E402
from fortap.training.pretrain import setup_pretrain  # noqa: E402
from helpers.paths import CORPUS  # noqa: E402
from pretrain import OBJECTIVES, run_config  # noqa: E402


def nrp_groups(example, label: int, candidate: int) -> list[str]:
    """The groups one NRP pair counts in: all, its mode, and for a tokens-mode positive
    whether a reference token points into the candidate header's column or row."""
    facts = example.targets[FORMULA_KEY]
    mode = facts.mode
    groups = ["all", mode, f"{mode} {'positive' if label else 'negative'}"]
    if mode == "tokens" and label:
        axis = 1 if facts.side == "top" else 0
        at = example.cell_coords[candidate - 1][axis]
        refs = [example.cell_coords[ref - 1] for _, kind, _, ref in facts.tokens
                if kind == "ref" and ref]  # fmt: skip
        groups.append("tokens positive, pointed" if any(r[axis] == at for r in refs)
                      else "tokens positive, interior")  # fmt: skip
    return groups


@torch.no_grad()
def by_mode(setup) -> list[dict]:
    """Rows (objective, group, acc, n, positive_rate) over the setup's dev batches."""
    model = setup.model.eval()
    tally = defaultdict(lambda: [0, 0, 0])  # (objective, group) -> right, n, answered positive

    def count(name: str, groups: list[str], answer: int, label: int) -> None:
        for group in groups:
            t = tally[name, group]
            t[0], t[1], t[2] = t[0] + (answer == label), t[1] + 1, t[2] + (answer > 0)

    done = 0
    for batch in setup.eval_batches:
        examples = setup.eval_examples[done : done + batch.token_ids.shape[0]]
        done += len(examples)
        out = model.encoder(batch)
        target = batch.targets["nrp"]
        answers = model.heads["nrp"](out, batch)["pair"].argmax(-1)  # (N,)
        for j, answer in enumerate(answers.tolist()):
            example = examples[int(target["batch_index"][j])]
            label = int(target["labels"][j])
            count("nrp", nrp_groups(example, label, int(target["candidate"][j])), answer, label)
        target = batch.targets["ncp"]
        if target["labels"].numel():
            answers = model.heads["ncp"](out, batch).argmax(-1)  # (G,)
            for j, answer in enumerate(answers.tolist()):
                example = examples[int(target["batch_index"][j])]
                groups = ["all", example.targets[FORMULA_KEY].mode]
                count("ncp", groups, answer, int(target["labels"][j]))
    return [
        {"objective": name, "group": group, "acc": right / n, "n": n,
         "positive_rate": positive / n if name == "nrp" else None}
        for (name, group), (right, n, positive) in sorted(tally.items())
    ]  # fmt: skip


def print_rows(rows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="dev accuracy by how the formula cell is shown")
    for col in ("objective", "group", "acc", "n", "positive rate"):
        table.add_column(col, justify="right")
    for r in rows:
        rate = "-" if r["positive_rate"] is None else f"{r['positive_rate']:.3f}"
        table.add_row(r["objective"], r["group"], f"{r['acc']:.4f}", str(r["n"]), rate)
    Console().print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a bench/pretrain.py --out folder")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="default: runs/corpus")
    parser.add_argument("--eval-per-book", type=int, default=32)
    parser.add_argument("--objectives", default=",".join(OBJECTIVES))
    parser.add_argument("--set", action="append", default=[], help="the run's --set overrides")
    parser.add_argument("--json", type=Path, help="write results and targets here")
    args = parser.parse_args()
    checkpoint = latest_checkpoint(args.run / "checkpoints")
    if checkpoint is None:
        raise SystemExit(
            f"{args.run}: no checkpoints/step-N folder (a bench/pretrain.py --out run?)"
        )
    cfg = run_config(args.objectives, 0, args.eval_per_book, args.set)
    setup = setup_pretrain(cfg, args.corpus, "minilm")
    load_state(setup.model, checkpoint / MODEL_FILE)
    print(f"{checkpoint}: {len(setup.eval_examples)} dev examples")
    rows = by_mode(setup)
    print_rows(rows)
    acc = {r["group"]: r["acc"] for r in rows if r["objective"] == "nrp"}
    others = max(acc.get("tag", 0.0), acc.get("value", 0.0))
    targets = [{"name": "NRP tokens-mode accuracy above tag and value modes (information)",
                "value": acc.get("tokens"), "target": others,
                "met": acc.get("tokens", 0.0) > others}]  # fmt: skip
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=2))


if __name__ == "__main__":
    main()
