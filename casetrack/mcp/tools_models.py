"""Model tools: download_models (the one tool that uses the network) and import_models (from a
folder, for computers without internet). Both run as daemon jobs, like ingests: a tool waits up
to `wait_seconds` (sending progress notifications), then returns the job id for get_job."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from casetrack.domain.views import MissingModelJson
from casetrack.errors import CaseTrackError
from casetrack.mcp import render
from casetrack.mcp.context import IDEMPOTENT, ToolContext, ToolSet, call, result, tool_context
from casetrack.mcp.host import JobView
from casetrack.mcp.schemas import JobOut
from casetrack.privacy_fs import check_allowed

tools = ToolSet()

# It reaches the model hub on the internet: clients show it as such and may ask the user first.
OPEN_WORLD = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)
MODEL_JOBS = ("download", "import")


class ModelsOut(BaseModel):
    """download_models / import_models: the job (None when there was nothing to do) and what
    the memory mode still lacks."""

    model_config = ConfigDict(extra="allow")
    job: JobOut | None = None
    missing: list[MissingModelJson] = []
    unpinned_skipped: list[str] = []  # missing models without pinned hashes, left out unless allow_unpinned


async def follow(tc: ToolContext, job: JobView, wait_seconds: float, ctx: Context) -> JobView:
    """Report the job's progress (models done plus the share of the current one's bytes) until
    it finishes or `wait_seconds` pass."""
    deadline = time.monotonic() + wait_seconds
    last = ""
    while True:
        key = job.progress_key
        if key != last:
            last = key
            data = job.to_json()
            share = min(float(data.get("fraction") or 0.0), 0.99) if not job.finished else 0.0
            message = f"{job.current}: {job.stage}" if job.current and job.stage else job.status
            await ctx.report_progress(job.done + share, total=job.total, message=message)
        left = deadline - time.monotonic()
        if job.finished or left <= 0:
            return job
        job = await anyio.to_thread.run_sync(tc.host.jobs.wait, job.id, min(left, 1.0), None, last)


def _running_models_job(tc: ToolContext, kind: str) -> JobView | None:
    return next((j for j in tc.host.jobs.active() if j.to_json().get("kind") == kind), None)


def _answer(job: JobView | None, out: ModelsOut, note: str = "") -> CallToolResult:
    text = render.models_job(job.to_json()) if job is not None else ""
    return result("\n\n".join(t for t in (note, text) if t), out)


@tools.tool(
    "Download models",
    OPEN_WORLD,
    "Download the search models this computer is missing from the model hub (the only CaseTrack tool that "
    "uses the internet), at pinned versions with checked SHA-256, in the background; an interrupted download "
    "continues where it stopped. Without models, what get_status lists as missing. Waits up to "
    "wait_seconds, then returns a job id for get_job. Search uses the models as soon as they are installed.",
)
async def download_models(
    ctx: Context,
    models: Annotated[
        list[str] | None,
        Field(
            description="Catalog model ids or slots (E1, E6, E7, E12); default: what the memory mode uses and is "
            "missing",
            max_length=8,
        ),
    ] = None,
    language: Annotated[
        Literal["en", "pt", "mixed"] | None,
        Field(
            description="Case language the E1 model must cover: en (English-only model), pt or mixed (multilingual); "
            "default: both"
        ),
    ] = None,
    allow_unpinned: Annotated[
        bool,
        Field(
            description="Also download models the catalog does not pin (no known hashes; the commit is recorded)"
        ),
    ] = False,
    wait_seconds: Annotated[int, Field(ge=0, le=50, description="How long to wait for the result")] = 40,
) -> Annotated[CallToolResult, ModelsOut]:
    tc = tool_context(ctx)

    def submit() -> tuple[JobView | None, ModelsOut, str]:
        from casetrack.app.models_check import missing_models, pick_models
        from casetrack.embed.production import load_catalog

        settings = tc.host.app.settings
        catalog = load_catalog(settings.model_catalog)
        missing = missing_models(tc.host.app.pool, catalog, language)
        running = _running_models_job(tc, "download")
        if running is not None:
            return (
                running,
                ModelsOut(job=JobOut(**running.to_json()), missing=missing),
                "A download is already running.",
            )
        skipped: list[str] = []
        if models:
            try:
                wanted = [m.id for m in pick_models(catalog, models, language or "mixed")]
            except ValueError as e:
                raise ToolError(f"{e}.\n\nCall download_models() without models for what is missing.") from e
        else:
            wanted = [m["model"] for m in missing if m["pinned"] or allow_unpinned]
            skipped = [m["model"] for m in missing if not (m["pinned"] or allow_unpinned)]
        out = ModelsOut(missing=missing, unpinned_skipped=skipped)
        if not wanted:
            return None, out, render.nothing_to_download(missing, skipped)
        job = tc.host.submit_models(
            "download", wanted, f"download {', '.join(wanted)}", {"allow_unpinned": allow_unpinned}
        )
        return job, out, render.unpinned_note(skipped)

    job, out, note = await call(submit)
    if job is not None:
        job = await follow(tc, job, wait_seconds, ctx)
        out.job = JobOut(**job.to_json())
        if job.finished:
            out.missing = await call(lambda: _missing_now(tc, language))
    return _answer(job, out, note)


def _missing_now(tc: ToolContext, language: str | None) -> list[MissingModelJson]:
    from casetrack.app.models_check import missing_models
    from casetrack.embed.production import load_catalog

    return missing_models(tc.host.app.pool, load_catalog(tc.host.app.settings.model_catalog), language)


@tools.tool(
    "Import models",
    IDEMPOTENT,
    "Install search models from a folder on this computer, for computers without internet: CaseTrack model "
    "folders (each with a model.json) or files downloaded from the model hub on another computer. Every "
    "file is checked before anything is installed. Search uses the models as soon as they are installed.",
)
async def import_models(
    ctx: Context,
    folder_path: Annotated[
        str, Field(description="Absolute path to the folder holding the model files", min_length=1)
    ],
    model_id: Annotated[
        str | None,
        Field(description="Which catalog model hub files are, when CaseTrack cannot tell from their SHA-256"),
    ] = None,
    wait_seconds: Annotated[int, Field(ge=0, le=50, description="How long to wait for the result")] = 40,
) -> Annotated[CallToolResult, ModelsOut]:
    tc = tool_context(ctx)
    folder = Path(folder_path).expanduser()

    def submit() -> JobView:
        settings = tc.host.app.settings
        try:
            real = check_allowed(
                folder, settings.allowed_roots, settings.home_dir, private=(settings.data_dir,)
            )
        except CaseTrackError as e:
            raise ToolError(
                f"{e.message}\n\nCopy the model folder into one of those folders, or install it from "
                f'a terminal: casetrack models import "{folder}"'
            ) from e
        if not real.is_dir():
            raise ToolError(f"Folder not found: {folder}\n\nCheck that the path is correct.")
        options: dict[str, Any] = {"model_id": model_id} if model_id else {}
        return tc.host.submit_models("import", [str(real)], f"import {folder}", options)

    job = await follow(tc, await call(submit), wait_seconds, ctx)
    return _answer(job, ModelsOut(job=JobOut(**job.to_json())))
