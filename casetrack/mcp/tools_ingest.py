"""Ingest tools: one document, a folder, job status and cancel. Ingests run as daemon jobs: a
tool waits up to `wait_seconds` (sending progress notifications), then returns the job id."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from casetrack.domain.document import READABLE_TYPES
from casetrack.mcp import render
from casetrack.mcp.context import (
    IDEMPOTENT,
    READ,
    WRITE,
    CaseNameArg,
    ToolContext,
    ToolSet,
    call,
    result,
    tool_context,
)
from casetrack.mcp.host import JobView
from casetrack.mcp.schemas import JobListOut, JobOut
from casetrack.privacy_fs import check_allowed

tools = ToolSet()


async def follow(tc: ToolContext, job: JobView, wait_seconds: float, ctx: Context) -> JobView:
    """Report the job's progress until it finishes or `wait_seconds` pass."""
    deadline = time.monotonic() + wait_seconds
    last = ""
    while True:
        key = job.progress_key
        if key != last:
            last = key
            message = f"{job.current} ({job.stage})" if job.current else job.status
            await ctx.report_progress(job.done + _page_share(job.stage), total=job.total, message=message)
        left = deadline - time.monotonic()
        if job.finished or left <= 0:
            return job
        job = await anyio.to_thread.run_sync(tc.host.jobs.wait, job.id, min(left, 1.0), None, last)


def _page_share(stage: str | None) -> float:
    """How far the current file's pages are read ("parse 3/10" -> 0.3, shown as part of a file:
    a long scan moves the progress bar page by page); 0 in other stages."""
    if not stage or not stage.startswith("parse "):
        return 0.0
    done, _, total = stage.removeprefix("parse ").partition("/")
    try:
        return min(int(done) / int(total), 0.99) if int(total) > 1 else 0.0
    except ValueError:
        return 0.0


def writable_case(tc: ToolContext, case_name: str | None) -> str:
    """The id of the case an ingest goes to; a closed case says so before any path is looked at."""
    record = tc.case(case_name)
    record.require_writable()
    return record.id


def allowed_path(tc: ToolContext, path: Path) -> Path:
    """The real path of a file or folder Claude asked for, if it is under an allowed root and
    outside system folders, hidden folders and the data directory (privacy_fs.check_allowed)."""
    settings = tc.host.app.settings
    return check_allowed(path, settings.allowed_roots, settings.home_dir, private=(settings.data_dir,))


def job_out(job: JobView) -> JobOut:
    return JobOut(**job.to_json())


@tools.tool(
    "Ingest document",
    WRITE,
    f"Add a document ({READABLE_TYPES}; scanned pages are OCR'd; an e-mail's attachments become documents of "
    "their own) to a case: "
    "extracts text with page, paragraph and line "
    "positions, chunks it, computes embeddings and indexes it, all on this computer. Waits up to "
    "wait_seconds, then returns a job id to check with get_job.",
)
async def ingest_document(
    file_path: Annotated[str, Field(description="Absolute path to the file on this computer", min_length=1)],
    ctx: Context,
    case_name: CaseNameArg = None,
    force: Annotated[
        bool, Field(description="Re-ingest even if the same file is already in the case")
    ] = False,
    wait_seconds: Annotated[int, Field(ge=0, le=50, description="How long to wait for the result")] = 40,
) -> Annotated[CallToolResult, JobOut]:
    tc = tool_context(ctx)
    path = Path(file_path).expanduser()

    def submit() -> JobView:
        case = writable_case(tc, case_name)
        real = allowed_path(tc, path)  # before looking at it: a refusal says nothing of what exists
        if not real.is_file():
            what = "a folder (use ingest_folder)" if real.is_dir() else "not found"
            raise ToolError(f"File {what}: {path}\n\nCheck that the path is correct and the file exists.")
        return tc.host.submit_ingest(case, [real], force, label=str(path))

    job = await follow(tc, await call(submit), wait_seconds, ctx)
    return result(render.job(job.to_json()), job_out(job))


@tools.tool(
    "Ingest folder",
    WRITE,
    "Add every supported document in a folder to a case, in the background. Returns a job id at once (or "
    "waits up to wait_seconds); get_job reports progress and the per-file report.",
)
async def ingest_folder(
    folder_path: Annotated[str, Field(description="Absolute path to the folder", min_length=1)],
    ctx: Context,
    recursive: Annotated[bool, Field(description="Include sub-folders")] = False,
    case_name: CaseNameArg = None,
    force: Annotated[bool, Field(description="Re-ingest files already in the case")] = False,
    wait_seconds: Annotated[int, Field(ge=0, le=50, description="How long to wait before returning")] = 0,
) -> Annotated[CallToolResult, JobOut]:
    tc = tool_context(ctx)
    folder = Path(folder_path).expanduser()

    skipped: list[dict[str, str]] = []

    def submit() -> JobView:
        from casetrack.ingest.files import scan_folder

        case = writable_case(tc, case_name)
        real = allowed_path(tc, folder)
        if not real.is_dir():
            raise ToolError(f"Folder not found: {folder}\n\nCheck that the path is correct.")
        # The walk follows links only to files inside the folder, so every file is under `real`.
        scan = scan_folder(real, recursive)
        skipped.extend({"name": s.name, "reason": s.reason, "hint": s.hint} for s in scan.skipped)
        paths = [p.resolve() for p in scan.files]
        if not paths:
            more = "" if recursive else " Sub-folders are skipped unless recursive=true."
            raise ToolError(
                f"No supported files in {folder} ({READABLE_TYPES}).{more}" + render.skipped(skipped)
            )
        return tc.host.submit_ingest(case, paths, force, label=str(folder))

    job = await follow(tc, await call(submit), wait_seconds, ctx)
    out = job_out(job)
    out.skipped = skipped
    return result(render.job(job.to_json()) + render.skipped(skipped), out)


@tools.tool(
    "Ingest job status",
    READ,
    "Progress and per-file report of an ingest job; without job_id, the recent jobs. wait_seconds waits for "
    "the job to finish (with progress).",
)
async def get_job(
    ctx: Context,
    job_id: Annotated[str | None, Field(description="Job id from ingest_document / ingest_folder")] = None,
    wait_seconds: Annotated[int, Field(ge=0, le=50, description="Wait up to this long for it to finish")] = 0,
) -> Annotated[CallToolResult, JobListOut]:
    tc = tool_context(ctx)
    if job_id:
        job = await follow(tc, await call(lambda: tc.host.jobs.get(job_id)), wait_seconds, ctx)
        return result(render.job(job.to_json()), JobListOut(jobs=[job_out(job)]))
    jobs = list(tc.host.jobs.recent())[:10]
    if not jobs:
        return result("No ingest jobs yet.", JobListOut(jobs=[]))
    lines = [f"{j.id}: {j.case_name} - {j.status}, {j.done}/{j.total} files ({j.label})" for j in jobs]
    return result("Recent ingest jobs:\n" + "\n".join(lines), JobListOut(jobs=[job_out(j) for j in jobs]))


@tools.tool(
    "Cancel ingest job",
    IDEMPOTENT,
    "Stop an ingest job after the file it is on; files already ingested stay.",
)
async def cancel_job(
    ctx: Context,
    job_id: Annotated[str, Field(description="Job id", min_length=1)],
) -> Annotated[CallToolResult, JobOut]:
    tc = tool_context(ctx)
    job = await call(lambda: tc.host.jobs.cancel(job_id))
    return result(f"Cancelling job {job.id} ({job.done} of {job.total} files done).", job_out(job))
