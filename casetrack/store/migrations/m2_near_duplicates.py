"""Migration 2: every document gets the MinHash signature of its words (`meta["minhash"]`), and a
document that nearly copies one ingested before it gets its `near_duplicate_of` link, as ingest
gives both today (store/near_duplicates.py), so a case written before they existed lists and
groups its near-duplicates too.

Documents are taken in the order they were ingested, each compared with the ones before it; the
text is rebuilt from the document's chunks. The journal keeps the metadata, LanceDB's document
row a copy (written first, in one commit, so a kill between the two leaves the journal without
the signatures and the migration runs again). No column is added: both live in the metadata.
"""

from __future__ import annotations

from casetrack.store.migrations.base import MigratingStore, Migration
from casetrack.store.near_duplicates import LINK_KEY, SIGNATURE_KEY, NearDuplicateIndex, stored_text


def _fill(store: MigratingStore) -> list[str]:
    entries = sorted(store.documents(), key=lambda e: float(e.meta.get("ingested_at") or 0.0))
    todo = [e for e in entries if not isinstance(e.meta.get(SIGNATURE_KEY), str)]
    if not todo:
        return []
    index = NearDuplicateIndex(
        store.lance, [e for e in entries if isinstance(e.meta.get(SIGNATURE_KEY), str)]
    )
    updated, linked = [], 0
    for entry in todo:
        signature, near = index.check(stored_text(store.lance, entry), entry.doc_id)
        meta = {**entry.meta, SIGNATURE_KEY: signature}
        if near is not None and LINK_KEY not in meta:
            meta[LINK_KEY] = near
            linked += 1
        updated.append((entry, meta))
        index.add(entry, signature)
    store.lance.upsert_documents([{**meta, "doc_id": e.doc_id, "gen": e.gen} for e, meta in updated])
    store.lance.durable()
    for entry, meta in updated:
        store.journal.update_meta(entry.doc_id, meta)
    return [f"near-duplicate signatures stored for {len(updated)} documents ({linked} near-duplicates found)"]


MIGRATION = Migration(2, "near-duplicate signatures and links (meta minhash, near_duplicate_of)", fill=_fill)
