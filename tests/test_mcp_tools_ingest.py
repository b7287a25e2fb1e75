"""The ingest tools (ingest_document, ingest_folder, get_job, cancel_job) through the SDK's
in-memory client over a real Service (tests/mcp_tools.py): jobs on the daemon's worker, progress
notifications stage by stage, the per-file report, and the refusals that name what fixes them.
The same path through the daemon process is tests/test_mcp_e2e.py's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import IDEMPOTENT, READ, WRITE, Host, Progress, data, error, hints, open_host
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body

CASE = "Intake"  # a case of this module's own (the shared one stays as it is)
SALE = "The buyer shall pay the price in three instalments.\n\nDelivery is due on May 5, 2025.\n"
NOTES = "# Notes\n\nThe seller warrants good title to the goods.\n"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "ingest") as opened:
        inbox = opened.files / "inbox"
        (inbox / "sub").mkdir(parents=True)
        (inbox / "sale.txt").write_text(SALE, encoding="utf-8")
        (inbox / "sub" / "notes.md").write_text(NOTES, encoding="utf-8")
        (opened.files / "empty").mkdir()
        opened.call("create_case", {"name": CASE})
        yield opened


def test_the_ingest_tools_keep_their_parameters_and_annotations(host: Host) -> None:
    tools = host.tools()
    expected = {
        "ingest_document": ({"file_path", "case_name", "force", "wait_seconds"}, WRITE),
        "ingest_folder": ({"folder_path", "recursive", "case_name", "force", "wait_seconds"}, WRITE),
        "get_job": ({"job_id", "wait_seconds"}, READ),
        "cancel_job": ({"job_id"}, IDEMPOTENT),
    }
    for name, (parameters, expected_hints) in expected.items():
        assert (params(tools[name]), hints(tools[name])) == (parameters, expected_hints), name
    wait = tools["ingest_document"].input_schema["properties"]["wait_seconds"]
    assert (wait["minimum"], wait["maximum"], wait["default"]) == (0, 50, 40)
    assert tools["ingest_folder"].input_schema["properties"]["wait_seconds"]["default"] == 0


def test_a_document_is_ingested_with_progress_and_a_folder_as_a_job_to_follow(host: Host) -> None:
    inbox = host.files / "inbox"
    one = Progress()
    followed = Progress()

    async def script(client: Client) -> tuple[CallToolResult, ...]:
        await client.call_tool("switch_case", {"case_name": CASE})
        document = await client.call_tool(
            "ingest_document",
            {"file_path": str(inbox / "sale.txt"), "wait_seconds": 50},
            progress_callback=one,
        )
        queued = await client.call_tool("ingest_folder", {"folder_path": str(inbox), "recursive": True})
        job_id = data(queued)["id"]
        done = await client.call_tool(
            "get_job", {"job_id": job_id, "wait_seconds": 50}, progress_callback=followed
        )
        recent = await client.call_tool("get_job", {})
        cancelled = await client.call_tool("cancel_job", {"job_id": job_id})
        return document, queued, done, recent, cancelled

    document, queued, done, recent, cancelled = host.run(script)
    job = data(document)
    assert (job["case_name"], job["status"], job["done"], job["total"]) == (CASE, "done", 1, 1)
    result = job["results"][0]
    assert (result["name"], result["status"], result["file_type"], result["chunks"]) == (
        "sale.txt",
        "ingested",
        "text",
        1,
    )
    assert f"Ingest job {job['id']} for {CASE}: Finished (1 of 1 files)" in body(document)
    assert "These documents are now searchable: search_case(query=...)" in body(document)
    # Each change the tool sees while it waits, stage by stage (how many depends on the timing).
    stages = [m.removeprefix("sale.txt (") for _, _, m in one.seen if m and m.startswith("sale.txt (")]
    assert stages and all(s.startswith(("file ", "parse ", "embed ", "store ", "updating")) for s in stages)
    assert one.seen[-1] == (1, 1, "done") and [d for d, _, _ in one.seen] == sorted(d for d, _, _ in one.seen)

    assert data(queued)["total"] == 2 and data(queued)["status"] in ("queued", "running", "done")
    final = data(done)["jobs"][0]
    assert final["status"] == "done" and [(r["name"], r["status"]) for r in final["results"]] == [
        ("sale.txt", "duplicate"),
        ("notes.md", "ingested"),
    ]
    assert "Already in the case: sale.txt (force=true re-ingests)" in body(done)
    assert followed.seen and followed.seen[-1] == (2, 2, "done")  # what it saw of the job, to its end
    assert [j["id"] for j in data(recent)["jobs"]] == [final["id"], job["id"]]
    assert f"{final['id']}: {CASE} - done, 2/2 files" in body(recent)
    assert data(cancelled)["status"] == "done"  # a finished job stays finished


def test_what_cannot_be_ingested_says_what_to_do(host: Host) -> None:
    inbox = host.files / "inbox"

    async def script(client: Client) -> tuple[CallToolResult, ...]:
        no_case = await client.call_tool("ingest_document", {"file_path": str(inbox / "sale.txt")})
        await client.call_tool("switch_case", {"case_name": CASE})
        missing = await client.call_tool("ingest_document", {"file_path": str(inbox / "nope.txt")})
        folder = await client.call_tool("ingest_document", {"file_path": str(inbox)})
        system = await client.call_tool("ingest_document", {"file_path": "/etc/hostname"})
        empty = await client.call_tool("ingest_folder", {"folder_path": str(host.files / "empty")})
        unknown = await client.call_tool("get_job", {"job_id": "nope"})
        cancel = await client.call_tool("cancel_job", {"job_id": "nope"})
        await client.call_tool("create_case", {"name": "Closed matter"})
        await client.call_tool("set_case_status", {"status": "closed"})
        closed = await client.call_tool("ingest_folder", {"folder_path": str(inbox)})
        return no_case, missing, folder, system, empty, unknown, cancel, closed

    no_case, missing, folder, system, empty, unknown, cancel, closed = host.run(script)
    assert "No active case" in error(no_case) and "create_case" in error(no_case)
    assert f"File not found: {inbox / 'nope.txt'}" in error(missing)
    assert "use ingest_folder" in error(folder)
    assert "system folder /etc" in error(system) and "casetrack ingest --case NAME PATH" in error(system)
    assert "No supported files in" in error(empty) and "unless recursive=true" in error(empty)
    assert "No job with id 'nope'" in error(unknown) and "get_job" in error(unknown)
    assert "No job with id 'nope'" in error(cancel) and "get_job lists recent jobs" in error(cancel)
    assert 'set_case_status(case_name="Closed matter", status="active")' in error(closed)
