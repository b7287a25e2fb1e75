"""Deleting is deleting: a deleted document's text, vectors and index entries leave the disk.

A LanceDB delete only masks rows (a deletion file beside the fragment that still holds them)
and keeps every older table version readable; tantivy keeps deleted entries in their segments
until a merge. So a document delete also:
  1. rewrites, in the same commit as an update (`merge_insert`), the other rows of every
     fragment that held the document: the old fragment then has no live row and leaves the
     manifest (measured: physical rows = live rows afterwards);
  2. drops every older table version and unreferenced file (`optimize(cleanup_older_than=0)`);
  3. rebuilds the keyword index from LanceDB in one commit (all old segments go) and collects
     the files tantivy no longer uses.
Each step is safe to repeat: the journal keeps the document `deleting` until all are done, and
recovery runs them again. Cost: the rewrite is as large as the fragments that held the document
(after compaction one fragment may hold a whole case), so a delete in a big case takes seconds.
A reader in another process still on an older version when it is dropped gets an error and
reads again.
"""

from __future__ import annotations

import json
import logging
import shutil
import warnings
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from casetrack import atomic_files
from casetrack.store.bm25 import Bm25Index
from casetrack.store.lance_tables import CHUNKS, DOCUMENTS, LanceTables, keyword_texts, sql_str

log = logging.getLogger(__name__)

REWRITE_BATCH = 2000  # rows rewritten per merge_insert commit (each commit is atomic on its own)


def purge_chunks(lance: LanceTables, doc_id: str) -> int:
    """Delete `doc_id`'s chunks and rewrite the rows that shared their fragments; returns how
    many rows were rewritten."""
    table = lance.table(CHUNKS)
    if table is None:
        return 0
    prefix = f"{doc_id}-"  # chunk ids are <doc>-<gen>-<seq>
    ids = dict(lance.row_id_map(table))
    fragments = {rid >> 32 for cid, rid in ids.items() if cid.startswith(prefix)}
    table.delete(f"doc_id = {sql_str(doc_id)}")
    neighbours = sorted(
        cid for cid, rid in ids.items() if rid >> 32 in fragments and not cid.startswith(prefix)
    )
    names = list(table.schema.names)
    for start in range(0, len(neighbours), REWRITE_BATCH):
        rows = lance.fetch_table(neighbours[start : start + REWRITE_BATCH], names).select(names)
        table.merge_insert("chunk_id").when_matched_update_all().execute(rows)
    return len(neighbours)


def drop_old_versions(lance: LanceTables) -> None:
    """Keep only the newest version of each table; delete every file no version uses."""
    for name in (CHUNKS, DOCUMENTS):
        table = lance.table(name)
        if table is None:
            continue
        with warnings.catch_warnings():  # "removes every version except the latest": meant
            warnings.simplefilter("ignore", UserWarning)
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)


def rebuild_bm25(bm25: Bm25Index, lance: LanceTables, committed: dict[str, int]) -> int:
    """The keyword index rebuilt from LanceDB's text of the `committed` documents (doc id ->
    generation) in one commit; files of the old segments are collected. Returns chunks indexed."""

    def documents() -> Iterator[tuple[str, list[tuple[str, str]]]]:
        for doc_id, gen in committed.items():
            rows = lance.document_chunks(doc_id, gen)
            yield doc_id, list(zip(rows.column("chunk_id").to_pylist(), keyword_texts(rows), strict=True))

    return bm25.rebuild(documents())


def physical_rows(table: Any) -> int:
    """Rows the table's fragments hold on disk, deleted or not (for checks and tests)."""
    stats = table.stats()["fragment_stats"]
    return (
        round(float(stats["lengths"]["mean"]) * int(stats["num_fragments"])) if stats["num_fragments"] else 0
    )


def scrub_set_aside(case_dir: Path, name: str, sha256: str, source_path: str | None) -> list[str]:
    """What a repair set aside and a deleted document is in, removed: a damaged journal holding its
    name, path or SHA-256, every LanceDB table folder set aside (each holds every document's text)
    and its line in lost_documents.json. Returns the names removed."""
    needles = [v.encode() for v in (name, sha256, source_path) if v]
    removed = []
    for path in [*case_dir.glob("*.damaged*"), *(case_dir / "lance").glob("*.damaged*")]:
        try:
            if path.is_dir():
                shutil.rmtree(path)
            elif any(n in path.read_bytes() for n in needles):
                path.unlink()
            else:
                continue
        except OSError as e:
            log.warning("could not remove %s after a delete: %s", path.name, e.strerror or e)
            continue
        removed.append(path.name)
    lost = case_dir / "lost_documents.json"
    try:
        entries = json.loads(lost.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        entries = None
    if isinstance(entries, list):
        kept = [
            e
            for e in entries
            if not (isinstance(e, dict) and (e.get("name") == name or e.get("sha256") == sha256))
        ]
        if len(kept) != len(entries):
            atomic_files.write_json(lost, kept, indent=1)
            removed.append(lost.name)
    return removed
