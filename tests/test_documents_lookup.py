"""Document lookup over a real case: resolution with suggestions, details, sorted listings."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.errors import CaseTrackError, DocumentNotFoundError, list_documents_fix
from casetrack.store.case_store import CaseStore
from casetrack.store.documents import document_details, list_documents, resolve_document
from tests.conftest import DATA, MODELS, require

RECAP = DATA / "legal_docs_us_courts/recap_documents"
PDF3 = RECAP / "ca6_1-3.pdf"  # 3 pages
PDF2 = RECAP / "ca2_1-1.pdf"  # 2 pages


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CaseTrack, Path]]:
    root = tmp_path_factory.mktemp("docs")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case("Docs")
    texts = {
        "Motion to Dismiss.txt": "The defendant moves to dismiss the complaint.",
        "motion_exhibits.md": "# Exhibits\n\nExhibit A is the lease.",
        "Zeta memo.txt": "A memo about the zeta issue.",
    }
    # One file per ingest, in this order: ingest dates follow it.
    for name, text in texts.items():
        (root / name).write_text(text, encoding="utf-8")
        assert app.ingest("Docs", [root / name])[0].status == "ingested"
    for pdf in (require(PDF2), require(PDF3)):
        assert app.ingest("Docs", [pdf])[0].status == "ingested"
    yield app, root
    app.close()


@pytest.fixture
def store(built: tuple[CaseTrack, Path]) -> Iterator[CaseStore]:
    store = built[0].open_case("Docs")
    yield store
    store.close()


def test_resolution_order(store: CaseStore) -> None:
    memo = next(e for e in store.documents() if e.name == "Zeta memo.txt")
    assert resolve_document(store, memo.doc_id) == memo
    assert resolve_document(store, "Zeta memo.txt") == memo
    assert resolve_document(store, "  zeta MEMO.TXT ") == memo
    assert resolve_document(store, "zeta").name == "Zeta memo.txt"  # unique prefix
    assert resolve_document(store, "exhibits").name == "motion_exhibits.md"  # unique substring
    assert resolve_document(store, "ca6").name == PDF3.name


def test_ambiguous_and_unknown_names(store: CaseStore) -> None:
    with pytest.raises(DocumentNotFoundError, match="matches 2 documents") as err:
        resolve_document(store, "motion")
    assert "'Motion to Dismiss.txt'" in err.value.message and "'motion_exhibits.md'" in err.value.message
    # The next step in each surface's words: a CLI command, an MCP tool call.
    assert err.value.fix == list_documents_fix(store.record.name)
    assert err.value.hint == f'List documents: casetrack case info "{store.record.name}"'
    assert err.value.tool_hint == f'List documents: list_documents(case_name="{store.record.name}")'
    with pytest.raises(DocumentNotFoundError, match="Did you mean 'Motion to Dismiss.txt'") as err:
        resolve_document(store, "Moton to Dismis.txt")
    assert err.value.fix == list_documents_fix(store.record.name)
    with pytest.raises(DocumentNotFoundError) as err:
        resolve_document(store, "qqqqqqqqqqqqqqqqqqqq")
    assert "Did you mean" not in err.value.message and "case 'Docs'" in err.value.message
    with pytest.raises(DocumentNotFoundError):
        resolve_document(store, "   ")


def test_details_of_a_text_document(store: CaseStore, built: tuple[CaseTrack, Path]) -> None:
    _, root = built
    source = root / "Motion to Dismiss.txt"
    details = document_details(store, resolve_document(store, "Motion to Dismiss.txt"))
    assert set(details) == {
        "document_id",
        "name",
        "file_type",
        "pages",
        "chunks",
        "needs_ocr_pages",
        "source_path",
        "sha256",
        "ingested_at",
        "size_bytes",
        "extraction_method",
        "extraction_methods",
        "source_exists",
        "generation",
        "warnings",
        "ocr_pages",
        "page_ocr_confidence",
        "low_confidence_pages",
        "bates",
        "doc_type",
        "doc_date",
        "process_numbers",
        "tribunals",
        "tags",
        "parties",
        "languages",
        "fields",
        "authorities",
        "attachments",
        "attachment_of",
        "id",
        "status",
        "near_duplicate_of",
        "near_duplicates",
        "process_checks",
        "thread",
    }
    assert details["id"] == details["document_id"] and details["status"] == "ingested"
    assert details["name"] == "Motion to Dismiss.txt" and details["file_type"] == "text"
    assert details["doc_type"] == "motion"  # read at ingest (casetrack/legal/doctype.py)
    assert details["pages"] == 0 and details["chunks"] == 1 and details["needs_ocr_pages"] == []
    assert details["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    assert details["source_path"] == str(source.resolve()) and details["source_exists"] is True
    assert details["size_bytes"] == source.stat().st_size
    assert details["extraction_method"] == "native" and details["extraction_methods"] == {"native": 1}
    assert details["generation"] == 1 and details["warnings"] == []
    assert (details["ocr_pages"], details["page_ocr_confidence"], details["bates"]) == ([], {}, [])
    ingested = details["ingested_at"]
    assert ingested is not None and datetime.fromisoformat(ingested).tzinfo is not None


def test_details_agree_with_case_summary(store: CaseStore, built: tuple[CaseTrack, Path]) -> None:
    app, _ = built
    summary = {d["document_id"]: d for d in app.case_summary("Docs")["documents"]}
    for entry in store.documents():
        details = document_details(store, entry)
        fields = dict(details)  # read by the summary's keys
        assert {k: fields[k] for k in summary[entry.doc_id]} == summary[entry.doc_id]
        assert sum(details["extraction_methods"].values()) == details["chunks"]
    pdf = document_details(store, resolve_document(store, PDF3.name))
    assert pdf["file_type"] == "pdf" and pdf["pages"] == 3


def test_sort_orders(store: CaseStore) -> None:
    def names(sort_by: str) -> list[str]:
        return [d["name"] for d in list_documents(store, sort_by)]  # type: ignore[arg-type]

    assert names("name") == [
        PDF2.name,
        PDF3.name,
        "Motion to Dismiss.txt",
        "motion_exhibits.md",
        "Zeta memo.txt",
    ]
    assert names("date") == [
        PDF3.name,
        PDF2.name,
        "Zeta memo.txt",
        "motion_exhibits.md",
        "Motion to Dismiss.txt",
    ]
    assert names("pages")[:2] == [PDF3.name, PDF2.name]
    assert names("pages")[2:] == [
        "Motion to Dismiss.txt",
        "motion_exhibits.md",
        "Zeta memo.txt",
    ]  # 0 pages: by name
    assert names("type") == [
        "motion_exhibits.md",
        PDF2.name,
        PDF3.name,
        "Motion to Dismiss.txt",
        "Zeta memo.txt",
    ]
    listed = list_documents(store, "name")[0]
    assert set(listed) == {
        "document_id",
        "name",
        "file_type",
        "pages",
        "chunks",
        "needs_ocr_pages",
        "source_path",
        "sha256",
        "ingested_at",
        "size_bytes",
        "ocr_pages",
        "doc_type",
        "doc_date",
        "process_numbers",
        "tribunals",
        "tags",
        "attachments",
        "attachment_of",
        "id",
        "status",
        "near_duplicate_of",
        "near_duplicates",
    }
    with pytest.raises(CaseTrackError, match="Cannot sort documents by 'size'"):
        list_documents(store, "size")  # type: ignore[arg-type]


def test_an_empty_case(built: tuple[CaseTrack, Path]) -> None:
    app, _ = built
    app.create_case("Empty")
    store = app.open_case("Empty")
    try:
        assert list_documents(store, "date") == []
        with pytest.raises(DocumentNotFoundError, match="No document named 'x' in case 'Empty'"):
            resolve_document(store, "x")
    finally:
        store.close()
