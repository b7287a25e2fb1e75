"""build_evidence_table: the best cited passages for each of several questions, as rows (a
chronology, an issue table), and as a .csv/.xlsx/.docx file when asked (app/evidence.py,
app/tabular.py). One search per question, with a progress notification after each.

A file is written only under an allowed root (privacy_fs.check_allowed, as ingest paths are
checked: outside system and hidden folders and CaseTrack's data folder), 0600, and never over an
existing file unless `overwrite`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field

from casetrack.app.evidence import EVIDENCE_COLUMNS, EvidenceRow, evidence_rows, search_top_k
from casetrack.errors import CaseTrackError
from casetrack.mcp.context import (
    WRITE,
    CaseNameArg,
    ToolContext,
    ToolSet,
    call,
    client_of,
    result,
    tool_context,
)
from casetrack.mcp.tools_ingest import allowed_path

if TYPE_CHECKING:
    from casetrack.domain.views import SearchJson

tools = ToolSet()

MAX_SHOWN_CHARS = (
    400  # of a passage, in the readable answer (the structured rows carry up to MAX_PASSAGE_CHARS)
)


class EvidenceTableOut(BaseModel):
    """build_evidence_table's structured output: one row per passage (EvidenceRow)."""

    model_config = ConfigDict(extra="allow")

    case: str
    questions: int
    rows: list[EvidenceRow]
    columns: list[str]  # the file's columns, in order
    written_to: str | None = None  # the file written, when output_path was given


def render(out: EvidenceTableOut) -> str:
    """The readable answer: each question with its cited passages, best first."""
    lines = [f"Evidence table for '{out.case}': {out.questions} questions, {len(out.rows)} rows."]
    question = None
    for row in out.rows:
        if row["question"] != question:
            question = row["question"]
            flag = (
                " (no good match: nothing in the case clearly answers this)" if row["no_good_match"] else ""
            )
            lines += ["", f"Q: {question}{flag}"]
        if row["rank"] is None:
            lines.append("  (no results)")
            continue
        passage = row["passage"]
        if len(passage) > MAX_SHOWN_CHARS:
            passage = passage[:MAX_SHOWN_CHARS].rsplit(" ", 1)[0] + " ..."
        lines.append(f'  {row["rank"]}. {row["citation"]} [{row["match"]}]: "{passage}"')
    if out.written_to:
        lines += ["", f"Written to {out.written_to}"]
    return "\n".join(lines)


def _search(
    tc: ToolContext, case_id: str, question: str, top_k: int, by_document: bool, client: str
) -> SearchJson:
    from casetrack.search.ranking.output import response_json

    return response_json(
        tc.host.app.search(case_id, question, top_k=top_k, per_document=by_document, client=client)
    )


@tools.tool(
    "Build evidence table",
    WRITE,
    "For each question, the best cited passages of the case, one row each (question, rank, citation, "
    "document, page, lines, passage, score = relevance 0-1, match, no_good_match): to build a chronology, "
    "an issue table or a memo's evidence section. by_document=true gives each question's best passage per "
    "document. With output_path (.csv, .xlsx or .docx, under the folders CaseTrack may use) the table is "
    "also written there; without it nothing is written. Quote each row's citation; no_good_match=true "
    "means the case does not clearly answer that question.",
)
async def build_evidence_table(
    questions: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=2000)]],
        Field(
            description="The questions, one per row group, e.g. ['When was the agreement signed?', 'What is the "
            "monthly fee?']",
            min_length=1,
            max_length=100,
        ),
    ],
    ctx: Context,
    case_name: CaseNameArg = None,
    per_question: Annotated[int, Field(ge=1, le=20, description="Passages per question")] = 3,
    by_document: Annotated[bool, Field(description="Each row a different document's best passage")] = False,
    output_path: Annotated[
        str | None,
        Field(
            description="Absolute path of a .csv, .xlsx or .docx file to write the table to (optional)",
            max_length=4096,
        ),
    ] = None,
    overwrite: Annotated[bool, Field(description="Replace output_path if it exists")] = False,
) -> Annotated[CallToolResult, EvidenceTableOut]:
    from casetrack.app.tabular import table_format, write_table

    tc = tool_context(ctx)
    asked = [q.strip() for q in questions if q.strip()]
    if not asked:
        raise CaseTrackError(
            "Every question is blank.", "Call build_evidence_table again with the questions' text."
        )

    def target() -> Path | None:
        if not output_path:
            return None
        path = Path(output_path).expanduser()
        table_format(path)  # a wrong extension fails before any search
        real = allowed_path(tc, path)
        if real.exists() and not overwrite:
            raise CaseTrackError(
                f"{path} already exists.", "Choose a new file name, or call again with overwrite=true."
            )
        return real

    case = await call(lambda: tc.case(case_name))
    dest = await call(target)
    rows: list[EvidenceRow] = []
    for done, question in enumerate(asked):
        await ctx.report_progress(done, total=len(asked), message=f"searching: {question[:60]}")
        top_k = search_top_k(per_question, by_document)
        response = await call(
            functools.partial(_search, tc, case.id, question, top_k, by_document, client_of(ctx))
        )
        rows += evidence_rows(question, response, per_question, by_document)
    await ctx.report_progress(len(asked), total=len(asked), message="done")
    written = None
    if dest is not None:
        title = f"Evidence table: {case.name}"
        path = await call(
            lambda: write_table(dest, EVIDENCE_COLUMNS, rows, title=title, exclusive=not overwrite)
        )
        written = str(path)
    out = EvidenceTableOut(
        case=case.name, questions=len(asked), rows=rows, columns=list(EVIDENCE_COLUMNS), written_to=written
    )
    return result(render(out), out)
