"""build_chronology: the case's dated events, sorted, each with its pin-cite and the document's
type (app/chronology.py over search/chronology/). Read-only: it writes no file (`casetrack
chronology --out` does, for the user)."""

from __future__ import annotations

import functools
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field

from casetrack.domain.views import ChronologyEventJson, ChronologyJson
from casetrack.mcp.context import (
    READ,
    CaseNameArg,
    ToolContext,
    ToolSet,
    call,
    client_of,
    result,
    tool_context,
)

tools = ToolSet()

MAX_SHOWN_CHARS = 300  # of an event's sentence, in the readable answer (structured output: up to 1000)


class ChronologyOut(BaseModel):
    """build_chronology's structured output (ChronologyJson)."""

    model_config = ConfigDict(extra="allow")

    case: str
    total: int
    shown: int
    offset: int
    events: list[ChronologyEventJson]
    documents: int
    undated_documents: list[str]
    query: str | None
    date_from: str | None
    date_to: str | None


def render(out: ChronologyJson) -> str:
    """The readable answer: one line per event, date first, then its pin-cite and sentence."""
    about = f" about {out['query']!r}" if out["query"] else ""
    lines = [
        f"Chronology of '{out['case']}'{about}: {out['total']} dated events in {out['documents']} documents"
        + (
            f" (showing {out['offset'] + 1}-{out['offset'] + out['shown']})"
            if out["shown"] < out["total"]
            else ""
        )
        + "."
    ]
    for e in out["events"]:
        sentence = e["sentence"]
        if len(sentence) > MAX_SHOWN_CHARS:
            sentence = sentence[:MAX_SHOWN_CHARS].rsplit(" ", 1)[0] + " ..."
        when = e["date"] + ("" if e["precision"] == "day" else " (month)")
        kind = f" [{e['doc_type']}]" if e["doc_type"] else ""
        lines.append(f'- {when} — {e["citation"]}{kind}: "{sentence}"')
    if out["shown"] < out["total"] - out["offset"]:
        lines.append(f"More: call build_chronology again with offset={out['offset'] + out['shown']}.")
    if not out["total"]:
        lines.append("No dated event matches; widen the dates or drop the query.")
    return "\n".join(lines)


def _build(
    tc: ToolContext,
    case_name: str | None,
    date_from: str | None,
    date_to: str | None,
    documents: list[str],
    query: str | None,
    offset: int,
    max_events: int,
    client: str,
) -> ChronologyJson:
    case = tc.case(case_name)
    return tc.host.app.chronology(
        case.id, date_from, date_to, documents, query, offset=offset, max_events=max_events, client=client
    )


@tools.tool(
    "Build chronology",
    READ,
    "The case's chronology: every sentence of its documents that dates an event (dates written in English "
    "or Portuguese in any usual form; relative ones like 'the next day', 'no dia seguinte' or 'the date "
    "hereof' resolved against the document), sorted by date, each with its date and precision (day or "
    "month), the sentence, the pin-cite (document, page, paragraph, lines) and the document's type. "
    "Running headers, citations' and statutes' dates are left out. date_from/date_to keep the events of "
    "those days, documents keeps those documents, query keeps the events in the passages a search finds "
    "for it (a topic). Quote each event's citation.",
)
async def build_chronology(
    ctx: Context,
    case_name: CaseNameArg = None,
    date_from: Annotated[
        str | None, Field(description="Only events on or after this day (YYYY-MM-DD)", max_length=10)
    ] = None,
    date_to: Annotated[
        str | None, Field(description="Only events on or before this day (YYYY-MM-DD)", max_length=10)
    ] = None,
    documents: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=500)]] | None,
        Field(description="Only these documents (names or IDs)", max_length=100),
    ] = None,
    query: Annotated[
        str | None,
        Field(description="A topic: only the events in the passages a search finds for it", max_length=2000),
    ] = None,
    offset: Annotated[int, Field(ge=0, description="Skip this many events (paging)")] = 0,
    max_events: Annotated[int, Field(ge=1, le=500, description="Events to return")] = 100,
) -> Annotated[CallToolResult, ChronologyOut]:
    tc = tool_context(ctx)
    answer = await call(
        functools.partial(
            _build,
            tc,
            case_name,
            date_from,
            date_to,
            documents or [],
            query,
            offset,
            max_events,
            client_of(ctx),
        )
    )
    return result(render(answer), ChronologyOut(**answer))
