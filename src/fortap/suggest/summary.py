"""Per-target evaluation records -> the metrics of `fortap evaluate formula-suggestion`.

Names: *exact* compares formula texts (case, spaces and printing normalised, `$` kept);
*text_nodollar* the same texts with `$` stripped; *sketch* the paper's sketches; the paper's
own measure, its formula key (sketch with each reference's cell), is reported under
`paper_protocol` (below).

For each setting: pooled rates over targets and the mean of per-workbook rates, each with a
95 % workbook-bootstrap interval (workbooks resampled with replacement: the targets of one
workbook are alike, so workbooks are the unit of evidence; `fortap.metrics.bootstrap`
`rate_summary`, keys `pooled*` and `per_workbook*`); the ranker against the fixed rule order on
the same candidates (`bootstrap_gap`); candidate recall
overall and per source; sketch top-1 / top-5 (the first of the top five with the gold's
sketch); top-1 precision by the source of the top candidate; exact top-1 and
top-5 credited to each source that proposed the gold; latency. With a formula-prediction
model, also the model's own beam top-1 / top-5 (the gold's place in the beam, whatever the
ranking did with it). The same table again for the paper's kept subset (formulas its filters
keep). The printed order (`printed_metrics`, what `suggest` shows after previews) adds
`printed_*` rates beside the ranker's. And `paper_protocol` (`paper_protocol`): the paper's
measure on its subsets (`protocol.SUBSETS`: `kept`, `window10`), each with `n`, `top1` and
`top5` (the gold's formula key first / among the first five of the ranker's order),
`rule_top1` (the same in the rule order) and `recall` (any candidate has the gold's key).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from fortap.metrics.bootstrap import Tally, book_tallies, bootstrap_gap, rate_summary
from fortap.suggest.protocol import SUBSETS

# metric name -> the record field holding a 0-based rank and the k it counts
RATES = {
    "exact_top1": ("rank", 1),
    "exact_top5": ("rank", 5),
    "text_nodollar_top1": ("nodollar_rank", 1),
    "text_nodollar_top5": ("nodollar_rank", 5),
    "rule_exact_top1": ("rule_rank", 1),
    "rule_exact_top5": ("rule_rank", 5),
    "rule_text_nodollar_top1": ("nodollar_rule_rank", 1),
    "sketch_top1": ("sketch_rank", 1),
    "sketch_top5": ("sketch_rank", 5),
}
# printed-order metric -> the record field holding a 0-based rank and the k it counts
PRINTED_RATES = {
    "printed_exact_top1": ("printed_rank", 1),
    "printed_exact_top5": ("printed_rank", 5),
    "printed_text_nodollar_top1": ("printed_nodollar_rank", 1),
    "printed_text_nodollar_top5": ("printed_nodollar_rank", 5),
}
# paper-protocol metric -> the record field holding the key's 0-based rank and the k it counts
PROTOCOL_RATES = {
    "top1": ("key_rank", 1),
    "top5": ("key_rank", 5),
    "rule_top1": ("key_rule_rank", 1),
}


def _hit(field: str, k: int) -> Callable[[dict], float]:
    return lambda r: float(r.get(field) is not None and r[field] < k)


def by_book(records: Sequence[dict], score: Callable[[dict], float]) -> dict[str, Tally]:
    """{workbook: Tally} of `score` over the records."""
    return book_tallies([r["book"] for r in records], [score(r) for r in records])


def rate(tallies: dict[str, Tally], rounds: int, seed: int) -> dict[str, float]:
    """Pooled and per-workbook means of a rate with their bootstrap intervals."""
    return rate_summary(tallies, rounds, seed) if tallies else {}


def setting_metrics(records: Sequence[dict], rounds: int, seed: int, model: bool = False) -> dict:
    """Every metric of one setting's records (see the module doc); `model`: the records come
    from a run with a formula-prediction model."""
    out: dict = {"targets": len(records), "books": len({r["book"] for r in records})}
    if not records:
        return out
    for name, (field, k) in RATES.items():
        out[name] = rate(by_book(records, _hit(field, k)), rounds, seed)
    recall = by_book(records, lambda r: float(r["rank"] is not None))
    out["recall"] = rate(recall, rounds, seed)
    sources = sorted({s for r in records for s in r["gold_sources"]})
    out["recall_by_source"] = {
        s: float(np.mean([s in r["gold_sources"] for r in records])) for s in sources
    }
    out["top_by_source"] = {
        s: {
            f"top{k}": float(np.mean([_hit("rank", k)(r) and s in r["gold_sources"]
                                      for r in records]))
            for k in (1, 5)
        }
        for s in sources
    }  # fmt: skip
    if model:
        for k in (1, 5):
            out[f"model_beam_top{k}"] = rate(by_book(records, _hit("model_rank", k)), rounds, seed)
    top = defaultdict(list)
    for r in records:
        top[r["top1_source"]].append(float(r["rank"] == 0))
    out["top1_by_source"] = {
        str(s): {"share": len(v) / len(records), "precision": float(np.mean(v))}
        for s, v in top.items()
    }
    model = by_book(records, _hit("rank", 1))
    rule = by_book(records, _hit("rule_rank", 1))
    out["gap_vs_rules"] = bootstrap_gap(model, rule, rounds, seed)
    ms = np.array([r["ms"] for r in records])
    out["latency_ms"] = {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95))}
    return out


def summarise(records: Sequence[dict], cfg) -> dict:
    """metrics.json's body: {setting: {...}} with `exact_top1`, `exact_top5` (pooled, as
    numbers), the full tables under `detail` (all targets) and `kept` (the paper's kept
    filters), the printed order's rates in both (`printed_metrics`) and `paper_protocol`."""
    out: dict = {}
    rounds, seed = cfg.bootstrap_rounds, cfg.seed
    for setting in cfg.settings:
        mine = [r for r in records if r["setting"] == setting]
        model = cfg.model is not None
        full = setting_metrics(mine, rounds, seed, model)
        subset = [r for r in mine if r["kept"]]
        kept = setting_metrics(subset, rounds, seed, model)
        out[setting] = {
            "exact_top1": full.get("exact_top1", {}).get("pooled"),
            "exact_top5": full.get("exact_top5", {}).get("pooled"),
            "detail": full,
            "kept": kept,
            "paper_protocol": paper_protocol(mine, rounds, seed),
        }
    printed_metrics(out, records, cfg)
    return out


