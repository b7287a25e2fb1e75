"""The ranking steps, in the order they run, each a named function over typed values.

Fusion makes the first `Ranking` (weighted reciprocal rank fusion of the lists); then each step in
`STEPS` reads the `RankInput` (the query, the candidates, the lists) and the ranking so far, and
returns a new ranking, or None when it had nothing to do. Why this order:

1. focus: the documents a question names have earned their standing from the whole query; inside
   them the chunks trade places by the rest of the question (ranking/naming.py). First, so the
   exact signals below still lift the chunk that holds them.
2. boost: exact-match signals (citations, numbers, quoted phrases, names) add up to one more first
   place (ranking/boost.py).
3. echo: with the caller's words, a passage that repeats a run of the question's own words in order
   gets up to one more first place (ranking/echo.py), so a wrong guess of the wording cannot bury it.
4. topic: a keyword query's clause about the term (ranking/topic.py; off by default).
5. rerank: late-interaction MaxSim of the best candidates as one more list (ranking/rerank.py; off
   by default).
6. verbatim: last, because a passage the query reproduces goes above everything, whatever the
   steps before did (ranking/verbatim.py).

Each step's settings are its group of `SearchConfig` (ranking/config.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from casetrack.search.ranking import boost, echo, naming, rerank, topic, verbatim
from casetrack.search.ranking.context import SearchContext
from casetrack.search.ranking.fusion import reciprocal_rank_fusion
from casetrack.search.ranking.lists import BM25_QUESTION, DENSE_QUESTION, QUESTION, WORDING, Lists
from casetrack.search.ranking.recall import Candidates
from casetrack.search.ranking.verbatim import VerbatimMatch
from casetrack.store.case_store import doc_of_chunk


@dataclass(frozen=True)
class Ranking:
    """Every candidate's score so far (insertion order breaks ties), and the chunks that reproduce
    the query with where they do (found by the verbatim step; the pin-cite cites that span)."""

    scores: Mapping[str, float]
    exact: Mapping[str, VerbatimMatch] = field(default_factory=dict)

    def with_scores(self, scores: Mapping[str, float]) -> Ranking:
        return replace(self, scores=scores)

    def ordered(self) -> list[tuple[str, float]]:
        """(chunk_id, score), best first; a tie keeps the earlier candidate first."""
        return sorted(self.scores.items(), key=lambda kv: kv[1], reverse=True)


@dataclass(frozen=True)
class RankInput:
    """What every step may read: the search's context, the candidates and the lists' rankings."""

    context: SearchContext
    candidates: Candidates
    lists: Lists

    def texts(self, ranking: Ranking) -> list[tuple[str, str]]:
        """(chunk_id, text) of the ranked candidates, in recall order."""
        return [(c, t) for c, t in self.candidates.texts if c in ranking.scores]


@dataclass(frozen=True)
class Step:
    name: str  # its key in timings_ms
    run: Callable[[RankInput, Ranking], Ranking | None]
    active: Callable[[RankInput, Ranking], bool]
    stage: str | None = None  # the stage it reports in stages_used when it changed the ranking


def fuse(ranked: RankInput) -> Ranking:
    """Stage 2's end: weighted reciprocal rank fusion of every list (the question alone with its
    own weight)."""
    fusion, words = ranked.context.config.fusion, ranked.context.config.words
    weights = {
        **fusion.weights,
        QUESTION: fusion.question_weight,
        BM25_QUESTION: words.question_bm25_weight,
        DENSE_QUESTION: words.dense_question_weight,
        WORDING: words.wording_weight,
    }
    fused = reciprocal_rank_fusion(ranked.lists.rankings, k=fusion.rrf_k, weights=weights)
    return Ranking(dict(fused))


def _focus(ranked: RankInput, ranking: Ranking) -> Ranking | None:
    named = ranked.candidates.focus
    if named is None:
        return None
    question = ranked.lists.rankings.get(QUESTION)
    rankings = [list(named.ranking)] + ([list(question)] if question is not None else [])
    scores = dict(ranking.scores)
    naming.reorder_within(scores, named.documents, rankings, ranked.context.config.fusion.rrf_k, doc_of_chunk)
    return ranking.with_scores(scores)


def _boost(ranked: RankInput, ranking: Ranking) -> Ranking:
    ctx = ranked.context
    cfg, query = ctx.config.boost, ctx.query
    values = boost.boost_scores(
        query.signals,
        ranked.texts(ranking),
        heading_weight=cfg.heading_weight,
        discount_common=cfg.discount_common,
        document_of=doc_of_chunk if cfg.names_by_document else None,
        heading_stems=query.stems,
    )
    return ranking.with_scores(_added(ranking.scores, values, cfg.weight, ctx.config.fusion.rrf_k))


def _echo(ranked: RankInput, ranking: Ranking) -> Ranking | None:
    ctx = ranked.context
    query, analyzer = ctx.query, ctx.store.bm25.analyzer

    def is_name(word: str) -> bool:
        return bool(set(analyzer.terms(word)) & query.roles.names)

    values = echo.echo_scores(query.asked, ranked.texts(ranking), is_name)
    return ranking.with_scores(
        _added(ranking.scores, values, ctx.config.echo.weight, ctx.config.fusion.rrf_k)
    )


def _echo_active(ranked: RankInput, ranking: Ranking) -> bool:
    cfg = ranked.context.config.echo
    wanted = ranked.context.query.has_words or not cfg.only_with_words
    return cfg.weight > 0 and wanted and _has_scores(ranked, ranking)


def _topic(ranked: RankInput, ranking: Ranking) -> Ranking:
    ctx = ranked.context
    values = topic.topic_scores(ctx.query.keyword_stems, ranked.texts(ranking))
    return ranking.with_scores(
        _added(ranking.scores, values, ctx.config.topic.weight, ctx.config.fusion.rrf_k)
    )


def _added(
    scores: Mapping[str, float], values: Mapping[str, float], weight: float, k: int
) -> dict[str, float]:
    """`scores` plus `weight` first places (1 / (k + 1) each) times each candidate's value (0-1)."""
    out = dict(scores)
    for chunk_id, value in values.items():
        out[chunk_id] += weight * value / (k + 1)
    return out


