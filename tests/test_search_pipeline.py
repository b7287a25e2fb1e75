"""Hybrid search over a real case: committed-only visibility, filters, snippets, paging."""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.errors import CaseTrackError, DocumentNotFoundError
from casetrack.search.pincite.span import pin_span
from casetrack.search.query.roles import term_roles
from casetrack.store.bm25 import build_analyzer
from tests.conftest import MODELS

LEASE = (
    "The tenant shall pay rent monthly.\n\nEither party may terminate this lease with sixty days written notice. "
    "Notice must be delivered by certified mail.\n\nThe landlord keeps the security deposit for repairs."
)
POLICY = "Employees accrue vacation days each month.\n\nUnused vacation expires at year end."


@pytest.fixture
def app(tmp_path: Path) -> CaseTrack:
    app = CaseTrack(resolve_settings(tmp_path / "home", MODELS, environ={}))
    app.create_case("Lease")
    (tmp_path / "lease.txt").write_text(LEASE)
    (tmp_path / "policy.txt").write_text(POLICY)
    results = app.ingest("Lease", [tmp_path / "lease.txt", tmp_path / "policy.txt"])
    assert all(r.status == "ingested" for r in results)
    return app


def test_semantic_and_keyword_hits_with_snippets(app: CaseTrack) -> None:
    response = app.search("Lease", "how can the agreement be cancelled", top_k=2)
    # The question asks for the termination clause by its purpose: the clause's usual words join it
    # as keywords (query/clauses.py), so the echo step keeps the question's own words first.
    assert response.stages_used == ["bm25", "dense", "dense_windows", "sparse", "e7", "rrf", "boost", "echo"]
    assert response.hits[0].provenance.document == "lease.txt"
    assert "terminate" in response.hits[0].snippet
    assert set(response.timings_ms) >= {"bm25", "embed_query", "dense", "fuse", "fetch", "total"}


def test_document_filter_offset_and_errors(app: CaseTrack) -> None:
    only = app.search("Lease", "days", documents=["policy.txt"])
    assert {h.provenance.document for h in only.hits} == {"policy.txt"}
    first = app.search("Lease", "days", top_k=1)
    second = app.search("Lease", "days", top_k=1, offset=1)
    assert first.hits[0].chunk_id != second.hits[0].chunk_id
    with pytest.raises(DocumentNotFoundError, match="Did you mean 'policy.txt'"):
        app.search("Lease", "days", documents=["polcy.txt"])
    with pytest.raises(CaseTrackError):
        app.search("Lease", "   ")


def test_a_document_being_written_is_invisible(app: CaseTrack) -> None:
    store = app.open_case("Lease")
    try:
        entry = next(e for e in store.documents() if e.name == "lease.txt")
        store.journal.set_state(entry.doc_id, store.journal.get(entry.doc_id).state.PENDING)  # type: ignore[union-attr]
        store.lock.acquire()  # a live writer holds the lock, so readers do not recover
        response = app.search("Lease", "terminate lease notice")
        assert all(h.provenance.document != "lease.txt" for h in response.hits)
    finally:
        store.close()


def test_the_pin_picks_the_matching_sentence() -> None:
    text = (
        "Rent is due monthly. " * 30
        + "Either party may terminate on sixty days notice. "
        + "Deposit terms. " * 30
    )
    analyzer = build_analyzer("en")
    start, end = pin_span(text, term_roles("terminate notice", analyzer), analyzer)
    assert "Either party may terminate on sixty days notice." in text[start:end] and end - start <= 90


def test_every_stage_runs_and_names_itself(app: CaseTrack) -> None:
    from casetrack.search.ranking.config import SearchConfig

    full = SearchConfig.of(lists=("bm25", "dense", "sparse", "e7"), boost=False, rerank=True)
    response = app.search("Lease", "how can the agreement be cancelled", top_k=2, config=full)
    assert response.stages_used == ["bm25", "dense", "dense_windows", "sparse", "e7", "rrf", "echo", "rerank"]
    assert response.hits[0].provenance.document == "lease.txt"
    assert {"sparse", "e7", "rerank", "fetch_candidates"} <= set(response.timings_ms)


