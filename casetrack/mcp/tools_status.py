"""get_status: version, active case, memory mode, models and the daemon's state."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from casetrack.errors import CaseNotFoundError
from casetrack.mcp import render
from casetrack.mcp.context import READ, ToolSet, call, result, tool_context
from casetrack.mcp.schemas import StatusOut

tools = ToolSet()


@tools.tool(
    "CaseTrack status",
    READ,
    "CaseTrack version, active case, memory mode, models and what they are used for, and the daemon's "
    "state (RAM, jobs).",
)
async def get_status(ctx: Context) -> Annotated[CallToolResult, StatusOut]:
    tc = tool_context(ctx)

    def collect() -> dict[str, Any]:
        daemon = {**tc.host.daemon_status(), "log": str(tc.host.settings.logs_dir / "daemon.log")}
        active = None
        if tc.session.active_case:
            try:
                active = tc.case_name(tc.session.active_case)
            except CaseNotFoundError:
                tc.session.active_case = None
        return {**tc.host.app.status(), "daemon": daemon, "active_case": active}

    s = await call(collect)
    return result(render.status(s), StatusOut(**s))
