"""Portable case tools: export a case to one .ctcase archive, import one (or a copied case folder).

Both paths are checked like ingest paths (privacy_fs.check_allowed): under an allowed root, outside
system and hidden folders and outside CaseTrack's data folder. The work runs on a worker thread
and reports MCP progress (bytes verified / unpacked, documents re-embedded).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field

from casetrack.mcp.context import WRITE, CaseNameArg, ToolSet, call, result, tool_context
from casetrack.mcp.schemas import CaseOut
from casetrack.mcp.tools_ingest import allowed_path

tools = ToolSet()

_STAGES = {
    "export": "exporting",
    "verify": "verifying checksums",
    "unpack": "unpacking",
    "copy": "copying",
    "reembed": "re-embedding",
}


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class ExportOut(_Out):
    case: str
    path: str
    bytes: int
    members: int
    documents: int
    chunks: int
    sources: int
    sources_included: bool
    warnings: list[str] = []
    seconds: float = 0.0


class ImportOut(_Out):
    case: CaseOut
    source: str
    kind: str
    documents: int
    chunks: int
    sources: int
    models_differed: dict[str, str] = {}
    reembedded: list[dict[str, Any]] = []
    warnings: list[str] = []
    seconds: float = 0.0


class _Progress:
    """Forwards the operation's progress from its worker thread as MCP progress notifications
    (at most a few a second, and every change of stage)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.last = (0.0, "")

    def __call__(self, stage: str, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if stage == self.last[1] and now - self.last[0] < 0.25 and done < total:
            return
        self.last = (now, stage)
        report = functools.partial(
            self.ctx.report_progress,
            done,
            total=max(total, 1),
            message=f"{_STAGES.get(stage, stage)}: {Path(what).name}",
        )
        anyio.from_thread.run(report)


@tools.tool(
    "Export case",
    WRITE,
    "Write a case to one portable .ctcase archive file: documents' metadata, chunks, vectors, keyword index "
    "and (unless include_sources=false) the original files, with a SHA-256 of every part. To hand a case to "
    "a colleague or keep it as a file; import_case adds it back. The file is readable only by this user.",
)
async def export_case(
    destination_path: Annotated[
        str,
        Field(
            description="Absolute path of the archive to write, e.g. /Users/ana/Cases/smith.ctcase",
            min_length=1,
        ),
    ],
    ctx: Context,
    case_name: CaseNameArg = None,
    include_sources: Annotated[bool, Field(description="Include the original files")] = True,
    overwrite: Annotated[bool, Field(description="Replace the file if it exists")] = False,
) -> Annotated[CallToolResult, ExportOut]:
    from casetrack.app.portable import export_case as export

    tc = tool_context(ctx)
    progress = _Progress(ctx)

    def run() -> dict[str, Any]:
        record = tc.case(case_name)
        dest = allowed_path(tc, Path(destination_path).expanduser())
        return export(tc.host.app, record.id, dest, include_sources, overwrite, progress).to_json()

    out = await call(run)
    lines = [
        f'Exported case "{out["case"]}" to {out["path"]}: {out["documents"]} documents, {out["chunks"]:,} '
        f"chunks, {out['sources']} original files, {out['bytes'] / 1e6:.1f} MB."
    ]
    lines += [f"Warning: {w}" for w in out["warnings"]]
    return result("\n".join(lines), ExportOut(**out))


@tools.tool(
    "Import case",
    WRITE,
    "Add a case from a .ctcase archive (made by export_case or `casetrack case export`), or from a case "
    "folder copied from another CaseTrack data folder. Every checksum is verified before anything is "
    "written; the case gets a new id (and new_name if given); it is re-embedded when this computer's models "
    "differ. The imported case becomes the active case.",
)
async def import_case(
    source_path: Annotated[
        str, Field(description="Absolute path of the .ctcase file or case folder", min_length=1)
    ],
    ctx: Context,
    new_name: Annotated[
        str | None,
        Field(
            description="Name for the imported case (default: the name it had); needed when that name is taken"
        ),
    ] = None,
) -> Annotated[CallToolResult, ImportOut]:
    from casetrack.app.portable import import_case as do_import

    tc = tool_context(ctx)
    progress = _Progress(ctx)

    def run() -> dict[str, Any]:
        source = allowed_path(tc, Path(source_path).expanduser())
        out = do_import(tc.host.app, source, new_name, progress).to_json()
        out["case"] = tc.summary(out["case"]["id"])
        return out

    out = await call(run)
    tc.session.active_case = out["case"]["id"]
    out["case"]["active"] = True
    case = out["case"]
    lines = [
        f'Imported case "{case["name"]}" ({out["documents"]} documents, {out["chunks"]:,} chunks, '
        f"{out['sources']} original files); it is now the active case."
    ]
    if out["models_differed"]:
        lines.append(
            f"This computer's models differ from the archive's ({', '.join(sorted(out['models_differed']))}): "
            f"{len(out['reembedded'])} documents were re-embedded."
        )
    lines += [f"Warning: {w}" for w in out["warnings"]]
    return result("\n".join(lines), ImportOut(**out))
