"""Candidate scoring from Arrow columns: dense cosine and sparse dot products, nulls left out."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from casetrack.embed.sparse import SparseVector
from casetrack.search.ranking.scores import dense_scores, rank_by, sparse_scores


def test_dense_scores_skip_rows_without_vectors() -> None:
    vectors = pa.chunked_array([pa.array([[1.0, 0.0], None, [0.6, 0.8]], pa.list_(pa.float32(), 2))])
    scores = dense_scores(np.array([1.0, 0.0], dtype=np.float32), ["a", "b", "c"], vectors)
    assert set(scores) == {"a", "c"}
    assert abs(scores["a"] - 1.0) < 1e-6 and abs(scores["c"] - 0.6) < 1e-6
    assert rank_by(scores) == ["a", "c"]
    assert dense_scores(np.ones(2, dtype=np.float32), ["a"], None) == {}


def test_sparse_scores_match_the_reference_dot_product() -> None:
    rng = np.random.default_rng(3)
    docs = []
    for _ in range(6):
        ids = np.sort(rng.choice(50, size=8, replace=False)).astype(np.int32)
        docs.append(SparseVector(ids, rng.random(8).astype(np.float32) + 0.1))
    query = SparseVector(
        np.array([1, 7, 20, 33], dtype=np.int32), np.array([0.5, 1.0, 2.0, 0.3], dtype=np.float32)
    )
    indices = pa.chunked_array([pa.array([d.indices.tolist() for d in docs] + [None], pa.list_(pa.int32()))])
    values = pa.chunked_array([pa.array([d.values.tolist() for d in docs] + [None], pa.list_(pa.float32()))])
    chunk_ids = [f"c{i}" for i in range(7)]
    scores = sparse_scores(query, chunk_ids, indices, values)
    expected = {f"c{i}": query.dot(d) for i, d in enumerate(docs) if query.dot(d) > 0}
    assert scores.keys() == expected.keys()
    for key, value in expected.items():
        assert abs(scores[key] - value) < 1e-5
