"""What every tool shares: the session's state, case resolution, error handling, results.

A tool is a module-level async function taking the SDK's `Context`; its session
(`ToolContext`: the host and this session's active case) is the server's lifespan state, so
tools hold no closures and no globals. `ToolSet` collects a group's tools declaratively.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar, cast

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from casetrack.domain.views import CaseSummary
from casetrack.errors import CaseNotFoundError, CaseTrackError
from casetrack.mcp import render
from casetrack.mcp.host import ToolHost
from casetrack.store.registry import CaseRecord

log = logging.getLogger(__name__)

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Awaitable[CallToolResult]])

CaseNameArg = Annotated[str | None, Field(description="Case name or ID (default: the active case)")]

READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
IDEMPOTENT = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)


@dataclass
class SessionState:
    """What one MCP session remembers: its active case (id), never persisted."""

    active_case: str | None = None


@dataclass(frozen=True)
class ToolContext:
    """One session's view of the host: the app, the jobs and the session's active case."""

    host: ToolHost
    session: SessionState

    def case(self, case_name: str | None) -> CaseRecord:
        """The case a tool works on: `case_name` if given, else the session's active case."""
        app = self.host.app
        if case_name and case_name.strip():
            return app.registry.get(case_name)
        if self.session.active_case is None:
            raise ToolError(render.NO_ACTIVE_CASE)
        try:
            return app.registry.get(self.session.active_case)
        except CaseNotFoundError as e:
            self.session.active_case = None
            raise ToolError(
                "The active case no longer exists (it was deleted).\n\n" + render.NO_ACTIVE_CASE
            ) from e

    def case_id(self, case_name: str | None) -> str:
        return self.case(case_name).id

    def summary(self, case: str) -> dict[str, Any]:
        """A case's summary plus whether it is this session's active case."""
        info: CaseSummary = self.host.app.case_summary(case)
        return {**info, "active": info["id"] == self.session.active_case}

    def case_name(self, case_id: str) -> str:
        return self.host.app.registry.get(case_id).name


def tool_context(ctx: Context) -> ToolContext:
    """The session behind a tool call (the server's lifespan state)."""
    return cast(ToolContext, ctx.request_context.lifespan_context)


async def call(fn: Callable[[], T]) -> T:
    """Run blocking work on a worker thread (`guarded` turns its errors into tool errors)."""
    return await anyio.to_thread.run_sync(fn)


def tool_error(e: CaseTrackError) -> ToolError:
    """A user-facing error as the model reads it, with its next step as a tool call."""
    hint = e.tool_hint
    return ToolError(f"{e.message}\n\n{hint}" if hint else e.message)


def guarded(fn: F) -> F:
    """Whatever goes wrong inside a tool comes back as a tool error the model can read."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
        try:
            return await fn(*args, **kwargs)
        except ToolError:
            raise
        except CaseTrackError as e:
            raise tool_error(e) from e
        except Exception as e:
            log.exception("tool %s failed", fn.__name__)
            raise ToolError(
                f"Internal error in {fn.__name__}: {type(e).__name__}: {e}. The daemon keeps running; "
                "its log (see get_status) has the details."
            ) from e

    return cast(F, wrapper)


def result(text: str, data: BaseModel) -> CallToolResult:
    """The readable text Claude reads plus the same facts as structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=data.model_dump(mode="json")
    )


@dataclass(frozen=True)
class ToolDef:
    fn: Callable[..., Awaitable[CallToolResult]]
    title: str
    description: str
    annotations: ToolAnnotations


@dataclass
class ToolSet:
    """One group's tools, registered where they are defined: `@tools.tool(...)`."""

    tools: list[ToolDef] = field(default_factory=list)

    def tool(self, title: str, annotations: ToolAnnotations, description: str) -> Callable[[F], F]:
        def register(fn: F) -> F:
            guarded_fn = guarded(fn)
            self.tools.append(ToolDef(guarded_fn, title, description, annotations))
            return guarded_fn

        return register


def client_of(ctx: Any) -> str:
    """Who is asking, for the audit log: the MCP client's name ("Claude Desktop", "Claude Code",
    ...) from its client info; "mcp" when it sent none."""
    from casetrack.app.audit import client_label

    try:
        params = ctx.session.client_params
        name = params.client_info.name if params is not None else None
    except (AttributeError, LookupError, ValueError):  # no request context (a direct call)
        name = None
    return client_label(name)
