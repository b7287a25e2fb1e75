"""The query audit log: who, when, which case, which tool, how many results, how fast — never
the question unless the user turns that on; rotated; `casetrack audit` reads it back. Real CLI,
and a real MCP client (the daemon records the client's name)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import anyio
import pytest

from casetrack.app.audit import KEEP_FILES, AuditLog
from tests.cli_runner import run
from tests.daemon_util import daemon_stopped_after, data

SECRET_QUESTION = "what did the CFO admit about the hidden ledger"


@pytest.fixture
def case(tmp_path: Path) -> str:
    (tmp_path / "memo.txt").write_text("The CFO admitted that a second ledger was kept off the books.\n")
    run("case", "create", "Ledger")
    run("ingest", "--case", "Ledger", str(tmp_path / "memo.txt"))
    return "Ledger"


def test_searches_are_audited_without_the_question(home: Path, case: str) -> None:
    run("search", "--case", case, SECRET_QUESTION)
    run(
        "verify",
        "--case",
        case,
        "--quote",
        "a second ledger was kept off the books",
        "--cite",
        "memo.txt",
        ok=False,
    )
    entries = json.loads(run("audit", "--case", case, "--json").stdout)
    assert [e["tool"] for e in entries] == ["search", "verify_citation"]
    first = entries[0]
    assert first["client"] == "cli" and first["case"] == case and first["results"] >= 1 and first["ms"] > 0
    log = home / "logs" / "audit.log"
    assert (
        "cfo" not in log.read_text().lower() and "off the books" not in log.read_text()
    )  # no question, no quote
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert case in run("audit").output and "search" in run("audit").output


def test_questions_are_kept_only_when_asked_for(
    home: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASETRACK_AUDIT_QUERIES", "1")
    run("search", "--case", case, SECRET_QUESTION)
    assert json.loads(run("audit", "--json").stdout)[-1]["query"] == SECRET_QUESTION


def test_the_log_rotates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("casetrack.app.audit.ROTATE_BYTES", 400)
    log = AuditLog(tmp_path / "audit.log")
    for i in range(60):
        log.record("cli", "Ledger", "search", i, 1.0)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["audit.log"] + [f"audit.log.{i}" for i in range(1, KEEP_FILES + 1)]
    assert log.read(last=5)[-1]["results"] == 59  # newest last


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_claude_is_named_as_the_client(home: Path, case: str, mode: str) -> None:
    from mcp.client import Client
    from mcp.types import Implementation

    from tests.daemon_util import serve_params

    async def main() -> None:
        async with Client(
            serve_params(home),
            mode=mode,
            read_timeout_seconds=120,
            client_info=Implementation(name="claude-code", version="2.1"),
        ) as client:
            found = await client.call_tool("search_case", {"query": SECRET_QUESTION, "case_name": case})
            assert data(found)["results"]

    with daemon_stopped_after(home):
        anyio.run(main)
    entries = json.loads(run("audit", "--json").stdout)
    assert (entries[-1]["tool"], entries[-1]["client"]) == ("search", "Claude Code"), entries[-1]
