"""Stage 2, the ranked lists: every fused model ranks the whole candidate set from its stored
vectors, so a passage recalled by one list is still ranked by the others (a chunk found only by
BM25 gets a dense rank too).

E1 ranks a chunk by its own cosine plus its best passage window's (a clause inside a long chunk
can match); a query that sets a scene before its question ("Consider the supply agreement between
Acme and Beta; what is the notice period?") adds one more list, E1 of the question alone, whose
window cosines are also the ones the pin-cite reads (the scene's names point every window at the
cover page).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from casetrack.domain.slots import BM25
from casetrack.embed.sparse import SparseVector
from casetrack.search.ranking import scores as sc
from casetrack.search.ranking.context import SearchContext
from casetrack.search.ranking.recall import LIST_COLUMNS, Candidates
from casetrack.search.ranking.trace import Trace
from casetrack.store import lance_tables as lt

# The ranked list of E1 with the query's question alone (when a scene comes first).
QUESTION = "question"
# With the caller's words: BM25 and E1 of the question alone, and E1 of the likely wording.
BM25_QUESTION = "bm25_question"
DENSE_QUESTION = "dense_question"
WORDING = "wording"


@dataclass(frozen=True)
class DenseDetail:
    """What E1 found beside its ranking, for relevance and the pin-cite."""

    cosines: Mapping[str, float] = field(default_factory=dict)  # chunk -> E1 cosine (best window)
    best_window: Mapping[str, int] = field(default_factory=dict)  # chunk -> its window that beat it
    window_sims: Mapping[str, npt.NDArray[np.float32]] = field(default_factory=dict)  # each window's cosine


@dataclass(frozen=True)
class Lists:
    """Each list's ranking of the candidates, in the order they are fused (BM25, E1, the question
    alone, E6, E7: on a tie of fused scores the candidate a list met first stays first)."""

    rankings: Mapping[str, tuple[str, ...]]
    dense: DenseDetail = field(default_factory=DenseDetail)
    wording_cosines: Mapping[str, float] = field(default_factory=dict)  # chunk -> E1 cosine of the wording


def rank_lists(ctx: SearchContext, candidates: Candidates, trace: Trace) -> Lists:
    """Every fused list's ranking of `candidates`."""
    rankings: dict[str, tuple[str, ...]] = {}
    if BM25 in ctx.lists:
        rankings[BM25] = candidates.bm25
        if candidates.bm25_question:
            rankings[BM25_QUESTION] = candidates.bm25_question
            trace.used(BM25_QUESTION)
    dense = DenseDetail()
    wording: dict[str, float] = {}
    ids = candidates.ids
    for name, vector in candidates.vectors.items():
        if isinstance(vector, SparseVector):
            scores = sc.sparse_scores(
                vector, ids, candidates.column(lt.SPARSE_IDS), candidates.column(lt.SPARSE_VALUES)
            )
        elif name == "dense" and ctx.config.fusion.dense_windows:
            scores, dense = _windowed(ctx, candidates, vector, rankings, trace)
            if candidates.wording is not None:
                wording = _wording(candidates, rankings, trace)
        else:
            scores = sc.dense_scores(vector, ids, candidates.column(LIST_COLUMNS[name][0]))
            if name == "dense":
                dense = DenseDetail(cosines=dict(scores))
        rankings[name] = tuple(sc.rank_by(scores))
        if name != "dense":
            trace.used(name)
        trace.lap(name)
    if "dense" in rankings:
        trace.used("dense", at=1 if BM25 in rankings else 0)
    return Lists(rankings, dense, wording)


def _wording(candidates: Candidates, rankings: dict[str, tuple[str, ...]], trace: Trace) -> dict[str, float]:
    """E1 of the caller's likely wording ranks every candidate (chunk and best passage window);
    returns each candidate's best cosine with it."""
    assert candidates.wording is not None
    ids = candidates.ids
    vectors, windows = candidates.column(lt.VECTOR), candidates.column(lt.WINDOW_VECTORS)
    scored = sc.windowed_dense_scores(candidates.wording, ids, vectors, windows)
    rankings[WORDING] = tuple(sc.rank_by(scored.scores))
    trace.used(WORDING)
    return scored.best_cosine


def _windowed(
    ctx: SearchContext,
    candidates: Candidates,
    vector: npt.NDArray[np.float32],
    rankings: dict[str, tuple[str, ...]],
    trace: Trace,
) -> tuple[dict[str, float], DenseDetail]:
    """E1 with passage windows, and the question-alone list of a scene-setting query (added to
    `rankings` right after E1's place)."""
    ids = candidates.ids
    vectors, windows = candidates.column(lt.VECTOR), candidates.column(lt.WINDOW_VECTORS)
    windowed = sc.windowed_dense_scores(vector, ids, vectors, windows)
    window_sims, cosines = windowed.window_sims, windowed.best_cosine
    if ctx.list_text("dense") != ctx.query.text:  # E1 read the caller's words too: the question's own cosines
        own = sc.windowed_dense_scores(ctx.dense(), ids, vectors, windows)
        cosines = own.best_cosine
        if ctx.config.words.dense_question_weight:
            rankings[DENSE_QUESTION] = tuple(sc.rank_by(own.scores))
            trace.used(DENSE_QUESTION)
    if ctx.query.sets_scene:
        asked = sc.windowed_dense_scores(ctx.dense(ctx.query.asked), ids, vectors, windows)
        if ctx.config.fusion.question_weight:
            rankings[QUESTION] = tuple(sc.rank_by(asked.scores))
            trace.used(QUESTION)
        window_sims = asked.window_sims or window_sims
    if windowed.with_windows:
        trace.used("dense_windows")
    elif windowed.scores:
        trace.skipped(
            "dense_windows",
            "this case's chunks were embedded before passage windows: run "
            f'`casetrack reembed --case "{ctx.store.record.name}"` to add them',
        )
    detail = DenseDetail(cosines, windowed.best_window, window_sims)
    return windowed.scores, detail
