"""The chronology of a case (`casetrack chronology`, build_chronology): its dated events
(search/chronology/) as the JSON both surfaces return, and as the rows of a .csv/.xlsx/.docx
table (app/tabular.py, as `casetrack table` writes them).

With a query, the case's search picks the passages about the topic (of its best QUERY_DEPTH hits,
those it rates exact, strong or good; the weak ones only when there is nothing better) and the
chronology keeps the events inside them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from typing_extensions import TypedDict

from casetrack.domain.search import SearchHit
from casetrack.domain.views import ChronologyEventJson, ChronologyJson
from casetrack.errors import CaseTrackError, Fix
from casetrack.search.chronology.build import Chronology

QUERY_DEPTH = 40  # search hits whose events a --query chronology keeps
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class ChronologyRow(TypedDict):
    """One row of the chronology file (its columns are these keys, in this order)."""

    date: str
    precision: str
    event: str  # the sentence
    citation: str
    document: str
    doc_type: str
    page: int | None
    lines: str
    date_text: str


CHRONOLOGY_COLUMNS = (
    "date",
    "precision",
    "event",
    "citation",
    "document",
    "doc_type",
    "page",
    "lines",
    "date_text",
)


def topic_chunks(hits: Sequence[SearchHit]) -> set[str]:
    """The chunks a search found about the topic: its exact, strong and good hits, else its weak ones."""
    good = {h.chunk_id for h in hits if h.match in ("exact", "strong", "good")}
    return good or {h.chunk_id for h in hits if h.match == "weak"}


def check_day(value: str | None, flag: str, key: str, example: str) -> str | None:
    """`value` when it is a YYYY-MM-DD day, None when not given; else an error naming the fix."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if _ISO.match(text):
        from datetime import date

        try:
            date.fromisoformat(text)
            return text
        except ValueError:
            pass
    raise CaseTrackError(
        f"{flag} ({key}) {value!r} is not a day written YYYY-MM-DD.",
        fix=Fix(
            "Write it as YYYY-MM-DD",
            f"casetrack chronology {flag} {example}",
            "build_chronology",
            {key: example},
        ),
    )


def check_range(date_from: str | None, date_to: str | None) -> tuple[str | None, str | None]:
    first = check_day(date_from, "--from", "date_from", "2021-01-01")
    last = check_day(date_to, "--to", "date_to", "2021-12-31")
    if first and last and first > last:
        raise CaseTrackError(
            f"The range {first} .. {last} is empty: it ends before it starts.",
            fix=Fix(
                "Swap the two days",
                f"casetrack chronology --from {last} --to {first}",
                "build_chronology",
                {"date_from": last, "date_to": first},
            ),
        )
    return first, last


def _lines(event: ChronologyEventJson) -> str:
    first, last = event["source"]["line_start"], event["source"]["line_end"]
    return str(first) if first == last else f"{first}-{last}"


def chronology_rows(events: Sequence[ChronologyEventJson]) -> list[ChronologyRow]:
    return [
        {
            "date": e["date"],
            "precision": e["precision"],
            "event": e["sentence"],
            "citation": e["citation"],
            "document": e["document"],
            "doc_type": e["doc_type"] or "",
            "page": e["source"]["page"],
            "lines": _lines(e),
            "date_text": e["date_text"],
        }
        for e in events
    ]


def page_of(
    case: str,
    built: Chronology,
    offset: int,
    max_events: int | None,
    query: str | None,
    date_from: str | None,
    date_to: str | None,
) -> ChronologyJson:
    """The JSON of a built chronology: the events from `offset` (at most `max_events`)."""
    events = built.events
    shown = events[offset:] if max_events is None else events[offset : offset + max_events]
    return {
        "case": case,
        "total": len(events),
        "shown": len(shown),
        "offset": offset,
        "events": shown,
        "documents": built.documents,
        "undated_documents": built.undated_documents,
        "query": query,
        "date_from": date_from,
        "date_to": date_to,
    }
