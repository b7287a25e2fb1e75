"""get_chunk over a real case: text, citation, provenance, neighbours at the edges, visibility."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.errors import CaseTrackError
from casetrack.store.case_store import CaseStore
from casetrack.store.chunk_view import CHUNK_HINT, get_chunk
from casetrack.store.journal import DocState
from tests.conftest import MODELS

SUPPLY = "\n\n".join(
    f"Clause {i}. The supplier shall deliver batch {i} of the goods within {i + 10} days of the order."
    for i in range(1, 120)
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CaseTrack, Path]]:
    root = tmp_path_factory.mktemp("chunks")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case("Supply")
    (root / "supply.md").write_text(SUPPLY, encoding="utf-8")
    (root / "note.txt").write_text("A single short note about the delivery.", encoding="utf-8")
    results = app.ingest("Supply", [root / "supply.md", root / "note.txt"])
    assert [r.status for r in results] == ["ingested", "ingested"]
    assert results[0].chunks >= 5
    yield app, root
    app.close()


@pytest.fixture
def store(built: tuple[CaseTrack, Path]) -> Iterator[CaseStore]:
    store = built[0].open_case("Supply")
    yield store
    store.close()


def chunk_ids(store: CaseStore, name: str) -> list[str]:
    entry = next(e for e in store.documents() if e.name == name)
    return [
        str(c) for c in store.lance.document_chunks(entry.doc_id, entry.gen).column("chunk_id").to_pylist()
    ]


def test_middle_chunk_with_neighbours_both_sides(store: CaseStore) -> None:
    ids = chunk_ids(store, "supply.md")
    view = get_chunk(store, ids[2], neighbours=2)
    assert set(view) == {
        "chunk_id",
        "document",
        "document_id",
        "seq",
        "document_chunks",
        "text",
        "citation",
        "citation_short",
        "source",
        "before",
        "after",
    }
    assert view["chunk_id"] == ids[2] and view["seq"] == 2 and view["document"] == "supply.md"
    assert view["document_chunks"] == len(ids)
    assert [n["chunk_id"] for n in view["before"]] == ids[0:2]
    assert [n["chunk_id"] for n in view["after"]] == ids[3:5]
    src = view["source"]
    assert view["citation"] == (
        f"supply.md, paras. {src['paragraph_start']}-{src['paragraph_end']}, ll. {src['line_start']}-{src['line_end']}"
    )
    assert src["document_id"] == view["document_id"] and src["extraction_method"] == "native"
    assert view["text"] in SUPPLY and view["text"].startswith("Clause ")
    # Neighbours are the text that comes right before and after, each with its own citation.
    before, after = view["before"][-1], view["after"][0]
    assert SUPPLY.index(before["text"]) < SUPPLY.index(view["text"]) < SUPPLY.index(after["text"])
    assert before["citation"].startswith("supply.md, paras. ") and before["citation"] != view["citation"]
    assert set(before) == {"chunk_id", "text", "citation"}


def test_neighbours_stop_at_the_document_edges(store: CaseStore) -> None:
    ids = chunk_ids(store, "supply.md")
    first = get_chunk(store, ids[0], neighbours=3)
    assert first["before"] == [] and [n["chunk_id"] for n in first["after"]] == ids[1:4]
    last = get_chunk(store, ids[-1])
    assert last["after"] == [] and [n["chunk_id"] for n in last["before"]] == [ids[-2]]
    alone = get_chunk(store, chunk_ids(store, "note.txt")[0], neighbours=2)
    assert alone["before"] == alone["after"] == [] and alone["document_chunks"] == 1
    assert alone["citation"] == "note.txt, para. 1, l. 1"
    none = get_chunk(store, ids[1], neighbours=0)
    assert none["before"] == none["after"] == []


def test_unknown_and_malformed_ids(store: CaseStore) -> None:
    for bad in ("0123456789abcdef-1-00000", "nonsense", "x' OR '1'='1", ""):
        with pytest.raises(CaseTrackError) as err:
            get_chunk(store, bad)
        assert err.value.hint == CHUNK_HINT
    with pytest.raises(CaseTrackError, match="neighbours"):
        get_chunk(store, chunk_ids(store, "note.txt")[0], neighbours=-1)


def test_uncommitted_document_is_invisible(built: tuple[CaseTrack, Path]) -> None:
    app, _ = built
    store = app.open_case("Supply")
    try:
        entry = next(e for e in store.documents() if e.name == "note.txt")
        [chunk_id] = chunk_ids(store, "note.txt")
        store.journal.set_state(entry.doc_id, DocState.PENDING)
        with pytest.raises(CaseTrackError, match="No chunk"):
            get_chunk(store, chunk_id)
    finally:
        store.journal.set_state(entry.doc_id, DocState.COMMITTED)
        store.close()


def test_old_generation_ids_are_gone_after_reingest(built: tuple[CaseTrack, Path]) -> None:
    app, root = built
    app.create_case("Versions")
    path = root / "versions.txt"
    path.write_text("First version of the memo.", encoding="utf-8")
    assert app.ingest("Versions", [path])[0].status == "ingested"
    store = app.open_case("Versions")
    try:
        [old] = chunk_ids(store, "versions.txt")
    finally:
        store.close()
    path.write_text("Second version of the memo, rewritten.", encoding="utf-8")
    assert app.ingest("Versions", [path])[0].status == "replaced"
    store = app.open_case("Versions")
    try:
        [new] = chunk_ids(store, "versions.txt")
        assert new != old and new.endswith("-2-00000")
        assert get_chunk(store, new)["text"] == "Second version of the memo, rewritten."
        with pytest.raises(CaseTrackError, match="No chunk"):
            get_chunk(store, old)
    finally:
        store.close()


def test_an_empty_case_has_no_chunks(built: tuple[CaseTrack, Path]) -> None:
    app, _ = built
    app.create_case("Empty")
    store = app.open_case("Empty")
    try:
        with pytest.raises(CaseTrackError, match="No chunk 'abc-1-00000' in case 'Empty'"):
            get_chunk(store, "abc-1-00000")
    finally:
        store.close()
