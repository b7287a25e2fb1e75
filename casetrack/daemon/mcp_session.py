"""One MCP session over one daemon connection (newline-delimited JSON-RPC, as on stdio).

`casetrack serve` relays Claude's stdio byte for byte, so this is the same wire format the SDK's
stdio transport speaks; the SDK's server loop serves both protocol eras (the 2026-07-28
per-request envelope and the older `initialize` handshake). Each session gets its own server
object and its own active case.
"""

from __future__ import annotations

import logging

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

from casetrack.daemon.endpoint import MAX_LINE
from casetrack.daemon.service import Service

log = logging.getLogger(__name__)

_ENDED = (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError, anyio.BrokenResourceError)


async def run_mcp_session(service: Service, stream: anyio.abc.ByteStream, reader: BufferedByteReceiveStream) -> None:
    from casetrack.mcp.server import SessionState, build_server

    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)

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
                    await stream.send(data.encode() + b"\n")
                except _ENDED:
                    return

    server = build_server(service, SessionState())
    lowlevel = server._lowlevel_server
    async with anyio.create_task_group() as tg:
        tg.start_soon(receive)
        tg.start_soon(send)
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
        tg.cancel_scope.cancel()
