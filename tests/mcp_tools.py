"""The MCP tool groups through the SDK's in-memory client (tests/test_mcp_tools_*.py).

A real daemon `Service` (real models, LanceDB, tantivy; the job worker started) runs in this
process behind `build_server`; the SDK's `Client` talks to it over memory streams with the
`initialize` handshake and JSON-RPC framing (mode "legacy": the SDK's `InMemoryTransport`), so
schemas, structured content, tool errors and progress notifications go through the protocol as
Claude's do. No daemon process, no socket, no network. The daemon path end to end stays in
tests/test_mcp_e2e.py.

A small English case (CASE: a lease and a hearing memo written here, and a two-page hosting
agreement from ../shared/data) is ingested once per test process; each module opens a `Service` over its own copy of it (`open_host`), so a module may
change its case freely and what it lists stays exact.
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, Tool

from casetrack.app import CaseTrack
from casetrack.config import Settings, resolve_settings
from casetrack.daemon.service import Service
from casetrack.mcp.server import SessionState, build_server
from tests.conftest import DATA, MODELS, require

T = TypeVar("T")

CASE = "Lease Dispute"
LEASE = "lease.txt"
MEMO = "hearing_memo.md"
HOSTING = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
LEASE_TEXT = """RESIDENTIAL LEASE AGREEMENT

This lease is made between Harbor Point Properties LLC (the Landlord) and Maria Alvarez (the Tenant).

1. Rent. The Tenant shall pay rent of $1,850 per month, due on the first day of each month,
by bank transfer to the account the Landlord names in writing.

2. Termination. Either party may terminate this lease with sixty (60) days written notice
to the other party.

3. Security deposit. The Landlord shall return the security deposit of $3,700 within thirty
days after the Tenant moves out, less the cost of repairs beyond normal wear and tear.

4. Governing law. This lease is governed by the laws of the State of New York; the parties
rely on Kelo v. City of New London, 545 U.S. 469 (2005), and on 42 U.S.C. § 3604.
"""
MEMO_TEXT = """# Hearing memo

Judge Smith heard the Tenant's motion to enjoin the eviction on March 3, 2024.

The Landlord's counsel asked for more time to answer; Judge Smith refused and set the trial
for June 10, 2024.
"""
TERMINATION = "Either party may terminate this lease with sixty (60) days written notice"


class Progress:
    """A progress callback that keeps what it gets: (progress, total, message) per notification."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))


def tool_settings(data: Path, files: Path) -> Settings:
    """A data directory with the shared model pack; tools may read and write under `files` only."""
    return resolve_settings(
        data, MODELS, environ={}, install_models=None, allowed_roots=[files], home_dir=files
    )


def write_documents(folder: Path) -> list[Path]:
    """The case's documents in `folder`: the lease, the memo and the hosting agreement."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LEASE).write_text(LEASE_TEXT, encoding="utf-8")
    (folder / MEMO).write_text(MEMO_TEXT, encoding="utf-8")
    shutil.copy(require(HOSTING), folder / HOSTING.name)
    return [folder / LEASE, folder / MEMO, folder / HOSTING.name]


def built_case(factory: pytest.TempPathFactory) -> Path:
    """The data directory holding CASE, ingested on first use in this test process."""
    root = factory.getbasetemp() / "mcp-tools-case"
    data, done = root / "data", root / "ingested"
    if done.exists():
        return data
    root.mkdir(exist_ok=True)
    documents = write_documents(root / "documents")
    app = CaseTrack(tool_settings(data, root / "documents"))
    try:
        app.create_case(CASE, "contract", "en")
        results = app.ingest(CASE, documents)
        assert [r.status for r in results] == ["ingested"] * len(documents), [r.error for r in results]
    finally:
        app.close()
    done.touch()
    return data


@dataclass(frozen=True)
class Host:
    """A module's started `Service` over its copy of CASE, and the folder tools may use."""

    service: Service
    files: Path
    data: Path

    def run(self, script: Callable[[Client], Awaitable[T]]) -> T:
        """`script` with a client of a new MCP session (no active case yet)."""

        async def main() -> T:
            async with Client(build_server(self.service, SessionState()), mode="legacy") as client:
                return await script(client)

        return anyio.run(main)

    def call(self, name: str, args: dict[str, Any] | None = None) -> CallToolResult:
        """One tool call in a session of its own."""

        async def script(client: Client) -> CallToolResult:
            return await client.call_tool(name, args or {})

        return self.run(script)

    def tools(self) -> dict[str, Tool]:
        async def script(client: Client) -> dict[str, Tool]:
            return {t.name: t for t in (await client.list_tools()).tools}

        return self.run(script)


@contextmanager
def open_host(factory: pytest.TempPathFactory, name: str) -> Iterator[Host]:
    """A started Service over a private copy of CASE (the job worker runs; closed after)."""
    root = factory.mktemp(name)
    shutil.copytree(built_case(factory), root / "data")
    files = root / "files"
    files.mkdir()
    service = Service(tool_settings(root / "data", files))
    service.start()
    try:
        yield Host(service, files, root / "data")
    finally:
        service.close()


def text(result: CallToolResult) -> str:
    """The readable text of a result (what Claude reads)."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def data(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful result."""
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return dict(result.structured_content)


def error(result: CallToolResult) -> str:
    """The text of a tool error (a result, not a protocol error: the model reads it)."""
    assert result.is_error, result
    return text(result)


def parameters(tool: Tool) -> set[str]:
    return set(tool.input_schema.get("properties", {}))


def hints(tool: Tool) -> tuple[bool | None, bool | None, bool | None, bool | None]:
    """(read-only, destructive, idempotent, open-world) as the client sees them."""
    ann = tool.annotations
    assert ann is not None, tool.name
    return ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint


READ = (True, False, True, False)
WRITE = (False, False, False, False)
IDEMPOTENT = (False, False, True, False)
DESTRUCTIVE = (False, True, True, False)
