"""Helpers for tests that run the real daemon: `casetrack serve` over stdio with the SDK's Client."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from casetrack.config import Settings, resolve_settings
from tests.conftest import MODELS


def settings_for(home: Path) -> Settings:
    return resolve_settings(home, MODELS, environ={})


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASETRACK_")}
    env["CASETRACK_ALLOWED_ROOTS"] = tempfile.gettempdir()  # the tests' files live there (MCP ingest)
    env.update(CASETRACK_HOME=str(home), CASETRACK_MODELS_DIR=str(MODELS), LANCEDB_LOG="error", **extra)
    return env


def serve_params(home: Path, **extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "casetrack", "serve", "--idle-exit", "0"],
        env=env_for(home, **extra),
    )


@asynccontextmanager
async def mcp_client(home: Path, mode: str = "auto", **extra: str) -> AsyncIterator[Client]:
    async with Client(serve_params(home, **extra), mode=mode, read_timeout_seconds=120) as client:
        yield client


def cli(home: Path, *args: str, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess[str]:
    """The real `casetrack` command in a subprocess (as a paralegal's terminal runs it)."""
    return subprocess.run(
        [sys.executable, "-m", "casetrack", *args],
        capture_output=True,
        text=True,
        env=env_for(home, **extra),
        timeout=timeout,
        check=False,
    )


@contextmanager
def daemon_stopped_after(home: Path) -> Iterator[None]:
    """Stop the data directory's daemon when the test ends (even when it fails)."""
    try:
        yield
    finally:
        from casetrack.daemon.client import stop_daemon

        stop_daemon(settings_for(home))


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return dict(result.structured_content)


async def finished(
    client: Any, job: dict[str, Any], progress_callback: Any = None, rounds: int = 10, wait_seconds: int = 50
) -> dict[str, Any]:
    """A job (as `ingest_document`, `ingest_folder` or `get_job` returned it) followed with get_job,
    at most `rounds` calls, until it ends. `ingest_document`'s own reply comes after at most 40 s,
    which a cold first ingest (a parse child, three or four models loaded, OCR) can outlast on a
    slow machine."""
    for _ in range(rounds):
        if job["status"] not in ("queued", "running"):
            return job
        job = data(
            await client.call_tool(
                "get_job",
                {"job_id": job["id"], "wait_seconds": wait_seconds},
                progress_callback=progress_callback,
            )
        )["jobs"][0]
    return job
