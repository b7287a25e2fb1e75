"""The MCP tools, built per session on the official SDK's `MCPServer`.

Every case-scoped tool takes an optional `case_name` (name or id); without it the session's
active case is used (set by create_case / switch_case), so a conversation never depends on state
it cannot see. User mistakes come back as tool errors that name the next step; unexpected
failures are logged and reported without ending the session or the daemon. Long ingests run as
daemon jobs: the tool waits up to `wait_seconds` (sending progress), then returns the job id.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from casetrack import __version__
from casetrack.daemon.jobs import Job
from casetrack.daemon.service import Service
from casetrack.errors import CaseNotFoundError, CaseTrackError
from casetrack.mcp import render
from casetrack.mcp.schemas import (
    CaseInfoOut,
    CaseListOut,
    CaseOut,
    ChunkOut,
    DeletedOut,
    DocumentListOut,
    DocumentOut,
    EntityOut,
    JobListOut,
    JobOut,
    SearchOut,
    StatusOut,
)
from casetrack.store.registry import CASE_TYPES, CaseStatus

log = logging.getLogger(__name__)

T = TypeVar("T")

INSTRUCTIONS = (
    "CaseTrack searches a lawyer's case documents on this computer and cites every passage "
    "(document, page, paragraph, lines). Work in a case: list_cases / switch_case / create_case, "
    "then ingest_document or ingest_folder, then search_case. Quote the citation given with each "
    "result. Any case-scoped tool also accepts case_name."
)

CaseTypeArg = Literal[
    "civil", "criminal", "family", "bankruptcy", "contract", "employment", "personal_injury", "real_estate",
    "intellectual_property", "immigration", "tax", "administrative", "other",
]
assert set(CaseTypeArg.__args__) == set(CASE_TYPES)  # type: ignore[attr-defined]

CaseNameArg = Annotated[str | None, Field(description="Case name or ID (default: the active case)")]

_READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
_IDEMPOTENT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                              open_world_hint=False)
_DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                               open_world_hint=False)

# CLI hints rewritten as the tool calls that do the same thing.
_HINTS = [
    (re.compile(r"List cases: casetrack case list"), "Use list_cases to see available cases."),
    (re.compile(r'Create one: casetrack case create "([^"]*)"'), r'Create one: create_case(name="\1")'),
    (re.compile(r'Reopen it first: casetrack case reopen "([^"]*)"'),
     r'Reopen it first: set_case_status(case_name="\1", status="active")'),
]


@dataclass
class SessionState:
    """What one MCP session remembers: its active case (id), never persisted."""

    active_case: str | None = None


def _hint(hint: str | None) -> str:
    if not hint:
        return ""
    for pattern, repl in _HINTS:
        hint = pattern.sub(repl, hint)
    return hint


def _tool_error(e: CaseTrackError) -> ToolError:
    hint = _hint(e.hint)
    return ToolError(f"{e.message}\n\n{hint}" if hint else e.message)


async def _call(fn: Callable[[], T]) -> T:
    """Run blocking work on a worker thread (`guarded` turns its errors into tool errors)."""
    return await anyio.to_thread.run_sync(fn)


F = TypeVar("F", bound=Callable[..., Awaitable[CallToolResult]])


def guarded(fn: F) -> F:
    """Whatever goes wrong inside a tool comes back as a tool error the model can read."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
        try:
            return await fn(*args, **kwargs)
        except ToolError:
            raise
        except CaseTrackError as e:
            raise _tool_error(e) from e
        except Exception as e:
            log.exception("tool %s failed", fn.__name__)
            raise ToolError(f"Internal error in {fn.__name__}: {type(e).__name__}: {e}. The daemon keeps running; "
                            "its log (see get_status) has the details.") from e

    return wrapper  # type: ignore[return-value]


def _result(text: str, data: BaseModel) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=data.model_dump(mode="json"))