def test_ablation_configs(app: CaseTrack) -> None:
    from casetrack.search.ranking.config import SearchConfig

    dense_only = app.search(
        "Lease", "ending the agreement early", config=SearchConfig.of(lists=("dense",), boost=False)
    )
    assert dense_only.stages_used == ["dense", "dense_windows"] and dense_only.hits
    chunk_only = SearchConfig.of(lists=("dense",), boost=False, dense_windows=False)
    assert app.search("Lease", "ending the agreement early", config=chunk_only).stages_used == ["dense"]
    bm25_only = app.search("Lease", "vacation", config=SearchConfig.of(lists=("bm25",), boost=False))
    assert bm25_only.stages_used == ["bm25"]
    assert [h.provenance.document for h in bm25_only.hits] == ["policy.txt"]
    # BM25 recall only: dense re-ranks BM25's candidates but adds none.
    recall = SearchConfig.of(lists=("bm25", "dense"), dense_recall=False, boost=False)
    ranked = app.search("Lease", "vacation", config=recall)
    assert ranked.stages_used == ["bm25", "dense", "dense_windows", "rrf"]
    assert [h.provenance.document for h in ranked.hits] == ["policy.txt"]
    with pytest.raises(ValueError):
        SearchConfig.of(lists=("bm25", "colbert"))


def test_filters_context_and_per_document_view(app: CaseTrack, tmp_path: Path) -> None:
    from casetrack.search.filters import SearchFilters

    long_doc = "\n\n".join(
        f"Clause {i}. The supplier shall deliver batch {i} of the goods within {i + 10} days of the order."
        for i in range(1, 120)
    )
    (tmp_path / "supply.md").write_text(long_doc)
    assert app.ingest("Lease", [tmp_path / "supply.md"])[0].status == "ingested"

    only_text = app.search("Lease", "deliver goods", filters=SearchFilters(file_types=("rtf",)))
    assert not only_text.hits and only_text.warnings
    future = app.search("Lease", "vacation", filters=SearchFilters(ingested_after=4102444800.0))
    assert not future.hits

    with_context = app.search("Lease", "batch 60 of the goods", top_k=1, context_chars=80)
    top = with_context.hits[0]
    assert top.provenance.document == "supply.md"
    assert top.context_before and top.context_after
    assert len(top.context_before) <= 80 and len(top.context_after) <= 80

    docs = app.search("Lease", "deliver the goods within days", top_k=3, per_document=True)
    assert docs.documents[0].document == "supply.md" and docs.documents[0].matching_chunks >= 2
    assert len({d.document_id for d in docs.documents}) == len(docs.documents)


def test_boost_lifts_the_chunk_with_the_exact_cnj_number(app: CaseTrack, tmp_path: Path) -> None:
    from casetrack.search.ranking.config import SearchConfig

    body = "O autor requer a condenação do réu ao pagamento de indenização por danos morais."
    (tmp_path / "processo_a.txt").write_text(f"Processo nº 0001234-56.2020.8.26.0100. {body}")
    (tmp_path / "processo_b.txt").write_text(f"Processo nº 0009876-54.2019.8.26.0100. {body}")
    assert [
        r.status for r in app.ingest("Lease", [tmp_path / "processo_a.txt", tmp_path / "processo_b.txt"])
    ] == [
        "ingested",
        "ingested",
    ]
    query = "indenização por danos morais no processo 0009876-54.2019.8.26.0100"
    plain = app.search("Lease", query, top_k=2, config=SearchConfig.of(lists=("dense",), boost=False))
    boosted = app.search("Lease", query, top_k=2, config=SearchConfig.of(lists=("dense",), boost=True))
    assert "boost" in boosted.stages_used and "boost" not in plain.stages_used
    assert boosted.hits[0].provenance.document == "processo_b.txt"
    # Same text otherwise: dense alone separates them by ~1/61 - 1/62; the exact CNJ match adds ~1/61.
    assert boosted.hits[0].score - boosted.hits[1].score > 0.5 / 61
    assert abs(plain.hits[0].score - plain.hits[1].score) < 0.5 / 61


