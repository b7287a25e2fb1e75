"""`casetrack reembed`: bring a case's stored embeddings up to date with the installed models.

A document needs work for a slot when its chunks lack that slot's vectors (the model was not
installed at ingest) or were made by other weights (a model was upgraded or swapped). Text and
provenance are kept; only embedding columns are recomputed, and each document is committed as
a new generation through the same crash-safe protocol as ingest.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from casetrack.domain.slots import SLOT_ORDER
from casetrack.embed.protocols import EmbedderPool
from casetrack.ingest.embedding import embed_chunks
from casetrack.logsafe import safe_for_log
from casetrack.store import lance_tables as lt
from casetrack.store.case_store import CaseStore
from casetrack.store.journal import JournalEntry

log = logging.getLogger(__name__)

DocCallback = Callable[[int, int, str], None]


@dataclass
class ReembedReport:
    case: str
    documents: int = 0
    reembedded: list[dict[str, Any]] = field(default_factory=list)  # {"document", "slots", "chunks"}
    up_to_date: int = 0
    still_missing: dict[str, str] = field(default_factory=dict)  # slot -> warning

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "documents": self.documents,
            "reembedded": self.reembedded,
            "up_to_date": self.up_to_date,
            "still_missing": self.still_missing,
        }


def stale_slots(entry: JournalEntry, rows: pa.Table, pool: EmbedderPool, language: str) -> list[str]:
    """Installed slots whose vectors this document lacks or got from different weights."""
    used = dict(s.split("=", 1) for s in entry.meta.get("embed_models") or [] if "=" in s)
    stale = []
    for slot in SLOT_ORDER:
        spec = pool.resolve(slot, language)
        if spec is None:
            continue
        columns = [lt.SLOT_COLUMN[slot]] + ([lt.WINDOW_VECTORS] if slot == "E1" else [])
        lacking = any(c not in rows.column_names or rows.column(c).null_count > 0 for c in columns)
        if lacking or used.get(slot) != spec.fingerprint:
            stale.append(slot)
    return stale


def reembed_case(
    store: CaseStore,
    pool: EmbedderPool,
    everything: bool = False,
    on_document: DocCallback | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> ReembedReport:
    """Re-embed what is stale (or, with `everything`, every slot of every document).

    The caller holds the case's writer lock.
    """
    language, case = store.record.language, store.record.name
    report = ReembedReport(case=case)
    entries = store.documents()
    report.documents = len(entries)
    noop: Callable[[str, int, int], None] = lambda stage, done, total: None  # noqa: E731
    used: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(entries):
        if on_document:
            on_document(i, len(entries), entry.name)
        rows = store.lance.document_chunks(entry.doc_id, entry.gen, with_embeddings=True)
        slots = [s for s in SLOT_ORDER if pool.resolve(s, language)] if everything else None
        slots = slots if slots is not None else stale_slots(entry, rows, pool, language)
        if not slots:
            report.up_to_date += 1
            continue
        texts = rows.column("text").to_pylist()
        emb = embed_chunks(pool, language, case, texts, progress or noop, slots)
        for name, array in emb.columns.items():
            index = rows.schema.get_field_index(name)
            new_field = pa.field(name, array.type)
            rows = (
                rows.set_column(index, new_field, array)
                if index >= 0
                else rows.append_column(new_field, array)
            )
        kept = {s.split("=", 1)[0]: s for s in entry.meta.get("embed_models") or [] if "=" in s}
        kept.update({slot: f"{slot}={use.fingerprint}" for slot, use in emb.models.items()})
        document_row = {**entry.meta, "embed_models": sorted(kept.values())}
        if "E1" in emb.models:
            document_row["embed_model"] = emb.models["E1"].fingerprint
        used.update({slot: use.to_json() for slot, use in emb.models.items()})
        store.commit_document(entry.doc_id, entry.name, entry.source_path, entry.sha256, rows, document_row)
        report.reembedded.append({"document": entry.name, "slots": list(emb.models), "chunks": rows.num_rows})
        log.info("re-embedded %s (%s)", safe_for_log(entry.name), ", ".join(emb.models))
    # Only now: until every document is done, the case keeps saying it holds the old vectors, so
    # search skips a swapped slot instead of mixing weights (and a crash leaves it that way).
    store.record_models(used)
    report.still_missing = {
        slot: f"{slot} model is not installed: `casetrack models download --slot {slot}`"
        for slot in SLOT_ORDER
        if pool.resolve(slot, language) is None
    }
    return report
