"""The two-store commit protocol and its recovery, state by state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from casetrack.store.case_store import CaseStore, chunk_id_for
from casetrack.store.journal import DocState
from casetrack.store.lance_tables import chunk_schema
from casetrack.store.registry import CaseRegistry

DIM = 8


def rows(texts: list[str], seed: int = 0) -> pa.Table:
    rng = np.random.default_rng(seed)
    n = len(texts)
    data: dict[str, Any] = {
        "chunk_id": [""] * n,
        "doc_id": [""] * n,
        "gen": [0] * n,
        "seq": list(range(n)),
        "text": texts,
        "page": [1] * n,
        "page_index": [0] * n,
        "paragraph_start": [1] * n,
        "paragraph_end": [1] * n,
        "line_start": [1] * n,
        "line_end": [2] * n,
        "char_start": [0] * n,
        "char_end": [10] * n,
        "token_count": [5] * n,
        "extraction_method": ["native"] * n,
        "ocr_confidence": [None] * n,
        "line_numbers": [None] * n,
        "line_confidences": [None] * n,
        "bates": [None] * n,
        "section": [None] * n,
        "line_pages": [None] * n,
        "transcript": [None] * n,
    }
    schema = chunk_schema(DIM)
    arrays = [pa.array(data[f.name], f.type) for f in schema if f.name != "vector"]
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1)), DIM))
    return pa.Table.from_arrays(arrays, schema=schema)


def doc_row(name: str, n: int) -> dict[str, Any]:
    return {
        "name": name,
        "source_path": f"/x/{name}",
        "sha256": name,
        "file_type": "text",
        "size_bytes": 1,
        "page_count": 1,
        "chunk_count": n,
        "needs_ocr_pages": [],
        "ingested_at": 0.0,
        "embed_model": "m",
        "warnings": [],
    }


@pytest.fixture
def store(tmp_path: Path) -> CaseStore:
    reg = CaseRegistry(tmp_path / "r.sqlite", tmp_path / "cases")
    rec = reg.create("Test case")
    s = CaseStore(rec, reg.case_dir(rec.id))
    s.lock.acquire()
    return s


def test_commit_makes_document_visible_in_both_stores(store: CaseStore) -> None:
    gen = store.commit_document(
        "d1", "a.txt", "/x/a.txt", "sha-a", rows(["alpha one", "beta two"]), doc_row("a.txt", 2)
    )
    assert store.visible() == {"d1": gen}
    assert store.lance.count_chunks("d1", gen) == 2
    assert [h.chunk_id for h in store.bm25.search("beta", 5)] == [chunk_id_for("d1", gen, 1)]


def test_document_metadata_is_read_back_whole_and_parsed_on_use(store: CaseStore) -> None:
    """Listing a case's documents (every search does) leaves each entry's metadata as stored
    text until something reads it; what it reads is what was committed."""
    meta = {**doc_row("a.txt", 2), "legal": {"cites": {"art. 5": [[1, 2]] * 50}}}
    store.commit_document("d1", "a.txt", "/x/a.txt", "sha-a", rows(["alpha one", "beta two"]), meta)
    (entry,) = store.documents()
    assert isinstance(entry.stored_meta, str) and "meta" not in vars(entry)
    assert entry.meta["legal"] == meta["legal"] and entry.meta["name"] == "a.txt"
    assert entry.meta is entry.meta  # parsed once


def test_reingest_replaces_chunks_and_bumps_generation(store: CaseStore) -> None:
    store.commit_document(
        "d1", "a.txt", "/x/a.txt", "v1", rows(["old text", "old two", "old three"]), doc_row("a.txt", 3)
    )
    gen = store.commit_document("d1", "a.txt", "/x/a.txt", "v2", rows(["new text"]), doc_row("a.txt", 1))
    assert gen == 2
    assert store.lance.count_chunks("d1") == 1
    assert store.bm25.search("old", 5) == []
    assert store.journal.get("d1").sha256 == "v2"  # type: ignore[union-attr]


def test_crash_before_lance_commit_rolls_back_new_document(store: CaseStore) -> None:
    store.journal.begin("d9", "b.txt", "/x/b.txt", "sha-b", 2, doc_row("b.txt", 2))
    assert store.visible() == {}
    actions = store.recover()
    assert store.journal.get("d9") is None and actions


def test_crash_before_lance_commit_keeps_previous_version(store: CaseStore) -> None:
    store.commit_document("d1", "a.txt", "/x/a.txt", "v1", rows(["kept text"]), doc_row("a.txt", 1))
    store.journal.begin("d1", "a.txt", "/x/a.txt", "v2", 4, doc_row("a.txt", 4))
    store.recover()
    entry = store.journal.get("d1")
    assert entry is not None and entry.state == DocState.COMMITTED and entry.gen == 1 and entry.sha256 == "v1"
    assert len(store.bm25.search("kept", 5)) == 1


def test_crash_after_lance_commit_rolls_forward(store: CaseStore) -> None:
    table = rows(["forward text", "second"])
    gen = store.journal.begin("d2", "c.txt", "/x/c.txt", "sha-c", 2, doc_row("c.txt", 2))
    ids = [chunk_id_for("d2", gen, i) for i in range(2)]
    table = table.set_column(0, "chunk_id", pa.array(ids)).set_column(1, "doc_id", pa.array(["d2", "d2"]))
    table = table.set_column(2, "gen", pa.array([gen, gen], pa.int32()))
    store.lance.replace_document_chunks("d2", table)  # the kill happens right after this commit
    assert store.visible() == {}
    store.recover()
    assert store.visible() == {"d2": gen}
    assert [h.chunk_id for h in store.bm25.search("forward", 5)] == [ids[0]]


def test_lance_committed_state_is_finished_and_drift_repaired(store: CaseStore) -> None:
    gen = store.commit_document(
        "d1", "a.txt", "/x/a.txt", "v1", rows(["drift text", "more"]), doc_row("a.txt", 2)
    )
    store.bm25.delete_document("d1")  # tantivy lost its entries
    store.bm25.replace_document("ghost", [("ghost-1-00000", "ghost text")])
    store.journal.set_state("d1", DocState.LANCE_COMMITTED)
    store.recover()
    assert store.bm25.count_for(["d1"]) == {"d1": 2}
    assert store.bm25.search("ghost", 5) == []
    assert store.visible() == {"d1": gen}


def test_delete_and_interrupted_delete(store: CaseStore) -> None:
    store.commit_document("d1", "a.txt", "/x/a.txt", "v1", rows(["to delete"]), doc_row("a.txt", 1))
    store.commit_document("d2", "b.txt", "/x/b.txt", "v2", rows(["half deleted"]), doc_row("b.txt", 1))
    store.delete_document("d1")
    store.journal.set_state("d2", DocState.DELETING)
    store.recover()
    assert store.visible() == {}
    assert store.lance.count_chunks("d1") == 0 and store.lance.count_chunks("d2") == 0
    assert store.bm25.total() == 0


def test_indexes_appear_above_the_threshold_and_refresh(
    store: CaseStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from casetrack.store import lance_tables

    monkeypatch.setattr(lance_tables, "VECTOR_INDEX_MIN_ROWS", 300)
    store.commit_document(
        "small", "small.txt", None, "s", rows([f"t {i}" for i in range(50)]), doc_row("small.txt", 50)
    )
    assert store.lance.maintain() == []  # below the threshold: flat scan
    texts = [f"clause {i} of the agreement" for i in range(400)]
    store.commit_document("big", "big.txt", None, "b", rows(texts, seed=1), doc_row("big.txt", 400))
    done = store.lance.maintain()
    assert done[0] == "chunk_id index" and done[1].startswith("vector index")
    assert store.lance.maintain() == []  # nothing new
    more = [f"schedule {i}" for i in range(100)]
    store.commit_document("more", "more.txt", None, "m", rows(more, seed=2), doc_row("more.txt", 100))
    assert store.lance.maintain()[0].startswith("indexes refreshed")
    # Searches through the index still see every committed chunk by id.
    ids = [chunk_id_for("more", 1, 0), chunk_id_for("big", 1, 399)]
    assert set(store.lance.fetch_chunks(ids)) == set(ids)
    query = np.ones(DIM, dtype=np.float32)
    assert store.lance.dense_search(query, 10, None).num_rows == 10


def test_small_fragments_are_compacted(store: CaseStore) -> None:
    from casetrack.store import lance_tables

    for i in range(lance_tables.MAX_SMALL_FRAGMENTS + 2):
        store.commit_document(
            f"d{i}", f"d{i}.txt", None, f"s{i}", rows([f"text {i}"], seed=i), doc_row(f"d{i}.txt", 1)
        )
    done = store.lance.maintain()
    assert any(step.startswith("chunks:") for step in done) and any(
        step.startswith("documents:") for step in done
    )
    table = store.lance.table(lance_tables.CHUNKS)
    assert table is not None and table.stats()["fragment_stats"]["num_fragments"] == 1
    assert store.lance.count_chunks("d3") == 1 and store.lance.maintain() == []


def test_fetch_by_row_id_follows_writes_deletes_and_compaction(store: CaseStore) -> None:
    """fetch_table takes rows by row id from a map of the table's version; every write (a new
    document, a re-ingest, a delete, a compaction that moves rows) must give the same rows the
    `IN (...)` filter gives."""
    from casetrack.store import lance_tables

    def check() -> None:
        table = store.lance.table(lance_tables.CHUNKS)
        assert table is not None
        every = table.search().select(["chunk_id", "text"]).limit(1000).to_arrow().to_pylist()
        ids = sorted(r["chunk_id"] for r in every)
        want = {r["chunk_id"]: r["text"] for r in every}
        got = store.lance.fetch_table(ids[::-1], ["text"]).to_pylist()
        assert {r["chunk_id"]: r["text"] for r in got} == want
        assert store.lance._take(table, ids, ["chunk_id", "text"]) is not None  # the fast path served it
        assert store.lance.fetch_table(ids + ["nope-1-00000"], ["text"]).num_rows == len(
            ids
        )  # filter fallback

    for i in range(lance_tables.MAX_SMALL_FRAGMENTS + 2):
        store.commit_document(
            f"d{i}",
            f"d{i}.txt",
            None,
            f"s{i}",
            rows([f"text {i}", f"more {i}"], seed=i),
            doc_row(f"d{i}.txt", 2),
        )
    check()
    store.commit_document("d3", "d3.txt", None, "s3b", rows(["replaced"]), doc_row("d3.txt", 1))
    store.delete_document("d5")  # a delete also compacts and drops old versions (store/purge.py)
    check()
    for i in range(lance_tables.MAX_SMALL_FRAGMENTS + 2):
        store.commit_document(
            f"e{i}", f"e{i}.txt", None, f"t{i}", rows([f"text {i}"], seed=i), doc_row(f"e{i}.txt", 1)
        )
    assert store.lance.maintain()  # compaction rewrites fragments: row ids change
    check()


N_WRITES = 300


def _writer_process(case_dir: str, registry_dir: str, prefix: str, n: int, start: Any) -> None:
    reg = CaseRegistry(Path(registry_dir) / "r.sqlite", Path(registry_dir) / "cases")
    store = CaseStore(reg.list()[0], Path(case_dir))
    start.wait()  # both write at the same time
    for i in range(n):
        store._write_case_json(**{f"{prefix}{i}": i})
    store.close()


@pytest.mark.slow
def test_two_processes_changing_case_json_at_once_lose_nothing(store: CaseStore) -> None:
    """Each write merges its key into what case.json holds; unlocked, a process that read before
    the other's replace would write the other's last key away."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    registry_dir = store.dir.parent.parent  # the fixture's tmp_path
    start = ctx.Barrier(2)
    procs = [
        ctx.Process(target=_writer_process, args=(str(store.dir), str(registry_dir), p, N_WRITES, start))
        for p in "ab"
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    info = store.case_info()
    missing = [f"{p}{i}" for p in "ab" for i in range(N_WRITES) if f"{p}{i}" not in info]
    assert not missing, missing
