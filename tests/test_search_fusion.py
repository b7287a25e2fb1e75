from __future__ import annotations

from casetrack.search.ranking.fusion import reciprocal_rank_fusion


def test_rrf_uses_ranks_not_scores() -> None:
    fused = reciprocal_rank_fusion({"bm25": ["a", "b", "c"], "dense": ["b", "c", "a"]}, k=60)
    assert [i for i, _ in fused] == ["b", "a", "c"]
    assert abs(dict(fused)["b"] - (1 / 62 + 1 / 61)) < 1e-12


def test_rrf_weights_and_single_list_items() -> None:
    fused = dict(reciprocal_rank_fusion({"bm25": ["a"], "dense": ["b"]}, weights={"dense": 2.0}))
    assert fused["b"] > fused["a"]
    assert reciprocal_rank_fusion({}) == []
