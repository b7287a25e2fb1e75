"""Hybrid search over a real case: committed-only visibility, filters, snippets, paging."""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.errors import CaseTrackError, DocumentNotFoundError
from casetrack.search.snippet import best_snippet
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
    response = app.search("Lease", "how can the contract be ended", top_k=2)
    assert response.stages_used == ["bm25", "dense", "rrf"]
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


def test_snippet_picks_the_matching_sentence() -> None:
    text = "Rent is due monthly. " * 30 + "Either party may terminate on sixty days notice. " + "Deposit terms. " * 30
    snippet = best_snippet(text, "terminate notice", build_analyzer("en"), max_chars=120)
    assert "terminate" in snippet and len(snippet) <= 130 and snippet.startswith("… ")
