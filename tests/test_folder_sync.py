"""The folder-sync planner (ingest/folder_sync.py) on a temp folder of real files, against journal
records of a case, and the store's rename (a renamed file keeps its chunks, vectors and index).
No models: fast."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from casetrack.ingest.files import sha256_file
from casetrack.ingest.folder_sync import FolderRecord, plan_sync
from casetrack.store.case_store import CaseStore
from casetrack.store.journal import DocState, JournalEntry
from casetrack.store.lance_tables import CHUNKS, DOCUMENTS, chunk_schema
from casetrack.store.registry import CaseRegistry
from tests.conftest import DATA, require

RAW = DATA / "lener_br/raw_text"
SMALL = ["Port77DF.txt", "RR474820145230056.txt", "INSTRUCAOON06043378120186000000.txt"]
HOUR_AGO = time.time() - 3600


def chunk_rows(texts: list[str], dim: int = 8) -> pa.Table:
    """Chunk rows as ingest writes them (every column of the schema; vectors random)."""
    n = len(texts)
    given: dict[str, list[Any]] = {
        "chunk_id": [""] * n,
        "doc_id": [""] * n,
        "gen": [0] * n,
        "seq": list(range(n)),
        "text": texts,
        "extraction_method": ["native"] * n,
    }
    schema = chunk_schema(dim)
    arrays = [pa.array(given.get(f.name, [None] * n), f.type) for f in schema if f.name != "vector"]
    vecs = np.random.default_rng(0).standard_normal((n, dim)).astype(np.float32)
    arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1)), dim))
    return pa.Table.from_arrays(arrays, schema=schema)


def put(
    folder: Path, name: str, source: Path | None = None, text: str | None = None, aged: bool = True
) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if source is not None:
        shutil.copyfile(require(source), path)
    else:
        path.write_text(text or "", encoding="utf-8")
    if aged:
        os.utime(path, (HOUR_AGO, HOUR_AGO))
    return path


def entry(
    path: Path, doc_id: str, sha: str | None = None, name: str | None = None, **meta: Any
) -> JournalEntry:
    return JournalEntry(
        doc_id,
        name or path.name,
        str(path.resolve()),
        sha or sha256_file(path),
        DocState.COMMITTED,
        1,
        None,
        None,
        1,
        json.dumps(meta),
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    f = tmp_path / "client"
    for name in SMALL:
        put(f, name, RAW / name)
    return f


def test_a_new_folder_is_all_additions_and_hidden_files_are_left_out(folder: Path) -> None:
    put(folder, ".~lock.Port77DF.txt#", text="lock")
    plan = plan_sync(folder, False, [])
    assert sorted(f.name for f in plan.add) == sorted(SMALL)
    assert not (plan.update or plan.rename or plan.remove or plan.unchanged or plan.in_progress)
    assert plan.to_json()["counts"]["add"] == 3
    assert all(f.sha256 == sha256_file(Path(f.path)) for f in plan.add)


def test_change_rename_delete_copy_and_partial_copy_are_told_apart(folder: Path, tmp_path: Path) -> None:
    port, rr, instr = (folder / n for n in SMALL)
    docs = [entry(port, "d-port"), entry(rr, "d-rr"), entry(instr, "d-instr")]
    port.rename(folder / "Portaria 77.txt")  # renamed: same bytes, new path
    with rr.open("a", encoding="utf-8") as f:  # changed
        f.write("\nLinha acrescentada depois.\n")
    os.utime(rr, (HOUR_AGO, HOUR_AGO))
    instr.unlink()  # gone
    put(folder, "copy of RR.txt", RAW / "20150110436469APC.txt")  # new
    put(folder, "again.txt", RAW / SMALL[1])  # the old bytes of rr: no document keeps them once rr changes
    put(folder, "incoming.txt", text=(RAW / "AC1TJMG.txt").read_text(encoding="utf-8")[:5000], aged=False)
    plan = plan_sync(folder, False, docs)
    assert [(c.document_id, c.file.name) for c in plan.rename] == [("d-port", "Portaria 77.txt")]
    assert [(c.document_id, c.file.name) for c in plan.update] == [("d-rr", SMALL[1])]
    assert [(r.document_ids, r.documents) for r in plan.remove] == [(("d-instr",), (SMALL[2],))]
    assert sorted(f.name for f in plan.add) == ["again.txt", "copy of RR.txt"]
    assert [f.name for f in plan.in_progress] == ["incoming.txt"]  # written a moment ago: still being copied
    # A copy of a document that stays is a duplicate, as ingest would say.
    put(folder, "same as port.txt", folder / "Portaria 77.txt")
    plan = plan_sync(folder, False, docs)
    assert [(c.document_id, c.file.name) for c in plan.duplicate] == [("d-port", "same as port.txt")]
    # Once it has stopped changing for the settle time it is picked up.
    assert "incoming.txt" in [f.name for f in plan_sync(folder, False, docs, settle_s=0).add]


def test_an_unsupported_file_remembered_is_listed_not_tried_again_until_it_changes(folder: Path) -> None:
    sheet = put(folder, "damages.xlsx", text="PK not really")
    st = sheet.stat()
    record = FolderRecord(
        path=str(folder.resolve()),
        recursive=False,
        unsupported={str(sheet.resolve()): [st.st_size, st.st_mtime_ns]},
        mailboxes={},
    )
    plan = plan_sync(folder, False, [], record)
    assert [f.name for f in plan.unsupported] == ["damages.xlsx"]
    assert "damages.xlsx" not in [f.name for f in plan.add]
    put(folder, "damages.xlsx", text="PK a new version of the sheet")
    assert "damages.xlsx" in [f.name for f in plan_sync(folder, False, [], record).add]


def test_attachments_follow_their_email_and_are_never_removed_on_their_own(folder: Path) -> None:
    mail = put(folder, "contract.eml", text="From: a@b.c\nSubject: x\n\nbody\n")
    email = entry(mail, "d-mail")
    link = {"document_id": "d-mail", "name": "contract.eml", "key": "hosting.pdf"}
    attached = entry(mail, "d-att", sha="f" * 64, name="contract.eml › hosting.pdf", attachment_of=link)
    inner = entry(
        mail,
        "d-inner",
        sha="e" * 64,
        name="contract.eml › fwd.eml › a.pdf",
        attachment_of={"document_id": "d-att", "name": "x", "key": "a.pdf"},
    )
    docs = [email, attached, inner]
    plan = plan_sync(folder, False, docs)
    assert not plan.remove and [f.name for f in plan.unchanged if f.name == "contract.eml"]
    mail.unlink()
    plan = plan_sync(folder, False, docs)
    assert [(r.document_ids, r.documents) for r in plan.remove] == [
        (("d-mail",), ("contract.eml › fwd.eml › a.pdf", "contract.eml › hosting.pdf", "contract.eml"))
    ]
    assert plan.to_json()["counts"]["remove_documents"] == 3


def test_a_mailbox_is_matched_by_its_remembered_hash(folder: Path) -> None:
    box = put(folder, "Inbox.mbox", text="From a@b.c Mon Jan  1 00:00:00 2024\nSubject: hi\n\nbody\n")
    messages = [
        entry(
            box,
            f"m{i}",
            sha=str(i) * 64,
            name=f"Inbox.mbox › 2024-01-0{i} hi",
            mailbox={"path": str(box.resolve()), "key": str(i)},
        )
        for i in (1, 2)
    ]
    record = FolderRecord(
        path=str(folder.resolve()),
        recursive=False,
        unsupported={},
        mailboxes={str(box.resolve()): sha256_file(box)},
    )
    assert [f.name for f in plan_sync(folder, False, messages, record).unchanged if f.name == "Inbox.mbox"]
    assert [c.file.name for c in plan_sync(folder, False, messages, None).update] == ["Inbox.mbox"]
    box.unlink()
    plan = plan_sync(folder, False, messages, record)
    assert [r.document_ids for r in plan.remove] == [("m1", "m2")]


def test_scope_sub_folders_and_documents_from_elsewhere(folder: Path, tmp_path: Path) -> None:
    deep = put(folder, "sub/deep.txt", RAW / "20150110436469APC.txt")
    elsewhere = put(tmp_path / "other", "other.txt", RAW / SMALL[0])
    docs = [entry(deep, "d-deep"), entry(elsewhere, "d-else", sha="a" * 64)]
    deep.unlink()
    elsewhere.unlink()
    assert not plan_sync(folder, False, docs).remove  # not recursive: the sub-folder is not mirrored
    plan = plan_sync(folder, True, docs)
    assert [r.document_ids for r in plan.remove] == [("d-deep",)] and not plan.folder_empty
    for name in SMALL:
        (folder / name).unlink()
    assert plan_sync(folder, True, docs).folder_empty  # the callers keep documents then (unplugged drive)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_a_file_that_cannot_be_read_keeps_its_document(folder: Path) -> None:
    port = folder / SMALL[0]
    docs = [entry(port, "d-port")]
    port.chmod(0)
    try:
        plan = plan_sync(folder, False, docs)
    finally:
        port.chmod(0o600)
    assert not plan.remove and [s.code for s in plan.skipped] == ["unreadable"]


def test_rename_changes_the_name_and_path_only(tmp_path: Path) -> None:
    """The store's rename: journal and LanceDB document row; the chunks table is not written and
    the keyword index is untouched, so search reads the new name from the journal at once."""
    reg = CaseRegistry(tmp_path / "r.sqlite", tmp_path / "cases")
    rec = reg.create("Rename case")
    store = CaseStore(rec, reg.case_dir(rec.id))
    store.lock.acquire()
    row = {
        "name": "a.txt",
        "source_path": "/x/a.txt",
        "sha256": "sha-a",
        "file_type": "text",
        "chunk_count": 2,
        "legal": {"doc_type": "other"},
    }
    gen = store.commit_document(
        "d1", "a.txt", "/x/a.txt", "sha-a", chunk_rows(["alpha one", "beta two"]), row
    )
    chunks = store.lance.table(CHUNKS)
    assert chunks is not None
    chunks_version = chunks.version
    started = time.perf_counter()
    store.rename_document("d1", "b.txt", "/y/b.txt")
    took = time.perf_counter() - started
    e = store.journal.get("d1")
    assert e is not None and (e.name, e.source_path, e.gen, e.meta["name"], e.meta["source_path"]) == (
        "b.txt",
        "/y/b.txt",
        gen,
        "b.txt",
        "/y/b.txt",
    )
    chunks, documents = store.lance.table(CHUNKS), store.lance.table(DOCUMENTS)
    assert chunks is not None and chunks.version == chunks_version
    assert documents is not None
    row = documents.search().where("doc_id = 'd1'").to_arrow().to_pylist()[0]
    assert (row["name"], row["source_path"], row["gen"]) == ("b.txt", "/y/b.txt", gen)
    assert '"legal"' in row["meta_json"]  # the rest of the record kept
    assert [h.chunk_id for h in store.bm25.search("beta", 5)] == [f"d1-{gen}-00001"]
    assert not store.needs_recovery()
    assert took < 10.0, took  # a rename, not a re-embed (the chunks table's version above proves it)
    # A journal rebuilt from LanceDB (a damaged journal) keeps the new name.
    store.close()
    (store.dir / "journal.sqlite").write_bytes(b"garbage" * 100)
    again = CaseStore(rec, reg.case_dir(rec.id))
    again.lock.acquire()
    try:
        again.recover()
        assert [(j.name, j.source_path) for j in again.journal.all()] == [("b.txt", "/y/b.txt")]
    finally:
        again.close()
