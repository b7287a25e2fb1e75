"""search_case, top to bottom: the query read once, what the filters allow, recall, the ranked
lists, fusion, the ranking steps in order (ranking/steps.py), the page of hits.

1. Recall (ranking/recall.py): tantivy BM25 top-N (plus, for a question that names its document,
   BM25 of the rest of the question inside it) and E1's nearest neighbours.
2. Lists and fusion (ranking/lists.py, ranking/steps.py `fuse`): every enabled model ranks the
   whole candidate set from stored vectors (E1 with passage windows, E6, E7; BM25 by its own
   order; E1 of the question alone when a scene comes first), combined by weighted RRF.
3. The ranking steps (ranking/steps.py `STEPS`): focus, boost, topic, rerank, verbatim.
4. The page (ranking/page.py): each hit pinned to its lines and rated; context; documents.

Which lists and steps run is a `SearchConfig`; a list whose model is missing or skipped by the
memory tier is left out and named in `stages_skipped`. `timings_ms` holds each part's time, and
their sum as `total`.
"""

from __future__ import annotations

from dataclasses import replace

from casetrack.domain import SearchResponse
from casetrack.domain.slots import BM25
from casetrack.errors import CaseTrackError, Fix
from casetrack.search.query import analyse
from casetrack.search.query.clauses import provision_keywords
from casetrack.search.ranking.context import SearchContext, TermStats
from casetrack.search.ranking.encoders import QueryEncoders
from casetrack.search.ranking.lists import rank_lists
from casetrack.search.ranking.page import page
from casetrack.search.ranking.recall import recall
from casetrack.search.ranking.request import SearchRequest
from casetrack.search.ranking.runtime import SearchRuntime
from casetrack.search.ranking.scope import scope_of
from casetrack.search.ranking.steps import RankInput, Step, fuse, run_steps
from casetrack.search.ranking.trace import Trace
from casetrack.store.case_store import CaseStore


def search(
    store: CaseStore, encoders: QueryEncoders, request: SearchRequest, runtime: SearchRuntime | None = None
) -> SearchResponse:
    """Ranked chunks (and, with `request.per_document`, ranked documents) for `request.query`.

    `runtime` holds the process's read threads and query cache (without one, reads run inline
    and nothing is cached).
    """
    request = _checked(store, request)
    cfg = request.config
    response = SearchResponse(
        query=request.query,
        case=store.record.name,
        stages_skipped=dict(encoders.skipped),
        keywords=list(request.keywords),
        likely_wording=request.likely_wording,
    )
    trace = Trace(response)
    language = store.record.language
    keywords = request.keywords
    if not keywords and cfg.words.provisions:
        keywords = provision_keywords(request.query, language)
    query = analyse(request.query, store.bm25.analyzer, language, keywords, request.likely_wording)
    trace.lap("query")
    scope = scope_of(store, request.effective_filters())
    trace.lap("filters")
    if scope.empty_because is not None:
        response.warnings.append(scope.empty_because)
        trace.finish("filters")
        return response
    every = list(dict.fromkeys([*query.terms, *query.asked_terms, *query.word_terms]))
    doc_freqs, chunks = store.bm25.doc_freqs(every)
    lists = tuple(n for n in cfg.lists_for(store.record.language) if n == BM25 or encoders.has(n))
    ctx = SearchContext(store, query, cfg, encoders, scope, TermStats(doc_freqs, chunks), lists, runtime)
    candidates = recall(ctx, trace)
    ranked = RankInput(ctx, candidates, rank_lists(ctx, candidates, trace))
    ranking = fuse(ranked)
    if len(ranked.lists.rankings) > 1:
        trace.used("rrf")
    trace.lap("fuse")

    def after(step: Step, changed: bool) -> None:
        if changed and step.stage:
            trace.used(step.stage)
        trace.lap(step.name)

    ranking = run_steps(ranked, ranking, after)
    page(ranked, ranking, request, response)
    trace.finish("fetch")
    return response


# The caller's words: at most this many keywords, of at most KEYWORD_CHARS each, and a likely
# wording of at most WORDING_CHARS (one to three sentences).
MAX_KEYWORDS = 8
KEYWORD_CHARS = 120
WORDING_CHARS = 1500


def _checked(store: CaseStore, request: SearchRequest) -> SearchRequest:
    """The request with its keywords and wording tidied (blank ones and repeats dropped); an empty
    query, a page size out of range or too many words is the caller's mistake: say how to ask."""
    if not request.query.strip():
        raise CaseTrackError(
            "The search query is empty.",
            fix=Fix(
                "Example",
                f'casetrack search --case "{store.record.name}" "termination notice"',
                "search_case",
                {"query": "termination notice"},
            ),
        )
    if not 1 <= request.top_k <= request.config.max_top_k:
        raise CaseTrackError(f"top_k must be between 1 and {request.config.max_top_k}.", "Use --top-k 10.")
    keywords = tuple(dict.fromkeys(k.strip() for k in request.keywords if k.strip()))
    wording = (request.likely_wording or "").strip() or None
    if len(keywords) > MAX_KEYWORDS or any(len(k) > KEYWORD_CHARS for k in keywords):
        raise CaseTrackError(
            f"{len(keywords)} keywords were given; at most {MAX_KEYWORDS}, of at most {KEYWORD_CHARS} characters each.",
            "Keep the few alternative searches most likely to be the documents' own words, e.g. "
            '--keyword "termination for convenience" --keyword "written notice".',
        )
    if wording is not None and len(wording) > WORDING_CHARS:
        raise CaseTrackError(
            f"likely_wording is {len(wording):,} characters long; at most {WORDING_CHARS:,}.",
            "Write one to three sentences as the document would word the answer.",
        )
    return replace(request, keywords=keywords, likely_wording=wording)
