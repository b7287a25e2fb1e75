"""Case tools: create, list, switch, delete, details, status."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from casetrack.domain.cases import CaseStatus, CaseStatusName, CaseType, Language
from casetrack.mcp import render
from casetrack.mcp.context import (
    DESTRUCTIVE,
    IDEMPOTENT,
    READ,
    WRITE,
    CaseNameArg,
    ToolSet,
    call,
    result,
    tool_context,
)
from casetrack.mcp.schemas import CaseInfoOut, CaseListOut, CaseOut, DeletedOut

tools = ToolSet()


@tools.tool(
    "Create case",
    WRITE,
    "Create a new legal case (matter): an isolated, local store for its documents. "
    "The new case becomes the active case.",
)
async def create_case(
    ctx: Context,
    name: Annotated[str, Field(description="Case name, e.g. 'Smith v. Jones'", min_length=1, max_length=200)],
    case_type: Annotated[CaseType, Field(description="Type of legal case")] = "other",
    language: Annotated[
        Language, Field(description="Main language of the documents: en (English) or pt (Portuguese)")
    ] = "en",
) -> Annotated[CallToolResult, CaseOut]:
    tc = tool_context(ctx)
    record = await call(lambda: tc.host.app.create_case(name, case_type, language))
    tc.session.active_case = record.id
    info = await call(lambda: tc.summary(record.id))
    return result(render.created(info), CaseOut(**info))


@tools.tool(
    "List cases", READ, "List cases with type, status, document and chunk counts, and which one is active."
)
async def list_cases(
    ctx: Context,
    status_filter: Annotated[
        Literal["active", "closed", "archived", "all"], Field(description="Which cases to list")
    ] = "active",
) -> Annotated[CallToolResult, CaseListOut]:
    tc = tool_context(ctx)

    def collect() -> list[dict[str, Any]]:
        records = tc.host.app.registry.list()
        return [
            tc.summary(r.id) for r in records if status_filter == "all" or r.status.value == status_filter
        ]

    cases = await call(collect)
    active = tc.session.active_case
    out = CaseListOut(cases=[CaseOut(**c) for c in cases], active_case=active, status_filter=status_filter)
    return result(render.case_list(cases, active, status_filter), out)


@tools.tool(
    "Switch case", IDEMPOTENT, "Make a case the active case; later tools use it when case_name is not given."
)
async def switch_case(
    ctx: Context,
    case_name: Annotated[str, Field(description="Case name or ID to switch to", min_length=1)],
) -> Annotated[CallToolResult, CaseOut]:
    tc = tool_context(ctx)
    info = await call(lambda: tc.summary(case_name))
    tc.session.active_case = info["id"]
    info["active"] = True
    text = (
        f'Switched to case "{info["name"]}" ({info["document_count"]} documents, '
        f"{info['chunk_count']:,} chunks)."
    )
    if info["status"] != "active":
        text += f'\nThis case is {info["status"]}: search works, ingesting needs set_case_status(status="active").'
    return result(text, CaseOut(**info))


@tools.tool(
    "Delete case",
    DESTRUCTIVE,
    "Permanently delete a case and all its documents, embeddings and indexes from "
    "this computer. Cannot be undone. Requires confirm=true.",
)
async def delete_case(
    ctx: Context,
    case_name: Annotated[str, Field(description="Case name or ID to delete", min_length=1)],
    confirm: Annotated[bool, Field(description="Must be true to confirm deletion")] = False,
) -> Annotated[CallToolResult, DeletedOut]:
    tc = tool_context(ctx)
    # A reference that is one case's name and another's id is refused, not guessed (privacy_fs).
    ref = await call(lambda: tc.host.app.registry.get(case_name, destructive=True).id)
    info = await call(lambda: tc.host.app.case_summary(ref))
    if not confirm:
        raise ToolError(
            f'Deletion requires confirm=true. This will permanently delete case "{info["name"]}" and all '
            f"{info['document_count']} documents. This cannot be undone."
        )
    busy = [j for j in tc.host.jobs.active() if j.case_id == info["id"]]
    if busy:
        raise ToolError(
            f'Case "{info["name"]}" has an ingest job running ({busy[0].id}). '
            f"Wait for it (get_job) or cancel it (cancel_job), then delete."
        )
    record = await call(lambda: tc.host.app.delete_case(info["id"]))
    if tc.session.active_case == record.id:
        tc.session.active_case = None
    return result(
        f'Deleted case "{record.name}" and all its data.', DeletedOut(deleted=True, case=record.name)
    )


@tools.tool(
    "Case details", READ, "Details of a case: type, status, documents, pages, chunks and storage used."
)
async def get_case_info(
    ctx: Context, case_name: CaseNameArg = None
) -> Annotated[CallToolResult, CaseInfoOut]:
    tc = tool_context(ctx)

    def collect() -> tuple[dict[str, Any], int]:
        info = tc.summary(tc.case_id(case_name))
        return info, dir_size(Path(info["directory"]))

    info, size = await call(collect)
    return result(render.case_info(info, size), CaseInfoOut(**info, storage_bytes=size))


@tools.tool(
    "Close, archive or reopen a case",
    IDEMPOTENT,
    "Set a case's status: closed or archived cases stay searchable but read-only; active reopens them for "
    "ingesting.",
)
async def set_case_status(
    ctx: Context,
    status: Annotated[CaseStatusName, Field(description="New status")],
    case_name: CaseNameArg = None,
) -> Annotated[CallToolResult, CaseOut]:
    tc = tool_context(ctx)

    def change() -> dict[str, Any]:
        record = tc.host.app.set_status(tc.case_id(case_name), CaseStatus(status))
        return tc.summary(record.id)

    info = await call(change)
    return result(f'Case "{info["name"]}" is now {info["status"]}.', CaseOut(**info))


def dir_size(path: Path) -> int:
    """Bytes under `path` (files that vanish while counting are skipped)."""
    total = 0
    for p in path.rglob("*"):
        try:
            if p.is_file():
                total += p.stat().st_size
        except OSError:
            continue
    return total