def paper_protocol(records: Sequence[dict], rounds: int, seed: int) -> dict:
    """{subset: {"n", "top1", "top5", "rule_top1", "recall"}} over one setting's records, for
    each of the paper's subsets (`protocol.SUBSETS`; module doc); rates {} when n is 0."""
    out = {}
    for name, belongs in SUBSETS.items():
        recs = [r for r in records if belongs(r)]
        block: dict = {"n": len(recs)}
        for metric, (field, k) in PROTOCOL_RATES.items():
            block[metric] = rate(by_book(recs, _hit(field, k)), rounds, seed)
        block["recall"] = rate(by_book(recs, lambda r: float(r["key_recall"])), rounds, seed)
        out[name] = block
    return out


def printed_metrics(metrics: dict, records: Sequence[dict], cfg) -> None:
    """Add the printed order's rates (`PRINTED_RATES`), its gap to the ranker's exact top-1
    (`gap_printed_vs_ranker`) and the preview latency beside each setting's ranker-only
    metrics, for all targets (`detail`) and the kept subset; `printed_exact_top1` pooled at
    the setting's top level too."""
    rounds, seed = cfg.bootstrap_rounds, cfg.seed
    for setting in cfg.settings:
        mine = [r for r in records if r["setting"] == setting]
        for part, recs in (("detail", mine), ("kept", [r for r in mine if r["kept"]])):
            if not recs:
                continue
            d = metrics[setting][part]
            for name, (field, k) in PRINTED_RATES.items():
                d[name] = rate(by_book(recs, _hit(field, k)), rounds, seed)
            printed = by_book(recs, _hit("printed_rank", 1))
            ranker = by_book(recs, _hit("rank", 1))
            d["gap_printed_vs_ranker"] = bootstrap_gap(printed, ranker, rounds, seed)
            ms = np.array([r["ms"] + r["preview_ms"] for r in recs])
            d["latency_with_preview_ms"] = {
                "p50": float(np.percentile(ms, 50)),
                "p95": float(np.percentile(ms, 95)),
                "max": float(ms.max()),
            }
        metrics[setting]["printed_exact_top1"] = (
            metrics[setting]["detail"].get("printed_exact_top1", {}).get("pooled")
        )
