"""Each model's scores over the candidate set: the rankings that fusion and rerank combine.

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
import pyarrow as pa

from casetrack.chunk.windows import unpack_windows
from casetrack.embed.late import maxsim_many
from casetrack.embed.sparse import SparseVector
from casetrack.embed.token_codec import decode_tokens
from casetrack.store import lance_tables as lt


def rank_by(scores: dict[str, float]) -> list[str]:
    """Ids by descending score (ties keep insertion order)."""
    return [cid for cid, _ in sorted(scores.items(), key=lambda kv: kv[1], reverse=True)]


def dense_scores(
    query: npt.NDArray[np.float32], ids: list[str], column: pa.ChunkedArray | None
) -> dict[str, float]:
    """Cosine of the query with each row's stored vector (rows without one are left out)."""
    if column is None:
        return {}
    vectors = column.combine_chunks()
    valid = np.asarray(vectors.is_valid(), dtype=bool)
    if not valid.any():
        return {}
    dim = vectors.type.list_size
    matrix = np.asarray(vectors.filter(pa.array(valid)).flatten(), dtype=np.float32).reshape(-1, dim)
    norms = np.maximum(np.linalg.norm(matrix, axis=1), 1e-12)
    sims = (matrix @ query) / norms / max(float(np.linalg.norm(query)), 1e-12)
    kept = [cid for cid, ok in zip(ids, valid, strict=True) if ok]
    return {cid: float(s) for cid, s in zip(kept, sims, strict=True)}


def windowed_dense_scores(
    query: npt.NDArray[np.float32],
    ids: list[str],
    vectors: pa.ChunkedArray | None,
    windows: pa.ChunkedArray | None,
) -> WindowedScores:
    """E1 passage score: the chunk vector's cosine plus its best passage window's ("MaxP").

    A chunk with no more sentences than a window (stored b"") counts its own cosine twice; one
    embedded before windows existed (null) too, so old and new chunks stay comparable.
    """
    scores = dense_scores(query, ids, vectors)
    out = WindowedScores()
    if windows is None or not scores:
        out.scores = {cid: 2 * s for cid, s in scores.items()}
        out.best_cosine = dict(scores)
        return out
    q = query / max(float(np.linalg.norm(query)), 1e-12)
    dim = int(query.shape[0])
    for cid, blob in zip(ids, windows.to_pylist(), strict=True):
        if cid not in scores:
            continue
        best = scores[cid]
        if blob is not None:
            out.with_windows += 1
            if blob:
                sims = unpack_windows(blob, dim) @ q
                out.window_sims[cid] = sims
                if float(sims.max()) > best:
                    best = float(sims.max())
                    out.best_window[cid] = int(sims.argmax())
        out.scores[cid] = scores[cid] + best
        out.best_cosine[cid] = best
    return out


@dataclass
class WindowedScores:
    scores: dict[str, float] = field(default_factory=dict)
    with_windows: int = 0  # candidates with windows stored (0: the case predates windows)
    best_window: dict[str, int] = field(default_factory=dict)  # chunk -> window that beat the chunk
    best_cosine: dict[str, float] = field(default_factory=dict)  # chunk -> max(chunk, best window) cosine
    window_sims: dict[str, npt.NDArray[np.float32]] = field(
        default_factory=dict
    )  # chunk -> each window's cosine


def sparse_scores(
    query: SparseVector, ids: list[str], indices: pa.ChunkedArray | None, values: pa.ChunkedArray | None
) -> dict[str, float]:
    """Dot product of the query's term weights with each row's stored sparse vector."""
    out: dict[str, float] = {}
    if query.nnz == 0 or indices is None or values is None:
        return out
    idx, val = indices.combine_chunks(), values.combine_chunks()
    offsets = np.asarray(idx.offsets)
    flat_idx = np.asarray(idx.flatten(), dtype=np.int32)
    flat_val = np.asarray(val.flatten(), dtype=np.float32)
    # The query's term ids are sorted: one searchsorted finds every stored term's query weight.
    pos = np.minimum(np.searchsorted(query.indices, flat_idx), query.nnz - 1)
    term_weight = np.where(query.indices[pos] == flat_idx, query.values[pos], np.float32(0.0))
    contrib = term_weight * flat_val
    valid = np.asarray(idx.is_valid(), dtype=bool)
    for row, cid in enumerate(ids):
        if not valid[row]:
            continue
        score = float(contrib[offsets[row] : offsets[row + 1]].sum())
        if score > 0:
            out[cid] = score
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