def test_a_repeated_query_reuses_its_vectors_unless_told_not_to(app: CaseTrack) -> None:
    from casetrack.search.ranking.config import SearchConfig

    first = app.search("Lease", "who keeps the deposit", top_k=2)
    cached = [k for k in app.search_runtime.cached_queries() if k[2] == "who keeps the deposit"]
    assert {k[0] for k in cached} == {"dense", "sparse", "e7"}
    page2 = app.search("Lease", "who keeps the deposit", top_k=1, offset=1)
    assert [h.chunk_id for h in page2.hits] == [h.chunk_id for h in first.hits][1:2]
    app.search("Lease", "who pays the rent", config=SearchConfig.of(cache_queries=False))
    assert not [k for k in app.search_runtime.cached_queries() if k[2] == "who pays the rent"]


def test_a_portuguese_case_leaves_out_the_english_only_e7(tmp_path: Path) -> None:
    from casetrack.search.ranking.config import SearchConfig

    app = CaseTrack(resolve_settings(tmp_path / "home", MODELS, environ={}))
    app.create_case("Processo", language="pt")
    (tmp_path / "contrato.txt").write_text(
        "O locatário pagará o aluguel mensalmente.\n\nQualquer parte pode rescindir o contrato com aviso "
        "prévio de sessenta dias. A multa rescisória é de três aluguéis."
    )
    app.ingest("Processo", [tmp_path / "contrato.txt"])
    response = app.search("Processo", "como rescindir o contrato?")
    assert "e7" not in response.stages_used and {"bm25", "dense", "sparse"} <= set(response.stages_used)
    assert SearchConfig().lists_for("pt-BR") == ("bm25", "dense", "sparse")
    assert SearchConfig().lists_for("en") == ("bm25", "dense", "sparse", "e7")
    every = app.search("Processo", "como rescindir o contrato?", config=SearchConfig.of(skip_lists={}))
    assert "e7" in every.stages_used


def test_a_question_that_names_its_document_is_focused_and_pinned(app: CaseTrack, tmp_path: Path) -> None:
    cover = (
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made between Zentrix Corporation and Quorvane Limited. "
        "Zentrix Corporation and Quorvane Limited agree as follows."
    )
    clauses = "\n\n".join(
        f"Clause {i}. The Supplier shall pack order lot {i} on pallets and label each carton with its batch code."
        for i in range(1, 60)
    )
    answer = (
        "Clause 60. Either party may terminate this Agreement upon ninety days written notice to the other."
    )
    (tmp_path / "supply.md").write_text(f"{cover}\n\n{clauses}\n\n{answer}")
    assert app.ingest("Lease", [tmp_path / "supply.md"])[0].status == "ingested"
    question = "In the agreement between Zentrix and Quorvane, how much notice ends it?"
    response = app.search("Lease", question, top_k=3)
    assert "focus" in response.stages_used  # the names point at supply.md
    answer_hit = next(h for h in response.hits[:2] if "ninety days" in h.snippet)
    # The result cites the answer's own line, not the first line of its chunk.
    assert answer_hit.provenance.line_start == answer_hit.provenance.line_end
    assert (
        answer_hit.chunk_provenance or answer_hit.provenance
    ).line_start < answer_hit.provenance.line_start


def test_a_pasted_passage_comes_first_and_nonsense_is_no_good_match(app: CaseTrack) -> None:
    pasted = (
        "Either party may termin-\nate this lease with sixty days written  notice. Notice must be delivered"
    )
    response = app.search("Lease", pasted, top_k=2)
    assert "verbatim" in response.stages_used and response.hits[0].match == "exact"
    assert response.hits[0].provenance.document == "lease.txt" and "sixty days" in response.hits[0].snippet
    assert not response.no_good_match
    assert app.search("Lease", "recipe for chocolate cake with strawberries").no_good_match


def test_a_query_that_sets_a_scene_also_ranks_by_its_question_alone(app: CaseTrack) -> None:
    from casetrack.search.ranking.config import SearchConfig

    scene = "Consider the lease between the tenant and the landlord; how can the agreement be cancelled?"
    response = app.search("Lease", scene, top_k=2)
    assert "question" in response.stages_used and response.hits[0].provenance.document == "lease.txt"
    assert "terminate" in response.hits[0].snippet
    assert (
        "question" not in app.search("Lease", scene, config=SearchConfig.of(question_weight=0.0)).stages_used
    )
    assert "question" not in app.search("Lease", "how can the agreement be cancelled?").stages_used
