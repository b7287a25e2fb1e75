"""The MCP server of one session: the SDK's `MCPServer` with every tool group registered.

Every case-scoped tool takes an optional `case_name` (name or id); without it the session's
active case is used (set by create_case / switch_case), so a conversation never depends on state
it cannot see. User mistakes come back as tool errors that name the next tool call; unexpected
failures are logged and reported without ending the session or the daemon. A tool is added by
writing it in its group's module (`tools_*.py`) under `@tools.tool(...)`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server import MCPServer

from casetrack import __version__
from casetrack.mcp import (
    tools_cases,
    tools_chronology,
    tools_documents,
    tools_ingest,
    tools_models,
    tools_portable,
    tools_search,
    tools_status,
    tools_table,
    tools_verify,
    tools_view,
)
from casetrack.mcp.context import SessionState, ToolContext, ToolDef
from casetrack.mcp.host import ToolHost
from casetrack.mcp.prompts import PROMPTS

__all__ = ["INSTRUCTIONS", "TOOLS", "SessionState", "build_server"]

INSTRUCTIONS = (
    "CaseTrack searches a lawyer's case documents on this computer and cites every passage "
    "(document, page, paragraph, lines). Work in a case: list_cases / switch_case / create_case, "
    "then ingest_document or ingest_folder, then search_case. For a question in plain words, give "
    "search_case keywords and likely_wording too (how the documents would word the answer); a pasted "
    "quote or a citation needs neither. Quote the citation given with each result, check a quote with "
    "verify_citation first, and say so when no_good_match is true. Any case-scoped tool also accepts "
    "case_name."
)

# Every tool, in the order clients list them.
TOOLS: tuple[ToolDef, ...] = (
    *tools_cases.tools.tools,
    *tools_portable.tools.tools,
    *tools_ingest.tools.tools,
    *tools_documents.tools.tools,
    *tools_search.tools.tools,
    *tools_verify.tools.tools,
    *tools_view.tools.tools,
    *tools_table.tools.tools,
    *tools_chronology.tools.tools,
    *tools_status.tools.tools,
    *tools_models.tools.tools,
)


def build_server(host: ToolHost, session: SessionState) -> MCPServer[ToolContext]:
    """One session's server: its tools see `ToolContext(host, session)` as the lifespan state."""
    state = ToolContext(host, session)

    @asynccontextmanager
    async def lifespan(_server: MCPServer[ToolContext]) -> AsyncIterator[ToolContext]:
        yield state

    server: MCPServer[ToolContext] = MCPServer(
        "casetrack", version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan
    )
    for tool in TOOLS:
        server.add_tool(
            tool.fn,
            title=tool.title,
            description=tool.description,
            annotations=tool.annotations,
            meta=tools_view.tool_meta(tool.fn.__name__),  # the page view of the citing tools (MCP Apps)
        )
    tools_view.register_view(server)
    for prompt in PROMPTS:
        server.add_prompt(prompt)
    return server
