"""`fortap finetune formula-audit KEY... -o OUT`: the audit's score weights fitted on an answer key.

Every book of the key (TASI's folder, holding `keys.TASI_FILE`, or ExceLint's, holding
`keys.EXCELINT_FILE`) is audited on the key's sheets with every finding kept, every typed
number among them (`evaluate.audit_key`), at `FitConfig.max_checks` engine checks a book (the
CLI's budget: the weights score what `fortap audit` finds) and no time limit, so the findings
depend on counts only. The weights and their thresholds, one per kind, are then fitted on all
of them (`fit.fit_weights`, label: the cell is in the key; the bare typed numbers give the base
rate; key cells no finding stands for count as missed in the thresholds' F1). OUT receives:

- `weights.json`: what `fortap audit` scores with (`score.Weights`; the shipped file,
  `src/fortap/audit/weights.json`, is this command's fit on the TASI key, `docs/audit.md`);
- `findings.jsonl`: every finding, one `[book, sheet, row, col, kind, score, facts]` a line (a
  later fit can read them instead of auditing again: `fit.findings`);
- `metrics.json`: cell-level P/R/F1 at the thresholds on the findings fitted on ("seen", not
  held out), and held out: weights and thresholds fitted on one half of the books
  (`measure.half_of`) scoring the other, and back;
- `README.md`: the key, the command and those numbers.

The ranker is the shipped one unless `ranker` names another; `fit.rankers` names a folder with
one ranker per half (`A/`, `B/`), each trained without its half's books, and audits each book
with the one blind to it (how the shipped weights were fitted).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fortap.audit.auditor import AuditConfig
from fortap.audit.checks import declared
from fortap.audit.evaluate import Scored, audit_key, gold_of
from fortap.audit.findings import KINDS
from fortap.audit.fit import fit_weights
from fortap.audit.keys import EXCELINT_FILE, TASI_FILE, KeySheet, excelint_key, tasi_key
from fortap.audit.measure import HALVES, above, half_of, scores
from fortap.audit.score import Weights, load_weights
from fortap.console import stdout_console
from fortap.errors import FortapError

FINDINGS_FILE = "findings.jsonl"


@dataclass(frozen=True)
class FitConfig:
    """What `finetune` fits the weights with."""

    max_checks: int = AuditConfig.max_checks  # typed numbers a book checked (the CLI's budget)
    rankers: Path | None = None  # folder with A/ and B/: each book audited by the one blind to it
    findings: Path | None = None  # fit on these findings (a findings.jsonl) instead of auditing
    c: float = 1.0  # inverse L2 penalty of the logistic fit

    def __post_init__(self) -> None:
        if self.max_checks < 0:
            raise ValueError(f"fit.max_checks must be >= 0, got {self.max_checks}")
        if self.c <= 0:
            raise ValueError(f"fit.c must be > 0, got {self.c}")


def ranker_for(ranker: Path | None, rankers: Path | None) -> Callable[[Path], Path | None]:
    """book -> its ranker folder: with `rankers`, `rankers/<the book's half>` (a ranker trained
    without that half's books); else `ranker` (None: the shipped one)."""
    if rankers is None:
        return lambda book: ranker
    return lambda book: Path(rankers) / half_of(str(book))


def read_key(paths: Sequence[str | Path]) -> list[KeySheet]:
    """The sheets of every answer key among `paths` (TASI's or ExceLint's folder)."""
    key = []
    for folder in map(Path, paths):
        if (folder / TASI_FILE).is_file():
            key += tasi_key(folder)
        elif (folder / EXCELINT_FILE).is_file():
            key += excelint_key(folder)
        else:
            raise FortapError(f"formula-audit: no answer key ({TASI_FILE} or {EXCELINT_FILE}) "
                              f"in {folder}")  # fmt: skip
    return key


def write_findings(path: Path, found: Sequence[Scored]) -> None:
    with open(path, "w") as out:
        for s in found:
            out.write(json.dumps([*s.place, s.kind, s.score, dict(s.facts)]) + "\n")


def read_findings(path: Path) -> list[Scored]:
    """The findings `write_findings` wrote; a `FortapError` naming the file and line if not."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as err:
        raise FortapError(f"{path}: cannot read findings ({err.strerror})") from err
    out = []
    for i, line in enumerate(lines, start=1):
        try:
            book, sheet, r, c, kind, score, facts = json.loads(line)
            if kind not in KINDS:
                raise ValueError(f"unknown kind {kind!r}")
            facts = tuple((str(k), float(v)) for k, v in facts.items())
            out.append(Scored((str(book), str(sheet), int(r), int(c)), kind, float(score), facts))
        except (ValueError, TypeError, AttributeError) as err:
            raise FortapError(f"{path} line {i}: not a finding ({err})") from err
    return out


def on_key(found: Sequence[Scored], key: list[KeySheet], paths: Sequence[str | Path],
           where: Path) -> list[Scored]:  # fmt: skip
    """`found` (read from `where`, perhaps written with the key at another path) with each book
    spelled as `key` spells it, matched by its path inside the key's folder; a `FortapError`
    for a book the key does not hold."""
    tails = {}
    for ks in key:
        for folder in map(Path, paths):
            if ks.book.is_relative_to(folder):
                tails[ks.book.relative_to(folder).parts] = str(ks.book)
    sizes = sorted({len(t) for t in tails}, reverse=True)
    out = []
    for s in found:
        parts = Path(s.place[0]).parts
        book = next((tails[parts[-n:]] for n in sizes if parts[-n:] in tails), None)
        if book is None:
            raise FortapError(f"{where}: {s.place[0]} is not a book of the answer key in "
                              f"{', '.join(map(str, paths))}")  # fmt: skip
        out.append(dataclasses.replace(s, place=(book, *s.place[1:])))
    return out


def fit_findings(found: Sequence[Scored], gold: set, fitted_on: str, c: float = 1.0) -> Weights:
    """Weights and thresholds fitted on `found`, label: the place is in `gold` (whose places
    without a finding count as missed in the thresholds' F1), over the facts the checks declare
    (what `score.load_weights` accepts)."""
    rows = [(s.kind, dict(s.facts)) for s in found]
    missed = len(set(gold) - {s.place for s in found})
    return fit_weights(rows, [s.place in gold for s in found], fitted_on, c, missed, declared())


def cross_fit(found: Sequence[Scored], gold: set, c: float = 1.0) -> dict[str, Weights]:
    """Half -> the weights (and thresholds) fitted on that half's findings alone."""
    return {h: fit_findings([s for s in found if half_of(s.place[0]) == h],
                            {g for g in gold if half_of(g[0]) == h}, f"half {h}", c)
            for h in HALVES}  # fmt: skip


def other(h: str) -> str:
    return HALVES[1 - HALVES.index(h)]


def scored_by(key: list[KeySheet], found: Sequence[Scored], weights: Weights) -> dict:
    """P/R/F1 of the findings `weights` scores at or above their kind's threshold, overall and
    per kind."""
    kinds = {k: above({s.place: weights.score(k, dict(s.facts)) for s in found if s.kind == k},
                      weights.thresholds[k]) for k in KINDS}  # fmt: skip
    by_kind = {k: scores(kinds[k], gold_of(key, k)).to_json() for k in KINDS}
    got = scores(set().union(*kinds.values()), gold_of(key)).to_json()
    return {"thresholds": weights.thresholds, "audit": got, "audit_by_kind": by_kind}


def held_out(key: list[KeySheet], found: Sequence[Scored], models: dict[str, Weights]) -> dict:
    """Each half scored by the other half's weights at its thresholds, overall and per kind."""
    flagged, by_kind, out = set(), {k: set() for k in KINDS}, {}
    for h in HALVES:
        m = models[other(h)]
        mine = [s for s in found if half_of(s.place[0]) == h]
        part = [ks for ks in key if half_of(str(ks.book)) == h]
        kinds = {k: above({s.place: m.score(s.kind, dict(s.facts)) for s in mine if s.kind == k},
                          m.thresholds[k]) for k in KINDS}  # fmt: skip
        got = set().union(*kinds.values())
        flagged |= got
        for k in KINDS:
            by_kind[k] |= kinds[k]
        out[h] = {"thresholds": {k: round(v, 6) for k, v in m.thresholds.items()},
                  "audit": scores(got, gold_of(part)).to_json(),
                  "audit_by_kind": {k: scores(kinds[k], gold_of(part, k)).to_json()
                                    for k in KINDS}}  # fmt: skip
    out["held-out"] = {"audit": scores(flagged, gold_of(key)).to_json(),
                       "audit_by_kind": {k: scores(by_kind[k], gold_of(key, k)).to_json()
                                         for k in KINDS}}  # fmt: skip
    return out


def finetune(paths: Sequence[str | Path], out: str | Path, cfg) -> dict:
    """Fit the audit's weights on the keys under `paths` (`cfg`: the task's run config, whose
    `ranker` and `fit` are read); write OUT/weights.json, findings.jsonl, metrics.json and
    README.md. Returns the metrics."""
    fit: FitConfig = cfg.fit
    key = read_key(paths)
    out = Path(out)
    errors: list[dict] = []  # books the audit could not read (skipped)
    if fit.findings is not None:
        found = on_key(read_findings(fit.findings), key, paths, fit.findings)
        how = f"the findings of {fit.findings}"
    else:
        # scored by the weights the fit replaces, as the file has them: a check added since has
        # no weight there yet, and the fit reads the findings' facts, not their scores
        old = load_weights(strict=False)
        audit_cfg = AuditConfig(max_checks=fit.max_checks, check_seconds=0.0, weights=old)
        run = audit_key(key, audit_cfg, ranker_for(cfg.ranker, fit.rankers))
        found, errors = run.found, run.errors
        rankers = (f"one per half, {fit.rankers}" if fit.rankers is not None
                   else str(cfg.ranker or "shipped"))  # fmt: skip
        how = f"{fit.max_checks} checks a book, rankers: {rankers}"
    books = len({ks.book for ks in key})
    what = (f"every finding of {len(key)} worksheets of {books} books of "
            f"{', '.join(map(str, paths))} ({len(found)} findings, {how})")  # fmt: skip
    gold = gold_of(key)
    weights = fit_findings(found, gold, what, fit.c)
    metrics = {"key": [str(p) for p in paths], "worksheets": len(key), "books": books,
               "key_cells": len(gold), "findings": len(found), "errors": errors,
               "seen": scored_by(key, found, weights),
               "cross_fit": held_out(key, found, cross_fit(found, gold, fit.c))}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    if fit.findings is None:
        write_findings(out / FINDINGS_FILE, found)
    (out / "weights.json").write_text(json.dumps(weights.to_json(), indent=1) + "\n")
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    (out / "README.md").write_text(card(paths, out, cfg, what, metrics))
    stdout_console().print(f"{out / 'weights.json'}: {what}; thresholds {weights.thresholds}",
                           highlight=False)  # fmt: skip
    for e in errors:
        stdout_console().print(f"skipped {e['path']}: {e['error']}", highlight=False)
    return metrics


def command(paths: Sequence[str | Path], out: Path, cfg) -> str:
    """The command line that fits these weights again (non-default settings as --set)."""
    given = [f"--set ranker={cfg.ranker}"] if cfg.ranker is not None else []
    for f in dataclasses.fields(FitConfig):
        value = getattr(cfg.fit, f.name)
        if value != f.default:
            given.append(f"--set fit.{f.name}={value}")
    return " ".join(["fortap finetune formula-audit", *map(str, paths), "-o", str(out), *given])


def card(paths: Sequence[str | Path], out: Path, cfg, what: str, metrics: dict) -> str:
    """README.md of a fitted weights folder: the key, the command and the fit's scores."""
    rows = [("seen (fitted on all of them, not held out)", metrics["seen"]),
            ("held out (fitted on one half, scored on the other)",
             metrics["cross_fit"]["held-out"])]  # fmt: skip
    lines = [
        "# formula-audit weights",
        "",
        "`weights.json`: the logistic weights and per-kind thresholds `fortap audit` scores its",
        "findings with (`fortap.audit.score`; to use them there, copy the file over",
        "`src/fortap/audit/weights.json`). `findings.jsonl`: the findings they were fitted on.",
        "",
        "## Data",
        "",
        f"Fitted on {what}; label: the cell is in the key ({metrics['key_cells']} cells).",
        "",
        "## Command",
        "",
        f"    {command(paths, out, cfg)}",
        "",
        "## Metrics (cell level)",
        "",
        "| scoring | P | R | F1 |",
        "|---|---|---|---|",
    ]
    for name, m in rows:
        s = m["audit"]
        lines.append(f"| {name} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} |")
    return "\n".join(lines) + "\n"
