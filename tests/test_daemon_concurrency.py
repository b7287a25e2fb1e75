"""Claude Desktop, Claude Code and a paralegal's CLI at once against one data directory, and a
daemon killed with -9 in the middle of a job."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from casetrack.daemon.endpoint import RuntimePaths, read_info
from tests.conftest import DATA, require
from tests.daemon_util import cli, daemon_stopped_after, data, finished, mcp_client, settings_for, text

LENER = DATA / "lener_br/raw_text"


def _lener_files(dest: Path, start: int, count: int) -> list[Path]:
    dest.mkdir(parents=True)
    small = sorted(require(LENER).glob("*.txt"), key=lambda p: (p.stat().st_size, p.name))
    chosen = [p.name for p in small[start : start + count]]
    for name in chosen:
        shutil.copy(LENER / name, dest / name)
    return sorted(dest.iterdir())


@pytest.mark.slow  # ~25 s: three clients ingesting and searching through one daemon
def test_two_serve_clients_and_a_cli_ingest_at_once(home: Path, tmp_path: Path) -> None:
    folder_a = _lener_files(tmp_path / "a", 0, 3)
    folder_b = _lener_files(tmp_path / "b", 20, 3)
    outputs: list[str] = []

    async def main() -> None:
        async with mcp_client(home) as desktop, mcp_client(home, mode="legacy") as code:
            data(await desktop.call_tool("create_case", {"name": "Concorrência", "language": "pt"}))
            first = await finished(
                desktop, data(await desktop.call_tool("ingest_document", {"file_path": str(folder_a[0])}))
            )
            assert first["status"] == "done"
            cli_result: dict[str, Any] = {}
            searches: list[int] = []

            async def paralegal() -> None:
                proc = await anyio.to_thread.run_sync(
                    lambda: cli(
                        home, "ingest-folder", "--case", "Concorrência", str(tmp_path / "b"), "--json"
                    )
                )
                cli_result["proc"] = proc

            async def desktop_ingests() -> None:
                job = data(await desktop.call_tool("ingest_folder", {"folder_path": str(tmp_path / "a")}))
                cli_result["job"] = await finished(desktop, job, rounds=10, wait_seconds=30)

            async def code_searches() -> None:
                for query in [
                    "recurso de apelação",
                    "dano moral",
                    "honorários advocatícios",
                    "prescrição",
                ] * 3:
                    found = await code.call_tool("search_case", {"query": query, "case_name": "Concorrência"})
                    outputs.append(text(found))
                    searches.append(len(data(found)["results"]))

            async with anyio.create_task_group() as tg:
                tg.start_soon(paralegal)
                tg.start_soon(desktop_ingests)
                tg.start_soon(code_searches)

            proc = cli_result["proc"]
            outputs.extend([proc.stdout, proc.stderr])
            assert proc.returncode == 0, proc.stderr
            report = json.loads(proc.stdout)
            assert report["summary"]["ingested"] == 3 and report["summary"]["errors"] == 0, report
            assert "job" in proc.stderr  # it went through the daemon
            job = cli_result["job"]
            assert job["status"] == "done", job  # a failed job says why (message, hint)
            assert sorted(r["status"] for r in job["results"]) == ["duplicate", "ingested", "ingested"]
            assert len(searches) == 12 and searches[-1] > 0

            names = {p.name for p in folder_a + folder_b}
            for client in (desktop, code):
                docs = data(await client.call_tool("list_documents", {"case_name": "Concorrência"}))[
                    "documents"
                ]
                assert {d["name"] for d in docs} == names
            daemon = data(await code.call_tool("get_status", {}))["daemon"]
            # One process, models loaded once each, for three clients.
            assert daemon["model_loads"] == len(daemon["loaded_models"]) > 0
            assert daemon["sessions_total"] == 2

    with daemon_stopped_after(home):
        anyio.run(main)
    blob = "\n".join(outputs).lower()
    assert "locked" not in blob and "busy" not in blob and "internal error" not in blob


@pytest.mark.slow  # ~50 s: six real judgments ingested across a daemon restart
def test_kill_9_during_a_job_then_the_next_serve_resumes_it(home: Path, tmp_path: Path) -> None:
    files = _lener_files(tmp_path / "docs", 40, 6)
    settings = settings_for(home)

    async def main() -> None:
        async with mcp_client(home, mode="legacy") as first:
            data(await first.call_tool("create_case", {"name": "Interrompido", "language": "pt"}))
            job = data(await first.call_tool("ingest_folder", {"folder_path": str(tmp_path / "docs")}))
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                job = data(await first.call_tool("get_job", {"job_id": job["id"]}))["jobs"][0]
                if job["done"] >= 1 and job["status"] == "running":
                    break
                await anyio.sleep(0.1)
            assert job["status"] == "running", job
            info = read_info(RuntimePaths.of(settings))
            assert info is not None
            os.kill(info.pid, signal.SIGKILL)

            async with mcp_client(home) as second:  # the next `serve` restarts the daemon
                final = await finished(second, job, rounds=6)  # `job` was running when the daemon died
                assert final["status"] == "done" and final["resumed"] == 1, final
                assert {r["name"] for r in final["results"]} == {p.name for p in files}
                # The file cut off by the kill was rolled back and redone, or committed and now a duplicate.
                assert {r["status"] for r in final["results"]} <= {"ingested", "duplicate"}
                docs = data(await second.call_tool("list_documents", {"case_name": "Interrompido"}))[
                    "documents"
                ]
                assert sorted(d["name"] for d in docs) == sorted(p.name for p in files)
                info_after = data(await second.call_tool("get_case_info", {"case_name": "Interrompido"}))
                assert info_after["in_progress"] == [] and info_after["document_count"] == len(files)
                found = data(
                    await second.call_tool("search_case", {"query": "sentença", "case_name": "Interrompido"})
                )
                assert found["results"]

            # The first session survived too: its relay reconnected to the new daemon.
            listed = data(await first.call_tool("list_cases", {}))
            assert [c["name"] for c in listed["cases"]] == ["Interrompido"]

    with daemon_stopped_after(home):
        anyio.run(main)


@pytest.mark.slow  # ~70 s: two deletions in flight when the daemon is killed, two daemon starts
def test_a_deletion_that_finished_before_a_kill_is_reported_done(home: Path, tmp_path: Path) -> None:
    # Issue 30: after a kill, MCP said "please retry" for deletes that had completed.
    settings = settings_for(home)
    for name in ("done.txt", "kept.txt"):
        (tmp_path / name).write_text(f"The {name} memo: the hearing is on May 4.\n", encoding="utf-8")
    assert cli(home, "case", "create", "Kill", CASETRACK_CLI_DAEMON="never").returncode == 0
    files = [str(tmp_path / name) for name in ("done.txt", "kept.txt")]
    made = cli(home, "ingest", "--case", "Kill", *files, CASETRACK_CLI_DAEMON="never")
    assert made.returncode == 0, made.stderr

    async def delete_across_a_kill(client: Any, name: str, elsewhere: bool) -> Any:
        info = read_info(RuntimePaths.of(settings))
        assert info is not None
        os.kill(info.pid, signal.SIGSTOP)  # the request waits in the socket, unanswered
        answers: list[Any] = []

        async def ask() -> None:
            args = {"document_name": name, "confirm": True}
            try:
                answers.append(await client.call_tool("delete_document", args))
            except Exception as e:  # the SDK's MCPError: the relay's protocol error
                answers.append(e)

        async with anyio.create_task_group() as tg:
            tg.start_soon(ask)
            await anyio.sleep(1.0)
            if elsewhere:  # the deletion finishes; its answer never comes back
                done = await anyio.to_thread.run_sync(
                    lambda: cli(
                        home,
                        "documents",
                        "delete",
                        "--case",
                        "Kill",
                        name,
                        "--yes",
                        CASETRACK_CLI_DAEMON="never",
                    )
                )
                assert done.returncode == 0, done.stderr
            os.kill(info.pid, signal.SIGKILL)
        return answers[0]

    async def main() -> None:
        async with mcp_client(home, mode="legacy") as client:
            data(await client.call_tool("switch_case", {"case_name": "Kill"}))
            finished_first = await delete_across_a_kill(client, "done.txt", elsewhere=True)
            assert not finished_first.is_error, text(finished_first)
            assert '"done.txt" is no longer in Kill' in text(finished_first)
            assert data(finished_first) == {"deleted": True, "case": "Kill", "document": "done.txt"}
            lost = await delete_across_a_kill(client, "kept.txt", elsewhere=False)
            assert isinstance(lost, Exception) and "please retry" in str(lost)
            docs = data(await client.call_tool("list_documents", {"case_name": "Kill"}))["documents"]
            assert [d["name"] for d in docs] == ["kept.txt"]  # not deleted: a retry is right

    with daemon_stopped_after(home):
        anyio.run(main)
