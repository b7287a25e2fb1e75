"""The one definition of every number the benchmarks under `bench/` report.

Averages, percentiles and ranking metrics live here so that two scripts printing "p95" or "nDCG@10"
mean the same thing, and `tests/test_bench_metrics.py` checks them against numpy and trec_eval
(pytrec_eval) without models or corpora.

Conventions, and where they differ from trec_eval on purpose:

- nDCG@k: the grade is the gain (linear, not 2^g - 1) and rank r is discounted by log2(r + 1),
  as in trec_eval's `ndcg_cut` and BEIR; the ideal ranking sorts every positive grade in the
  qrels, judged documents the run never retrieved included (trec_eval does the same). Negative
  grades gain 0 (trec_eval too). Different: a document ranked twice counts once, at its first
  rank (a trec_eval run is one score per document, so it never sees a repeat), and a query with
  no positive grade has no nDCG (None, left out of the mean) where trec_eval scores it 0.
- reciprocal rank: cut at k (MRR@10); trec_eval's `recip_rank` has no cut, so the two agree on
  the run truncated to k. Relevance is whatever the caller marks true (trec_eval: grade >= 1).
- hit@k is trec_eval's `success_k`; span recall over one-character-per-document ranges is its
  `recall_k`.
- percentiles: numpy's; "linear" (numpy's default) unless a script has always reported another.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

Range = tuple[int, int]
# The numpy methods in use: "linear" (numpy's default) for the retrieval benchmark, "nearest"
# (sorted[round(q * (n - 1))]) for the latency and concurrency scripts, whose published tables
# were measured with it.
PercentileMethod = Literal["linear", "nearest"]


# --------------------------------------------------------------------------------------------
# Averages and percentiles
# --------------------------------------------------------------------------------------------


def _floats(values: Iterable[float]) -> npt.NDArray[np.float64]:
    return np.fromiter(values, dtype=np.float64)


def mean(values: Iterable[float | None]) -> float:
    """Mean of the non-None values; nan when there are none (a query a metric does not apply to
    is None, not 0, so that it cannot drag the mean down)."""
    xs = _floats(v for v in values if v is not None)
    return float(np.mean(xs)) if xs.size else math.nan


def percentile(values: Iterable[float], p: float, method: PercentileMethod = "linear") -> float:
    """The p-th percentile (0-100) by numpy's `method`; nan when empty (a stage that never ran)."""
    xs = _floats(values)
    return float(np.percentile(xs, p, method=method)) if xs.size else math.nan


def median(values: Iterable[float]) -> float:
    """numpy's median: for an even count (a + b) / 2 of the middle pair, bit for bit what
    `statistics.median` gave the latency scripts (`percentile(., 50)` may differ in the last bit)."""
    xs = _floats(values)
    return float(np.median(xs)) if xs.size else math.nan


def floor_rank_percentile(values: Iterable[float], p: float) -> float:
    """The floor(n * p / 100)-th smallest value (1-based; the smallest when that rounds to 0).

    Not a numpy method: for 105 searches p95 is the 99th value where numpy's "nearest" and
    "inverted_cdf" pick the 100th. Only `bench/latency_reads_ab.py` uses it, so that its numbers
    stay comparable with the reads A/B table in bench/RESULTS.md measured this way.
    """
    xs = np.sort(_floats(values))
    if not xs.size:
        return math.nan
    # n * (p / 100), not n * p / 100: the product the table was measured with, to the last bit.
    return float(xs[max(int(xs.size * (p / 100)) - 1, 0)])


def paired_difference(values: Sequence[float], reference: Sequence[float]) -> tuple[float, float]:
    """Mean of the pairwise differences and the half-width of its 95% interval (1.96 standard
    errors, sample standard deviation): whether a gap between two variants is noise."""
    diffs = _floats(a - b for a, b in zip(values, reference, strict=True))
    return float(np.mean(diffs)), float(1.96 * np.std(diffs, ddof=1) / math.sqrt(diffs.size))


# --------------------------------------------------------------------------------------------
# Ranking metrics
# --------------------------------------------------------------------------------------------


def reciprocal_rank(hits: Sequence[bool], k: int | None = None) -> float:
    """1 / rank of the first true among the first k (all when k is None); 0.0 when none."""
    return next((1.0 / (i + 1) for i, ok in enumerate(hits[:k]) if ok), 0.0)


def hit_at_k(ranked: Sequence[str], relevant: set[str] | str, k: int) -> float:
    """1.0 when any of the first k ranked ids is relevant."""
    wanted = {relevant} if isinstance(relevant, str) else relevant
    return 1.0 if any(r in wanted for r in ranked[:k]) else 0.0


def dcg(gains: Sequence[float]) -> float:
    """Discounted cumulative gain with linear gains: sum of g_i / log2(i + 1), i from 1."""
    g = _floats(gains)
    return float(np.sum(g / np.log2(np.arange(2, g.size + 2)))) if g.size else 0.0


def ndcg_at_k(ranked: Sequence[str], qrels: dict[str, int], k: int) -> float | None:
    """nDCG@k with the grade as gain (trec_eval / BEIR convention); None when nothing is relevant.

    Repeated ids count once (at their first rank); the ideal ranking uses every judged grade.
    """
    ideal = dcg(sorted((g for g in qrels.values() if g > 0), reverse=True)[:k])
    if ideal <= 0:
        return None
    seen = list(dict.fromkeys(ranked))[:k]
    return dcg([max(qrels.get(r, 0), 0) for r in seen]) / ideal


def kendall_tau(a: npt.NDArray[np.floating], b: npt.NDArray[np.floating]) -> float:
    """Tau-a between two score vectors of the same items (ties count as neither agreeing nor not)."""
    sa, sb = np.sign(a[:, None] - a[None, :]), np.sign(b[:, None] - b[None, :])
    n = len(a)
    return float((sa * sb).sum() / (n * (n - 1)))


def top_k_overlap(scores: npt.NDArray[np.floating], reference: npt.NDArray[np.floating], k: int) -> float:
    """Share of the reference's top k items that `scores` also ranks in its top k."""
    top, ref_top = set(np.argsort(-scores)[:k].tolist()), set(np.argsort(-reference)[:k].tolist())
    return len(top & ref_top) / k


# --------------------------------------------------------------------------------------------
# Character spans (half-open ranges into a document's text)
# --------------------------------------------------------------------------------------------


def merge_ranges(ranges: Iterable[Range]) -> list[Range]:
    """Union of half-open ranges as sorted, disjoint, non-touching ranges (empty ones dropped)."""
    out: list[list[int]] = []
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def overlap_chars(gold: Iterable[Range], retrieved: Iterable[Range]) -> int:
    """Characters of the union of `gold` that the union of `retrieved` covers."""
    total = 0
    ret = merge_ranges(retrieved)
    for a, b in merge_ranges(gold):
        for c, d in ret:
            total += max(0, min(b, d) - max(a, c))
    return total


def span_recall(gold: Sequence[Range], retrieved: Sequence[Range]) -> float:
    """Share of gold characters covered by the retrieved ranges (0.0 when there is no gold)."""
    size = sum(b - a for a, b in merge_ranges(gold))
    return overlap_chars(gold, retrieved) / size if size else 0.0
