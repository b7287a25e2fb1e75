"""The CLI's requests to the daemon: one JSON request line, event lines, one final line.

Request `{"op": ..., "args": {...}}`; the daemon answers with any number of `{"event": ...}`
lines and then `{"result": ...}` or `{"error": {"message", "hint"}}`.
Ops: `ingest` (submit a job; with `follow`, stream its progress until it ends), `job`, `status`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from casetrack.daemon.service import Service
from casetrack.errors import CaseTrackError

log = logging.getLogger(__name__)

Send = Callable[[dict[str, Any]], Awaitable[None]]


async def handle_rpc(service: Service, request: dict[str, Any], send: Send) -> None:
    op = request.get("op")
    args = request.get("args") or {}
    try:
        if op == "ingest":
            await _ingest(service, args, send)
        elif op == "job":
            job = await anyio.to_thread.run_sync(
                lambda: service.jobs.wait(str(args["id"]), float(args.get("wait", 0)))
            )
            await send({"result": job.to_json()})
        elif op == "status":
            await send({"result": await anyio.to_thread.run_sync(service.daemon_status)})
        else:
            await send({"error": {"message": f"Unknown request {op!r}.", "hint": "Upgrade the CLI and the daemon together."}})
    except CaseTrackError as e:
        await send({"error": {"message": e.message, "hint": e.hint}})
    except (KeyError, TypeError, ValueError) as e:
        await send({"error": {"message": f"Malformed request: {e}", "hint": None}})


async def _ingest(service: Service, args: dict[str, Any], send: Send) -> None:
    paths = [Path(p) for p in args.get("paths", [])]
    job = await anyio.to_thread.run_sync(
        lambda: service.submit_ingest(
            str(args["case"]), paths, bool(args.get("force")), str(args.get("label") or ""), args.get("password")
        )
    )
    await send({"event": {"job": job.to_json()}})
    if not args.get("follow"):
        await send({"result": job.to_json()})
        return
    last = ""
    while True:
        job = await anyio.to_thread.run_sync(service.jobs.wait, job.id, 0.5, None, last)
        key = job.progress_key
        if key != last:
            last = key
            if not job.finished:
                await send({"event": {"job": job.to_json()}})
        if job.finished:
            await send({"result": job.to_json()})
            return
