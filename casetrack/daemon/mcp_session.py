"""One MCP session over one daemon connection (newline-delimited JSON-RPC, as on stdio).

`casetrack serve` relays Claude's stdio byte for byte, so this is the same wire format the SDK's
stdio transport speaks; the SDK's server loop serves both protocol eras (the 2026-07-28
per-request envelope and the older `initialize` handshake). Each session gets its own server
object and its own active case.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.server import MCPServer
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage

from casetrack.daemon.admission import SEND_TIMEOUT_S
from casetrack.daemon.endpoint import MAX_LINE
from casetrack.daemon.service import Service
from casetrack.mcp.server import SessionState, build_server

log = logging.getLogger(__name__)

_ENDED = (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError, anyio.BrokenResourceError)


async def run_mcp_session(
    service: Service, stream: anyio.abc.ByteStream, reader: BufferedByteReceiveStream
) -> None:
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def receive() -> None:
        async with read_writer:
            while True:
                try:
                    line = await reader.receive_until(b"\n", MAX_LINE)
                except _ENDED:
                    return
                if not line.strip():
                    continue
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except Exception as exc:  # the SDK answers a malformed message with an error
                    await read_writer.send(exc)
                    continue
                await read_writer.send(SessionMessage(message))

    async def send() -> None:
        async with write_reader:
            async for message in write_reader:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    with anyio.fail_after(SEND_TIMEOUT_S):
                        await stream.send(data.encode() + b"\n")
                except _ENDED:
                    return
                except TimeoutError:  # a client that reads nothing: its session ends, the daemon goes on
                    log.warning("connection dropped: an MCP client read nothing for %.0f s", SEND_TIMEOUT_S)
                    await stream.aclose()
                    return

    lowlevel = lowlevel_server(build_server(service, SessionState()))
    async with anyio.create_task_group() as tg:
        tg.start_soon(receive)
        tg.start_soon(send)
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
        tg.cancel_scope.cancel()


def lowlevel_server(server: MCPServer[Any]) -> Server[Any]:
    """The SDK's protocol server behind `server`, which serves any pair of streams.

    MCPServer offers no public way to serve other streams than stdio or HTTP, so this reads its
    one private attribute; pyproject pins the SDK to the minor version tested, and
    tests/test_mcp_session.py checks this seam, so an SDK upgrade that moves it fails there first.
    """
    lowlevel = getattr(server, "_lowlevel_server", None)
    if not isinstance(lowlevel, Server):
        raise RuntimeError(
            "The installed MCP SDK changed MCPServer's internals; CaseTrack pins mcp>=2.3,<2.4."
        )
    return lowlevel
