"""The CLI's requests to the daemon: one JSON request line, event lines, one final line.

Request `{"op": ..., "args": {...}}`; the daemon answers with any number of `{"event": ...}`
lines and then `{"result": ...}` or `{"error": {"message", "hint"}}`.
Ops: `ingest` (submit a job; with `follow`, stream its progress until it ends), `job` (one job;
`wait` seconds for it to finish), `jobs` (recent jobs, newest first; `all`), `cancel_job`, `status`,
and the CLI's read commands (`daemon/reads.py`: `search`, `get_chunk`, `find_entity`, ...), answered
with exactly what the command's `--json` prints.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from casetrack.daemon.reads import READS, run_read
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
            job_id = _job_id(service, args)
            job = await anyio.to_thread.run_sync(
                lambda: service.jobs.wait(job_id, float(args.get("wait", 0)))
            )
            await send({"result": job.to_json()})
        elif op == "jobs":  # newest first: the 10 most recent (as get_job with no id), or all
            jobs = service.jobs.recent()
            await send({"result": [j.to_json() for j in (jobs if args.get("all") else jobs[:10])]})
        elif op == "cancel_job":
            await send({"result": service.jobs.cancel(_job_id(service, args)).to_json()})
        elif op == "status":
            await send({"result": await anyio.to_thread.run_sync(service.daemon_status)})
        elif isinstance(op, str) and op in READS:
            await send({"result": await anyio.to_thread.run_sync(lambda: _read(service, op, args))})
        else:
            await send(
                {
                    "error": {
                        "message": f"Unknown request {op!r}.",
                        "hint": "Upgrade the CLI and the daemon together.",
                    }
                }
            )
    except CaseTrackError as e:
        await send({"error": {"message": e.message, "hint": e.hint}})
    except (KeyError, TypeError, ValueError) as e:
        await send({"error": {"message": f"Malformed request: {e}", "hint": None}})


def _job_id(service: Service, args: dict[str, Any]) -> str:
    """The id of a job the daemon knows, or the error a person can act on."""
    job_id = str(args["id"]).strip()
    if job_id not in {j.id for j in service.jobs.recent()}:
        raise CaseTrackError(
            f"No job with id '{job_id}' in this daemon.", "List the jobs: casetrack jobs list --all"
        )
    return job_id


def _read(service: Service, op: str, args: dict[str, Any]) -> Any:
    """A read on a worker thread; a failure that is not the user's is logged here and reported
    with the log's place (the CLI shows it instead of a traceback it cannot get from here)."""
    try:
        return run_read(service.app, op, args)
    except CaseTrackError:
        raise
    except Exception as e:
        log.exception("read request %s failed", op)
        raise CaseTrackError(
            f"The CaseTrack daemon failed while running {op}: {type(e).__name__}: {e}",
            f"See its log ({service.settings.logs_dir / 'daemon.log'}); restart it: casetrack daemon stop",
        ) from e


async def _ingest(service: Service, args: dict[str, Any], send: Send) -> None:
    paths = [Path(p) for p in args.get("paths", [])]
    job = await anyio.to_thread.run_sync(
        lambda: service.submit_ingest(
            str(args["case"]),
            paths,
            bool(args.get("force")),
            str(args.get("label") or ""),
            args.get("password"),
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