def build_server(service: Service, session: SessionState) -> MCPServer:
    app = service.app
    server: MCPServer = MCPServer("casetrack", version=__version__, instructions=INSTRUCTIONS)

    def case_id(case_name: str | None) -> str:
        if case_name and case_name.strip():
            return app.registry.get(case_name).id
        if session.active_case is None:
            raise ToolError(render.NO_ACTIVE_CASE)
        try:
            return app.registry.get(session.active_case).id
        except CaseNotFoundError as e:
            session.active_case = None
            raise ToolError("The active case no longer exists (it was deleted).\n\n" + render.NO_ACTIVE_CASE) from e

    def summary(case: str) -> dict[str, Any]:
        info = app.case_summary(case)
        info["active"] = info["id"] == session.active_case
        return info

    # -- cases ------------------------------------------------------------------------------------

    @server.tool(title="Create case", annotations=_WRITE,
                 description="Create a new legal case (matter): an isolated, local store for its documents. "
                             "The new case becomes the active case.")
    @guarded
    async def create_case(
        name: Annotated[str, Field(description="Case name, e.g. 'Smith v. Jones'", min_length=1, max_length=200)],
        case_type: Annotated[CaseTypeArg, Field(description="Type of legal case")] = "other",
        language: Annotated[Literal["en", "pt"], Field(
            description="Main language of the documents: en (English) or pt (Portuguese)")] = "en",
    ) -> Annotated[CallToolResult, CaseOut]:
        record = await _call(lambda: app.create_case(name, case_type, language))
        session.active_case = record.id
        info = await _call(lambda: summary(record.id))
        return _result(render.created(info), CaseOut(**info))

    @server.tool(title="List cases", annotations=_READ,
                 description="List cases with type, status, document and chunk counts, and which one is active.")
    @guarded
    async def list_cases(
        status_filter: Annotated[Literal["active", "closed", "archived", "all"], Field(
            description="Which cases to list")] = "active",
    ) -> Annotated[CallToolResult, CaseListOut]:
        def collect() -> list[dict[str, Any]]:
            records = app.registry.list()
            return [summary(r.id) for r in records if status_filter == "all" or r.status.value == status_filter]

        cases = await _call(collect)
        out = CaseListOut(cases=[CaseOut(**c) for c in cases], active_case=session.active_case,
                          status_filter=status_filter)
        return _result(render.case_list(cases, session.active_case, status_filter), out)

    @server.tool(title="Switch case", annotations=_IDEMPOTENT,
                 description="Make a case the active case; later tools use it when case_name is not given.")
    @guarded
    async def switch_case(
        case_name: Annotated[str, Field(description="Case name or ID to switch to", min_length=1)],
    ) -> Annotated[CallToolResult, CaseOut]:
        info = await _call(lambda: summary(case_name))
        session.active_case = info["id"]
        info["active"] = True
        text = (f"Switched to case \"{info['name']}\" ({info['document_count']} documents, "
                f"{info['chunk_count']:,} chunks).")
        if info["status"] != "active":
            text += f"\nThis case is {info['status']}: search works, ingesting needs set_case_status(status=\"active\")."
        return _result(text, CaseOut(**info))

    @server.tool(title="Delete case", annotations=_DESTRUCTIVE,
                 description="Permanently delete a case and all its documents, embeddings and indexes from this "
                             "computer. Cannot be undone. Requires confirm=true.")
    @guarded
    async def delete_case(
        case_name: Annotated[str, Field(description="Case name or ID to delete", min_length=1)],
        confirm: Annotated[bool, Field(description="Must be true to confirm deletion")] = False,
    ) -> Annotated[CallToolResult, DeletedOut]:
        info = await _call(lambda: app.case_summary(case_name))
        if not confirm:
            raise ToolError(
                f"Deletion requires confirm=true. This will permanently delete case \"{info['name']}\" and all "
                f"{info['document_count']} documents. This cannot be undone.")
        busy = [j for j in service.jobs.active() if j.case_id == info["id"]]
        if busy:
            raise ToolError(f"Case \"{info['name']}\" has an ingest job running ({busy[0].id}). "
                            f"Wait for it (get_job) or cancel it (cancel_job), then delete.")
        record = await _call(lambda: app.delete_case(info["id"]))
        if session.active_case == record.id:
            session.active_case = None
        return _result(f"Deleted case \"{record.name}\" and all its data.",
                       DeletedOut(deleted=True, case=record.name))

    @server.tool(title="Case details", annotations=_READ,
                 description="Details of a case: type, status, documents, pages, chunks and storage used.")
    @guarded
    async def get_case_info(case_name: CaseNameArg = None) -> Annotated[CallToolResult, CaseInfoOut]:
        def collect() -> tuple[dict[str, Any], int]:
            info = summary(case_id(case_name))
            return info, _dir_size(Path(info["directory"]))

        info, size = await _call(collect)
        return _result(render.case_info(info, size), CaseInfoOut(**info, storage_bytes=size))

    @server.tool(title="Close, archive or reopen a case", annotations=_IDEMPOTENT,
                 description="Set a case's status: closed or archived cases stay searchable but read-only; "
                             "active reopens them for ingesting.")
    @guarded
    async def set_case_status(
        status: Annotated[Literal["active", "closed", "archived"], Field(description="New status")],
        case_name: CaseNameArg = None,
    ) -> Annotated[CallToolResult, CaseOut]:
        def change() -> dict[str, Any]:
            record = app.set_status(case_id(case_name), CaseStatus(status))
            return summary(record.id)

        info = await _call(change)
        return _result(f"Case \"{info['name']}\" is now {info['status']}.", CaseOut(**info))

    # -- ingest -----------------------------------------------------------------------------------

    async def follow(job: Job, wait_seconds: float, ctx: Context) -> Job:
        deadline = time.monotonic() + wait_seconds
        last = ""
        while True:
            key = job.progress_key
            if key != last:
                last = key
                message = f"{job.current} ({job.stage})" if job.current else job.status
                await ctx.report_progress(job.done, total=job.total, message=message)
            left = deadline - time.monotonic()
            if job.finished or left <= 0:
                return job
            job = await anyio.to_thread.run_sync(service.jobs.wait, job.id, min(left, 1.0), None, last)

    def job_out(job: Job) -> JobOut:
        return JobOut(**job.to_json())

    @server.tool(title="Ingest document", annotations=_WRITE,
                 description="Add a document (PDF, DOCX, TXT, MD, RTF) to a case: extracts text with page, paragraph "
                             "and line positions, chunks it, computes embeddings and indexes it, all on this "
                             "computer. Waits up to wait_seconds, then returns a job id to check with get_job.")
    @guarded
    async def ingest_document(
        file_path: Annotated[str, Field(description="Absolute path to the file on this computer", min_length=1)],
        ctx: Context,
        case_name: CaseNameArg = None,
        force: Annotated[bool, Field(description="Re-ingest even if the same file is already in the case")] = False,
        wait_seconds: Annotated[int, Field(ge=0, le=50, description="How long to wait for the result")] = 40,
    ) -> Annotated[CallToolResult, JobOut]:
        path = Path(file_path).expanduser()

        def submit() -> Job:
            if not path.is_file():
                what = "a folder (use ingest_folder)" if path.is_dir() else "not found"
                raise ToolError(f"File {what}: {path}\n\nCheck that the path is correct and the file exists.")
            return service.submit_ingest(case_id(case_name), [path.resolve()], force, label=str(path))

        job = await follow(await _call(submit), wait_seconds, ctx)
        return _result(render.job(job.to_json()), job_out(job))

    @server.tool(title="Ingest folder", annotations=_WRITE,
                 description="Add every supported document in a folder to a case, in the background. Returns a job "
                             "id at once (or waits up to wait_seconds); get_job reports progress and the per-file "
                             "report.")
    @guarded
    async def ingest_folder(
        folder_path: Annotated[str, Field(description="Absolute path to the folder", min_length=1)],
        ctx: Context,
        recursive: Annotated[bool, Field(description="Include sub-folders")] = False,
        case_name: CaseNameArg = None,
        force: Annotated[bool, Field(description="Re-ingest files already in the case")] = False,
        wait_seconds: Annotated[int, Field(ge=0, le=50, description="How long to wait before returning")] = 0,
    ) -> Annotated[CallToolResult, JobOut]:
        folder = Path(folder_path).expanduser()

        def submit() -> Job:
            from casetrack.ingest.files import discover_files

            if not folder.is_dir():
                raise ToolError(f"Folder not found: {folder}\n\nCheck that the path is correct.")
            paths = [p.resolve() for p in discover_files(folder, recursive)]
            if not paths:
                more = "" if recursive else " Sub-folders are skipped unless recursive=true."
                raise ToolError(f"No supported files in {folder} (PDF, DOCX, TXT, MD, RTF).{more}")
            return service.submit_ingest(case_id(case_name), paths, force, label=str(folder))

        job = await follow(await _call(submit), wait_seconds, ctx)
        return _result(render.job(job.to_json()), job_out(job))

    @server.tool(title="Ingest job status", annotations=_READ,
                 description="Progress and per-file report of an ingest job; without job_id, the recent jobs. "
                             "wait_seconds waits for the job to finish (with progress).")
    @guarded
    async def get_job(
        ctx: Context,
        job_id: Annotated[str | None, Field(description="Job id from ingest_document / ingest_folder")] = None,
        wait_seconds: Annotated[int, Field(ge=0, le=50, description="Wait up to this long for it to finish")] = 0,
    ) -> Annotated[CallToolResult, JobListOut]:
        if job_id:
            job = await follow(await _call(lambda: service.jobs.get(job_id)), wait_seconds, ctx)
            return _result(render.job(job.to_json()), JobListOut(jobs=[job_out(job)]))
        jobs = service.jobs.recent()[:10]
        if not jobs:
            return _result("No ingest jobs yet.", JobListOut(jobs=[]))
        lines = [f"{j.id}: {j.case_name} - {j.status}, {j.done}/{j.total} files ({j.label})" for j in jobs]
        return _result("Recent ingest jobs:\n" + "\n".join(lines), JobListOut(jobs=[job_out(j) for j in jobs]))

    @server.tool(title="Cancel ingest job", annotations=_IDEMPOTENT,
                 description="Stop an ingest job after the file it is on; files already ingested stay.")
    @guarded
    async def cancel_job(
        job_id: Annotated[str, Field(description="Job id", min_length=1)],
    ) -> Annotated[CallToolResult, JobOut]:
        job = await _call(lambda: service.jobs.cancel(job_id))
        return _result(f"Cancelling job {job.id} ({job.done} of {job.total} files done).", job_out(job))

    # -- documents --------------------------------------------------------------------------------

    @server.tool(title="List documents", annotations=_READ, description="List the documents in a case with their type, pages, chunks and IDs.")
    @guarded
    async def list_documents(
        case_name: CaseNameArg = None,
        sort_by: Annotated[Literal["name", "date", "pages", "type"], Field(description="Sort order")] = "date",
    ) -> Annotated[CallToolResult, DocumentListOut]:
        def collect() -> tuple[str, list[dict[str, Any]]]:
            cid = case_id(case_name)
            return app.registry.get(cid).name, app.list_documents(cid, sort_by)

        name, docs = await _call(collect)
        return _result(render.documents(name, docs), DocumentListOut(case=name, documents=docs))

    @server.tool(title="Document details", annotations=_READ,
                 description="Details of one document: pages, chunks, extraction, pages needing OCR, source file.")
    @guarded
    async def get_document(
        document_name: Annotated[str, Field(description="Document name or ID", min_length=1)],
        case_name: CaseNameArg = None,
    ) -> Annotated[CallToolResult, DocumentOut]:
        def collect() -> dict[str, Any]:
            cid = case_id(case_name)
            return {"case": app.registry.get(cid).name, **app.document_details(cid, document_name)}

        d = await _call(collect)
        return _result(render.document(d), DocumentOut(**d))

    @server.tool(title="Delete document", annotations=_DESTRUCTIVE,
                 description="Remove a document with all its chunks, embeddings and index entries from a case. "
                             "The original file is not touched. Requires confirm=true.")
    @guarded
    async def delete_document(
        document_name: Annotated[str, Field(description="Document name or ID to delete", min_length=1)],
        confirm: Annotated[bool, Field(description="Must be true to confirm deletion")] = False,
        case_name: CaseNameArg = None,
    ) -> Annotated[CallToolResult, DeletedOut]:
        def run() -> tuple[str, str]:
            cid = case_id(case_name)
            case = app.registry.get(cid).name
            doc = app.document_details(cid, document_name)
            if not confirm:
                raise ToolError(f"Deletion requires confirm=true. This will remove \"{doc['name']}\" "
                                f"({doc.get('chunks', 0)} chunks) from case \"{case}\". The original file is not touched.")
            if any(j.case_id == cid for j in service.jobs.active()):
                raise ToolError(f"Case \"{case}\" has an ingest job running. Wait for it (get_job), then delete.")
            app.delete_document(cid, doc["document_id"])
            return case, doc["name"]

        case, name = await _call(run)
        return _result(f"Removed \"{name}\" from {case}.", DeletedOut(deleted=True, case=case, document=name))

    # -- search -----------------------------------------------------------------------------------

    @server.tool(title="Search case", annotations=_READ,
                 description="Search all documents of a case with keyword and semantic search. Every result "
                             "carries its citation (document, page, paragraph, lines) and a chunk_id for get_chunk.")
    @guarded
    async def search_case(
        query: Annotated[str, Field(description="Question or keywords, e.g. 'What are the termination provisions?'",
                                    min_length=1, max_length=2000)],
        top_k: Annotated[int, Field(ge=1, le=50, description="Number of results to return")] = 10,
        document_filter: Annotated[str | None, Field(
            description="Only search this document (name or ID)")] = None,
        case_name: CaseNameArg = None,
        offset: Annotated[int, Field(ge=0, le=500, description="Skip this many results (next page)")] = 0,
        context: Annotated[bool, Field(description="Add the end of the previous and start of the next passage")] = False,
        by_document: Annotated[bool, Field(description="Also rank whole documents (which document says X?)")] = False,
    ) -> Annotated[CallToolResult, SearchOut]:
        def run() -> tuple[dict[str, Any], str]:
            from casetrack.search.output import response_json

            cid = case_id(case_name)
            response = app.search(cid, query, top_k=top_k, documents=[document_filter] if document_filter else None,
                                  offset=offset, context_chars=300 if context else 0, per_document=by_document)
            info = app.case_summary(cid)
            stats = f"{info['document_count']} documents, {info['chunk_count']:,} chunks searched"
            return response_json(response), stats

        out, stats = await _call(run)
        return _result(render.search(out, stats), SearchOut(**out))

    @server.tool(title="Get passage", annotations=_READ,
                 description="A passage (chunk) in full by its chunk_id from search_case, with its citation and the "
                             "neighbouring passages before and after it.")
    @guarded
    async def get_chunk(
        chunk_id: Annotated[str, Field(description="chunk_id from a search result", min_length=1)],
        neighbours: Annotated[int, Field(ge=0, le=5, description="Passages to include before and after")] = 1,
        case_name: CaseNameArg = None,
    ) -> Annotated[CallToolResult, ChunkOut]:
        def run() -> dict[str, Any]:
            cid = case_id(case_name)
            return {"case": app.registry.get(cid).name, **app.get_chunk(cid, chunk_id, neighbours)}

        c = await _call(run)
        return _result(render.chunk(c), ChunkOut(**c))

    @server.tool(title="Find entity", annotations=_READ,
                 description="Find every mention of a name, court, statute or case citation across a case's "
                             "documents: exact matches and close variants (OCR errors, spelling, accents).")
    @guarded
    async def find_entity(
        entity: Annotated[str, Field(description="e.g. 'Judge Smith', '42 USC 1983', 'Miranda v. Arizona'",
                                     min_length=1, max_length=300)],
        entity_type: Annotated[Literal["person", "court", "statute", "case_citation", "organization", "any"],
                               Field(description="Type of entity")] = "any",
        top_k: Annotated[int, Field(ge=1, le=100, description="Most mentions to return")] = 20,
        case_name: CaseNameArg = None,
    ) -> Annotated[CallToolResult, EntityOut]:
        def run() -> dict[str, Any]:
            cid = case_id(case_name)
            return {"case": app.registry.get(cid).name, **app.find_entity(cid, entity, entity_type, top_k)}

        out = await _call(run)
        return _result(render.entities(out), EntityOut(**out))

    # -- status -----------------------------------------------------------------------------------

    @server.tool(title="CaseTrack status", annotations=_READ,
                 description="CaseTrack version, active case, memory mode, models and what they are used for, and "
                             "the daemon's state (RAM, jobs).")
    @guarded
    async def get_status() -> Annotated[CallToolResult, StatusOut]:
        def collect() -> dict[str, Any]:
            s = app.status()
            s["daemon"] = service.daemon_status()
            s["daemon"]["log"] = str(service.settings.logs_dir / "daemon.log")
            active = None
            if session.active_case:
                try:
                    active = app.registry.get(session.active_case).name
                except CaseNotFoundError:
                    session.active_case = None
            s["active_case"] = active
            return s

        s = await _call(collect)
        return _result(render.status(s), StatusOut(**s))

    return server


def _dir_size(path: Path) -> int:
    total = 0
    for p in path.rglob("*"):
        try:
            if p.is_file():
                total += p.stat().st_size
        except OSError:
            continue
    return total

