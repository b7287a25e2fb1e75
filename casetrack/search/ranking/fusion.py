"""Reciprocal rank fusion: combines rankings by rank, never by raw scores.

BM25 scores and cosine similarities live on unrelated scales; RRF (Cormack et al., 2009)
needs only each list's order. score(d) = Σ_lists weight / (k + rank_d), rank from 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

DEFAULT_K = 60


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    k: int = DEFAULT_K,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[str, float]]:
    """Fuse named rankings of ids; returns (id, score) best first, ties broken by id order seen."""
    scores: dict[str, float] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
