"""Document tools: list, details, delete."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from casetrack.domain.cases import DocumentSort
from casetrack.domain.views import DocumentSummary
from casetrack.mcp import render
from casetrack.mcp.context import DESTRUCTIVE, READ, CaseNameArg, ToolSet, call, result, tool_context
from casetrack.mcp.filter_args import NearDuplicatesArg
from casetrack.mcp.schemas import DeletedOut, DocumentListOut, DocumentOut

tools = ToolSet()


@tools.tool("List documents", READ, "List the documents in a case with their type, pages, chunks and IDs.")
async def list_documents(
    ctx: Context,
    case_name: CaseNameArg = None,
    sort_by: Annotated[DocumentSort, Field(description="Sort order")] = "date",
    near_duplicates: NearDuplicatesArg = "show",
) -> Annotated[CallToolResult, DocumentListOut]:
    tc = tool_context(ctx)

    def collect() -> tuple[str, list[DocumentSummary]]:
        case = tc.case(case_name)
        return case.name, tc.host.app.list_documents(case.id, sort_by, near_duplicates)

    name, docs = await call(collect)
    return result(render.documents(name, docs), DocumentListOut(case=name, documents=docs))


@tools.tool(
    "Document details",
    READ,
    "Details of one document: pages, chunks, extraction, pages needing OCR, source file.",
)
async def get_document(
    ctx: Context,
    document_name: Annotated[str, Field(description="Document name or ID", min_length=1)],
    case_name: CaseNameArg = None,
) -> Annotated[CallToolResult, DocumentOut]:
    tc = tool_context(ctx)

    def collect() -> dict[str, Any]:
        case = tc.case(case_name)
        return {"case": case.name, **tc.host.app.document_details(case.id, document_name)}

    d = await call(collect)
    return result(render.document(d), DocumentOut(**d))


@tools.tool(
    "Delete document",
    DESTRUCTIVE,
    "Remove a document with all its chunks, embeddings and index entries from a case. The original file is "
    "not touched. Requires confirm=true.",
)
async def delete_document(
    ctx: Context,
    document_name: Annotated[
        str, Field(description="The document's whole name or its ID (a fragment is refused)", min_length=1)
    ],
    confirm: Annotated[bool, Field(description="Must be true to confirm deletion")] = False,
    case_name: CaseNameArg = None,
) -> Annotated[CallToolResult, DeletedOut]:
    tc = tool_context(ctx)

    def run() -> tuple[str, str]:
        record = tc.case(case_name)
        cid, case = record.id, record.name
        doc = tc.host.app.document_details(cid, document_name, exact=True)
        if not confirm:
            raise ToolError(
                f'Deletion requires confirm=true. This will remove "{doc["name"]}" '
                f'({doc["chunks"]} chunks) from case "{case}". The original file is not touched.'
            )
        if any(j.case_id == cid for j in tc.host.jobs.active()):
            raise ToolError(f'Case "{case}" has an ingest job running. Wait for it (get_job), then delete.')
        tc.host.app.delete_document(cid, doc["document_id"])
        tc.host.jobs.forget_document(doc["name"], doc.get("source_path"))  # nothing of it stays behind
        return case, doc["name"]

    case, name = await call(run)
    return result(f'Removed "{name}" from {case}.', DeletedOut(deleted=True, case=case, document=name))
