"""The ranking steps of search (casetrack/search/ranking/steps.py), each on its own over a real case,
and how they interact: run in order, each changes only what it is for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.domain import SearchResponse
from casetrack.embed.protocols import DenseQueryEncoder, LateQueryEncoder, SparseQueryEncoder
from casetrack.search.filters import SearchFilters
from casetrack.search.query import analyse
from casetrack.search.ranking.config import SearchConfig
from casetrack.search.ranking.context import SearchContext, TermStats
from casetrack.search.ranking.encoders import QueryEncoders
from casetrack.search.ranking.lists import rank_lists
from casetrack.search.ranking.recall import recall
from casetrack.search.ranking.scope import scope_of
from casetrack.search.ranking.steps import STEPS, Ranking, RankInput, Step, fuse, run_steps
from casetrack.search.ranking.trace import Trace
from casetrack.store.case_store import doc_of_chunk
from tests.conftest import MODELS

CASE = "Steps"
COVER = (
    "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Zentrix Corporation and Quorvane Limited. "
    "Zentrix Corporation and Quorvane Limited agree as follows."
)
CLAUSES = "\n\n".join(
    f"Clause {i}. The Supplier shall pack order lot {i} on pallets and label each carton with its batch code."
    for i in range(1, 40)
)
NOTICE = "Clause 40. Either party may terminate this Agreement upon ninety days written notice to the other."
LAW = (
    "14. GOVERNING LAW\n\nThis Agreement is governed by the laws of New York. Proceedings go before the "
    "courts of process 0009876-54.2019.8.26.0100."
)
LEASE = (
    "The tenant shall pay rent monthly.\n\nEither party may terminate this lease with sixty days written "
    "notice. Notice must be delivered by certified mail.\n\nThe landlord keeps the security deposit for repairs."
)
OTHER = "Except as provided in Section 14 (Governing Law), each party bears its own costs of the dispute."


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CaseTrack]:
    root = tmp_path_factory.mktemp("steps")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case(CASE)
    files = {
        "supply.md": f"{COVER}\n\n{CLAUSES}\n\n{NOTICE}",
        "law.txt": LAW,
        "lease.txt": LEASE,
        "other.txt": OTHER,
    }
    for name, text in files.items():
        (root / name).write_text(text)
    assert all(r.status == "ingested" for r in app.ingest(CASE, [root / n for n in files]))
    yield app
    app.close()


def _ranked(app: CaseTrack, text: str, config: SearchConfig | None = None) -> tuple[RankInput, Ranking]:
    """The steps' input and fusion's ranking for `text`, built by the same functions search runs."""
    cfg = config or SearchConfig()
    store = app.open_case(CASE)
    pool = app.pool
    encoders = QueryEncoders(
        dense=cast(DenseQueryEncoder, pool.get("E1", "en")),
        sparse=cast(SparseQueryEncoder, pool.get("E6", "en")),
        e7=cast(DenseQueryEncoder, pool.get("E7", "en")),
        late=cast(LateQueryEncoder, pool.get("E12", "en")),
        late_codec=store.models().get("E12", {}).get("codec"),
    )
    query = analyse(text, store.bm25.analyzer, "en")
    doc_freqs, chunks = store.bm25.doc_freqs(list(query.terms))
    scope = scope_of(store, SearchFilters())
    lists = cfg.lists_for("en")
    ctx = SearchContext(store, query, cfg, encoders, scope, TermStats(doc_freqs, chunks), lists)
    trace = Trace(SearchResponse(query=text, case=CASE))
    candidates = recall(ctx, trace)
    ranked = RankInput(ctx, candidates, rank_lists(ctx, candidates, trace))
    return ranked, fuse(ranked)


def _step(name: str) -> Step:
    return next(s for s in STEPS if s.name == name)


def _first_doc(app: CaseTrack, ranking: Ranking) -> str:
    with app.reading(CASE) as store:
        names = {e.doc_id: e.name for e in store.documents()}
    return names[doc_of_chunk(ranking.ordered()[0][0])]


def test_the_steps_run_in_the_documented_order() -> None:
    assert [s.name for s in STEPS] == ["reorder", "boost", "echo", "topic", "rerank", "verbatim"]


def test_focus_lets_the_named_documents_chunks_trade_places_only(app: CaseTrack) -> None:
    ranked, fused = _ranked(app, "In the agreement between Zentrix and Quorvane, how much notice ends it?")
    assert ranked.candidates.focus is not None
    named = ranked.candidates.focus.documents
    after = _step("reorder").run(ranked, fused)
    assert after is not None
    inside = sorted(v for c, v in fused.scores.items() if doc_of_chunk(c) in named)
    assert sorted(v for c, v in after.scores.items() if doc_of_chunk(c) in named) == inside  # same scores
    others = {c: v for c, v in fused.scores.items() if doc_of_chunk(c) not in named}
    assert {c: v for c, v in after.scores.items() if doc_of_chunk(c) not in named} == others
    with app.reading(CASE) as store:
        best = after.ordered()[0][0]
        text = store.lance.fetch_chunks([best])[best]["text"]
    assert "ninety days" in text  # the clause, not the cover page that repeats the names


def test_boost_lifts_the_chunk_with_the_exact_signal(app: CaseTrack) -> None:
    ranked, fused = _ranked(
        app, "which court hears process 0009876-54.2019.8.26.0100", SearchConfig.of(verbatim=False)
    )
    after = _step("boost").run(ranked, fused)
    assert after is not None and _first_doc(app, after) == "law.txt"
    gained = {c: after.scores[c] - fused.scores[c] for c in fused.scores}
    assert max(gained, key=gained.__getitem__) in {c for c, _ in after.ordered()[:1]}
    assert all(v >= 0 for v in gained.values())  # a boost only adds


def test_topic_lifts_the_clause_about_a_keyword_query(app: CaseTrack) -> None:
    cfg = SearchConfig.of(topic=2.0)
    ranked, fused = _ranked(app, "governing law", cfg)
    after = _step("topic").run(ranked, fused)
    assert after is not None
    lifted = [c for c in fused.scores if after.scores[c] > fused.scores[c]]
    assert [_first_doc(app, Ranking({c: 1.0})) for c in lifted] == ["law.txt"]  # not the cross-reference
    assert _step("topic").active(ranked, fused) and not _step("topic").active(
        _ranked(app, "governing law")[0], fused
    )


def test_rerank_adds_late_interaction_ranks_to_the_best_only(app: CaseTrack) -> None:
    cfg = SearchConfig.of(rerank=True, rerank_top=3)
    ranked, fused = _ranked(app, "how can the lease be ended early", cfg)
    after = _step("rerank").run(ranked, fused)
    assert after is not None
    top3 = {c for c, _ in fused.ordered()[:3]}
    changed = {c for c in fused.scores if after.scores[c] != fused.scores[c]}
    assert changed and changed <= top3


def test_verbatim_puts_a_pasted_passage_first_and_says_where(app: CaseTrack) -> None:
    pasted = "Either party may termin-\nate this lease with sixty days written  notice. Notice must be"
    ranked, fused = _ranked(app, pasted)
    after = _step("verbatim").run(ranked, fused)
    assert after is not None and after.exact
    best = after.ordered()[0][0]
    assert best in after.exact and _first_doc(app, after) == "lease.txt"
    assert (
        _step("verbatim").run(*_ranked(app, "how can the lease be ended")) is None
    )  # a question is no passage


def test_a_pasted_passage_stays_first_whatever_the_steps_before_it_did(app: CaseTrack) -> None:
    """Verbatim runs last: a boost that would put another chunk first cannot outrank the passage."""
    pasted = "This Agreement is governed by the laws of New York. Proceedings go before the courts of process"
    strong_boost = SearchConfig.of(boost_weight=50.0)
    ranked, fused = _ranked(app, pasted + " 0001234-56.2020.8.26.0100 lease rent", strong_boost)
    final = run_steps(ranked, fused, lambda step, changed: None)
    assert final.exact and final.ordered()[0][0] in final.exact and _first_doc(app, final) == "law.txt"


def test_the_search_reports_each_step_and_times_add_up(app: CaseTrack) -> None:
    response = app.search(CASE, "In the agreement between Zentrix and Quorvane, how much notice ends it?")
    timings = response.timings_ms
    assert {"query", "filters", "bm25", "focus", "fuse", "reorder", "boost", "verbatim", "fetch"} <= set(
        timings
    )
    assert timings["total"] == pytest.approx(sum(v for k, v in timings.items() if k != "total"), abs=0.02)
    assert response.stages_used[:3] == ["bm25", "dense", "focus"] and "boost" in response.stages_used


def test_flat_setting_names(tmp_path: Path) -> None:
    cfg = SearchConfig.of(
        boost=False, boost_weight=2.0, rerank=True, rerank_top=7, lists=("bm25",), topic=1.5
    )
    assert not cfg.boost.on and cfg.boost.weight == 2.0 and cfg.rerank.on and cfg.rerank.top == 7
    assert cfg.fusion.lists == ("bm25",) and cfg.topic.weight == 1.5
    assert SearchConfig.of(dense_recall=False).recall.dense_recall is False
    with pytest.raises(ValueError, match="unknown search setting"):
        SearchConfig.of(boots=True)
