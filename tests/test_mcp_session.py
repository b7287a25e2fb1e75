"""The daemon's MCP session over a socket, and the one SDK internal it relies on.

`daemon/mcp_session.py` serves an `MCPServer` over a Unix socket through the SDK's lowlevel
server (MCPServer has no public way to serve other streams). The SDK is pinned to a minor
version; these tests fail first if an upgrade moves that seam.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client
from mcp.server.lowlevel import Server

from casetrack.config import resolve_settings
from casetrack.daemon.mcp_session import lowlevel_server, run_mcp_session
from casetrack.daemon.service import Service
from casetrack.mcp.server import TOOLS, SessionState, build_server

pytestmark = pytest.mark.skipif(not hasattr(anyio, "create_unix_listener"), reason="needs Unix sockets")


@pytest.fixture
def service(tmp_path: Path) -> Any:
    svc = Service(resolve_settings(tmp_path / "data", tmp_path / "models", environ={}))
    yield svc
    svc.close()


def test_the_sdk_seam_is_where_we_expect_it(service: Service) -> None:
    lowlevel = lowlevel_server(build_server(service, SessionState()))
    assert isinstance(lowlevel, Server)
    assert callable(lowlevel.run) and callable(lowlevel.create_initialization_options)


def test_a_session_over_a_socket_lists_every_tool_and_answers_a_call(
    service: Service, tmp_path: Path
) -> None:
    path = str(tmp_path / "s.sock")

    async def exchange(
        stream: Any, reader: BufferedByteReceiveStream, message: dict[str, Any]
    ) -> dict[str, Any]:
        await stream.send(json.dumps(message).encode() + b"\n")
        while True:  # skip notifications (progress, logging)
            answer: dict[str, Any] = json.loads(await reader.receive_until(b"\n", 1 << 24))
            if answer.get("id") == message["id"]:
                return answer

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        listener = await anyio.create_unix_listener(path)
        async with anyio.create_task_group() as tg:

            async def serve_one() -> None:
                conn = await listener.accept()
                async with conn:
                    await run_mcp_session(service, conn, BufferedByteReceiveStream(conn))

            tg.start_soon(serve_one)
            with anyio.fail_after(60):
                client = await anyio.connect_unix(path)
                async with client:
                    reader = BufferedByteReceiveStream(client)
                    await exchange(
                        client,
                        reader,
                        {
                            "jsonrpc": "2.0",
                            "id": 1,
                            "method": "initialize",
                            "params": {
                                "protocolVersion": "2025-06-18",
                                "capabilities": {},
                                "clientInfo": {"name": "seam-test", "version": "0"},
                            },
                        },
                    )
                    await client.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
                    listed = await exchange(
                        client, reader, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
                    )
                    called = await exchange(
                        client,
                        reader,
                        {
                            "jsonrpc": "2.0",
                            "id": 3,
                            "method": "tools/call",
                            "params": {"name": "list_cases", "arguments": {}},
                        },
                    )
            tg.cancel_scope.cancel()
        await listener.aclose()
        return listed, called

    listed, called = anyio.run(main)
    assert [t["name"] for t in listed["result"]["tools"]] == [t.fn.__name__ for t in TOOLS]
    assert called["result"]["isError"] is False
    assert called["result"]["structuredContent"]["cases"] == []


def test_errors_name_the_next_tool_call_not_a_terminal_command(service: Service) -> None:
    async def main() -> list[str]:
        texts = []
        async with Client(build_server(service, SessionState())) as client:
            calls: list[tuple[str, dict[str, Any]]] = [
                ("get_case_info", {"case_name": "Nowhere"}),
                ("create_case", {"name": "Smith v. Jones"}),
                ("set_case_status", {"status": "closed"}),
                ("ingest_document", {"file_path": "/etc/hostname", "wait_seconds": 0}),
            ]
            for name, args in calls:
                r = await client.call_tool(name, args)
                texts.append(" ".join(c.text for c in r.content if hasattr(c, "text")))
        return texts

    missing, created, closed, ingest = anyio.run(main)
    assert 'Create one: create_case(name="Nowhere")' in missing and "casetrack case" not in missing
    assert "Created case" in created
    assert "is now closed" in closed
    assert 'Reopen it first: set_case_status(case_name="Smith v. Jones", status="active")' in ingest
    assert "casetrack case reopen" not in ingest
