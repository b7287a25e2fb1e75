"""Stage 4, late interaction: MaxSim of the query's E12 token vectors against the stored token
vectors of the best candidates, added as one more ranked list (by rank, like fusion).

Off by default: the only late-interaction model here is an untrained stand-in. The stage is the
seam for a production ColBERT model (`SearchConfig.rerank`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from casetrack.search.ranking.scores import maxsim_scores, rank_by
from casetrack.store import lance_tables as lt
from casetrack.store.case_store import CaseStore


def rerank_scores(
    scores: Mapping[str, float],
    store: CaseStore,
    query_tokens: npt.NDArray[np.float32],
    codec: str,
    top: int,
    weight: float,
    k: int,
) -> dict[str, float]:
    """`scores` with the top `top` candidates' MaxSim ranks added (`weight / (k + rank)`)."""
    best = [cid for cid, _ in sorted(scores.items(), key=lambda kv: kv[1], reverse=True)[:top]]
    rows = store.lance.fetch_chunks(best, ["chunk_id", lt.LATE_VECTORS, lt.LATE_COUNT])
    maxsim = maxsim_scores(query_tokens, [rows[c] for c in best if c in rows], codec)
    out = dict(scores)
    for rank, chunk_id in enumerate(rank_by(maxsim), start=1):
        out[chunk_id] += weight / (k + rank)
    return out
