"""A case's chronology (`build_chronology`, `casetrack chronology`): every dated event of its
documents, sorted by date, each pin-cited to its own page, paragraph and lines.

Read at request time from the stored chunks (no index, no migration: a case ingested before this
existed has its chronology too). Per document: its chunks are stitched back into page texts (a
chunk is a character range of one page, chunks overlap), so a sentence is never cut at a chunk's
edge and relative dates resolve in reading order over the whole document; `events.py` finds the
events; each is then cited through the chunk that holds it (`pincite/provenance.pin_provenance`).
The document's type and date come from its legal metadata (ingest/legal_meta.py).
"""

from __future__ import annotations

import calendar
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from casetrack.domain.views import ChronologyEventJson, source_json
from casetrack.search.chronology.events import TextEvent, document_events
from casetrack.search.pincite.provenance import (
    pin_provenance,
    stored_line_confidences,
    stored_line_numbers,
)
from casetrack.store.case_store import CaseStore
from casetrack.store.chunk_view import provenance, stored_line_pages
from casetrack.store.journal import JournalEntry

MAX_SENTENCE_CHARS = 1000  # of an event's sentence in the output (a run-on is cut with " ...")


@dataclass(frozen=True)
class Page:
    """One page's text stitched from its chunks, and the chunks (rows) it came from."""

    text: str
    rows: list[dict[str, Any]]


@dataclass
class Chronology:
    events: list[ChronologyEventJson] = field(default_factory=list)
    documents: int = 0  # documents read
    undated_documents: list[str] = field(default_factory=list)  # documents with no event


def stitch(rows: Iterable[dict[str, Any]]) -> list[Page]:
    """The document's pages rebuilt from its chunk rows (`char_start` offsets into the page)."""
    by_page: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_page.setdefault(int(row.get("page") or 0), []).append(row)
    pages: list[Page] = []
    for number in sorted(by_page):
        chunks = sorted(by_page[number], key=lambda r: (int(r["char_start"]), int(r["seq"])))
        text = ""
        for row in chunks:
            start, body = int(row["char_start"]), str(row["text"])
            if start > len(text):
                text += " " * (start - len(text))  # a gap (it does not happen): offsets stay true
            text += body[len(text) - start :]
        pages.append(Page(text, chunks))
    return pages


def _language(entry: JournalEntry, case_language: str) -> str:
    languages = (entry.meta.get("legal") or {}).get("languages") or []
    first = str(languages[0]) if languages else case_language
    return "pt" if first.lower().startswith("pt") else "en"


def _doc_date(entry: JournalEntry) -> date | None:
    value = (entry.meta.get("legal") or {}).get("doc_date")
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _holding_row(page: Page, event: TextEvent) -> dict[str, Any] | None:
    """The chunk that holds the whole sentence, else the one that holds the date."""
    ends = [
        (row, int(row["char_start"]), int(row["char_start"]) + len(str(row["text"]))) for row in page.rows
    ]
    whole = next((row for row, start, end in ends if start <= event.start and event.end <= end), None)
    if whole is not None:
        return whole
    return next((row for row, start, end in ends if start <= event.date_start < end), None)


def _trim(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SENTENCE_CHARS else text[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " ..."


def _event_json(
    event: TextEvent, page: Page, row: dict[str, Any], entries: dict[str, JournalEntry]
) -> ChronologyEventJson:
    chunk_start = int(row["char_start"])
    text = str(row["text"])
    start = max(event.start, chunk_start) - chunk_start
    end = min(event.end, chunk_start + len(text)) - chunk_start
    prov = pin_provenance(
        provenance(row, entries),
        text,
        start,
        end,
        stored_line_numbers(row),
        stored_line_confidences(row),
        stored_line_pages(row),
    )
    entry = entries[str(row["doc_id"])]
    legal = entry.meta.get("legal") or {}
    return {
        "date": event.value.isoformat()[: 7 if event.precision == "month" else 10],
        "precision": event.precision,
        "date_text": " ".join(event.date_text.split()),
        "relative": event.relative,
        "sentence": _trim(page.text[event.start : event.end]),
        "citation": prov.citation(),
        "document": entry.name,
        "document_id": entry.doc_id,
        "doc_type": legal.get("doc_type"),
        "doc_date": legal.get("doc_date"),
        "chunk_id": str(row["chunk_id"]),
        "source": source_json(prov),
    }


def _span(event: ChronologyEventJson) -> tuple[str, str]:
    """The first and last day an event's date covers (a month-precision date covers its month)."""
    if event["precision"] == "day":
        return event["date"], event["date"]
    year, month = (int(p) for p in event["date"].split("-"))
    return f"{event['date']}-01", f"{event['date']}-{calendar.monthrange(year, month)[1]:02d}"


def in_range(event: ChronologyEventJson, date_from: str | None, date_to: str | None) -> bool:
    first, last = _span(event)
    return (date_from is None or last >= date_from) and (date_to is None or first <= date_to)


def _in_chunks(event: TextEvent, page: Page, chunk_ids: Collection[str]) -> bool:
    return any(
        r["chunk_id"] in chunk_ids and r["char_start"] <= event.date_start < r["char_start"] + len(r["text"])
        for r in page.rows
    )


def build_chronology(
    store: CaseStore,
    doc_ids: Collection[str] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    chunk_ids: Collection[str] | None = None,
) -> Chronology:
    """The dated events of the case's committed documents (only `doc_ids` when given; only the
    events inside `chunk_ids` when given: a search's hits), dated `date_from`..`date_to`
    (YYYY-MM-DD, inclusive), sorted by date, then document and place."""
    entries = {e.doc_id: e for e in store.documents() if e.visible_gen is not None}
    wanted = sorted(entries) if doc_ids is None else sorted(set(doc_ids) & set(entries))
    if chunk_ids is not None:
        wanted = [d for d in wanted if any(c.startswith(d + "-") for c in chunk_ids)]
    out = Chronology(documents=len(wanted))
    for doc_id in wanted:
        entry = entries[doc_id]
        rows = store.lance.document_chunks(doc_id, entry.gen).to_pylist()
        pages = stitch(rows)
        found = 0
        events = document_events(
            [p.text for p in pages], _language(entry, store.record.language), _doc_date(entry)
        )
        for event in events:
            page = pages[event.page]
            if chunk_ids is not None and not _in_chunks(event, page, chunk_ids):
                continue
            row = _holding_row(page, event)
            if row is None:
                continue
            found += 1
            record = _event_json(event, page, row, entries)
            if in_range(record, date_from, date_to):
                out.events.append(record)
        if not found:
            out.undated_documents.append(entry.name)
    out.events.sort(
        key=lambda e: (
            _span(e)[0],
            e["precision"] != "month",
            e["document"],
            e["source"]["page"] or 0,
            e["source"]["char_start"],
        )
    )
    return out
