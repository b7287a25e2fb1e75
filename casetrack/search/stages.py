"""Scoring of a candidate set by each model: the rankings that fusion and rerank combine.

Candidates are the union of BM25 and dense recall. Every model then scores the whole set from
the vectors stored with the chunks, so a passage recalled by one list is still ranked by the
others (a chunk found only by BM25 gets a dense rank too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from casetrack.embed.late import maxsim_many
from casetrack.embed.sparse import SparseVector
from casetrack.embed.token_codec import decode_tokens
from casetrack.store import lance_tables as lt


@dataclass
class QueryModels:
    """The query-side encoders a search may use; None where the stage is skipped."""

    dense: Any = None  # E1 DenseEncoder
    e7: Any = None  # E7 DenseEncoder
    sparse: Any = None  # E6 SparseEncoder
    late: Any = None  # E12 LateInteractionEncoder
    late_codec: str | None = None  # how the case stored its E12 vectors
    skipped: dict[str, str] = field(default_factory=dict)


def rank_by(scores: dict[str, float]) -> list[str]:
    """Ids by descending score (ties keep insertion order)."""
    return [cid for cid, _ in sorted(scores.items(), key=lambda kv: kv[1], reverse=True)]


def dense_scores(
    query: npt.NDArray[np.float32], rows: Sequence[dict[str, Any]], column: str
) -> dict[str, float]:
    """Cosine of the query with each row's stored vector (rows without one are left out)."""
    have = [r for r in rows if r.get(column) is not None]
    if not have:
        return {}
    matrix = np.asarray([r[column] for r in have], dtype=np.float32)
    norms = np.maximum(np.linalg.norm(matrix, axis=1), 1e-12)
    sims = (matrix @ query) / norms / max(float(np.linalg.norm(query)), 1e-12)
    return {r["chunk_id"]: float(s) for r, s in zip(have, sims, strict=True)}


def sparse_scores(query: SparseVector, rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Dot product of the query's term weights with each row's stored sparse vector."""
    out: dict[str, float] = {}
    if query.nnz == 0:
        return out
    for r in rows:
        ids, vals = r.get(lt.SPARSE_IDS), r.get(lt.SPARSE_VALUES)
        if ids is None or vals is None:
            continue
        doc = SparseVector(np.asarray(ids, dtype=np.int32), np.asarray(vals, dtype=np.float32))
        score = query.dot(doc)
        if score > 0:
            out[r["chunk_id"]] = score
    return out


def maxsim_scores(
    query_tokens: npt.NDArray[np.float32], rows: Sequence[dict[str, Any]], codec: str
) -> dict[str, float]:
    """Late-interaction MaxSim of the query tokens with each row's stored token vectors."""
    have = [r for r in rows if r.get(lt.LATE_VECTORS) is not None and r.get(lt.LATE_COUNT)]
    if not have:
        return {}
    dim = int(query_tokens.shape[1])
    docs = [decode_tokens(r[lt.LATE_VECTORS], int(r[lt.LATE_COUNT]), dim, codec) for r in have]
    scores = maxsim_many(query_tokens, docs)
    return {r["chunk_id"]: float(s) for r, s in zip(have, scores, strict=True)}