def _rerank(ranked: RankInput, ranking: Ranking) -> Ranking | None:
    ctx = ranked.context
    late, codec = ctx.encoders.late, ctx.encoders.late_codec
    if late is None or not codec:
        return None
    cfg = ctx.config.rerank
    tokens = late.encode_query(ctx.query.text)
    scores = rerank.rerank_scores(
        ranking.scores, ctx.store, tokens, codec, cfg.top, cfg.weight, ctx.config.fusion.rrf_k
    )
    return ranking.with_scores(scores)


def _verbatim(ranked: RankInput, ranking: Ranking) -> Ranking | None:
    """Candidates that reproduce the query go first, also when the passage runs over two chunks.

    A passage the query reproduces holds nearly all of its words, so BM25 of the query ranks it
    among its first VERBATIM_BM25 (noise and hyphenation cost a few words, not the rank; the caller's
    words only add more): only those are aligned."""
    ctx = ranked.context
    folded, words = ctx.query.folded, ctx.query.words
    texts = ranked.texts(ranking)
    if ranked.candidates.bm25:
        first = set(ranked.candidates.bm25[: verbatim.VERBATIM_BM25])
        texts = [(c, t) for c, t in texts if c in first]
    matches, straddles = verbatim.verbatim_matches(folded, words, texts)
    scores = dict(ranking.scores)
    if straddles and len(straddles) <= verbatim.MAX_STRADDLES:
        for chunk_id, match in verbatim.join_straddles(ctx.store, folded, straddles).items():
            if chunk_id not in matches or match.coverage > matches[chunk_id].coverage:
                matches[chunk_id] = match
                scores.setdefault(chunk_id, 0.0)
    if not matches:
        return None
    verbatim.lift(scores, matches)
    return Ranking(scores, matches)


def _has_scores(_: RankInput, ranking: Ranking) -> bool:
    return bool(ranking.scores)


STEPS: tuple[Step, ...] = (
    Step("reorder", _focus, lambda r, _: r.candidates.focus is not None),
    Step("boost", _boost, lambda r, s: r.context.config.boost.on and _has_scores(r, s), stage="boost"),
    Step("echo", _echo, _echo_active, stage="echo"),
    Step("topic", _topic, lambda r, s: r.context.config.topic.weight > 0 and _has_scores(r, s)),
    Step("rerank", _rerank, lambda r, s: r.context.config.rerank.on and _has_scores(r, s), stage="rerank"),
    Step(
        "verbatim",
        _verbatim,
        lambda r, s: r.context.config.verbatim.on and _has_scores(r, s),
        stage="verbatim",
    ),
)


def run_steps(ranked: RankInput, ranking: Ranking, on_step: Callable[[Step, bool], None]) -> Ranking:
    """Every active step of STEPS in order; `on_step(step, changed)` after each one that ran."""
    for step in STEPS:
        if not step.active(ranked, ranking):
            continue
        result = step.run(ranked, ranking)
        if result is not None:
            ranking = result
        on_step(step, result is not None)
    return ranking
