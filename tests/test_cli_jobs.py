"""`casetrack jobs list|show|cancel` against a real daemon: ingests handed to it by the CLI become
jobs, the CLI lists and shows them as the get_job tool does (the MCP SDK's client through
`casetrack serve`), and cancels a running one; real files, real models."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from casetrack.daemon.client import ensure_daemon
from tests.cli_runner import run, run_json
from tests.conftest import DATA, require
from tests.daemon_util import daemon_stopped_after, data, env_for, mcp_client, settings_for

LENER = DATA / "lener_br/raw_text"
CASE = "Caso Jobs"


def _files(folder: Path, names: list[str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        out.append(folder / name)
        shutil.copy(require(LENER / name), out[-1])
    return out


def _running_job(known: set[str], timeout: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for job in run_json("jobs", "list"):
            if job["id"] not in known and job["status"] == "running":
                return dict(job)
        time.sleep(0.2)
    raise AssertionError("the CLI's ingest never became a running job")


def _tools(home: Path, job_id: str, document: str) -> tuple[dict[str, Any], ...]:
    async def main() -> tuple[dict[str, Any], ...]:
        async with mcp_client(home) as client:
            one = data(await client.call_tool("get_job", {"job_id": job_id}))
            recent = data(await client.call_tool("get_job", {}))
            doc = data(await client.call_tool("get_document", {"document_name": document, "case_name": CASE}))
            return one, recent, doc

    return anyio.run(main)


@pytest.mark.slow  # a daemon, real models, six judgments ingested (~40 s on two busy cores)
def test_jobs_list_show_cancel_through_the_daemon(home: Path, tmp_path: Path) -> None:
    run("case", "create", CASE, "--language", "pt")
    small = _files(tmp_path / "one", ["RR474820145230056.txt"])
    batch = _files(
        tmp_path / "batch",
        ["Rcl3495STJ.txt", "AgRgSTJ1.txt", "HC10000170833503000.txt", "DespSEPLAGDF.txt", "EDAgRgTSE2.txt"],
    )
    with daemon_stopped_after(home):
        ensure_daemon(settings_for(home))
        # An ingest the CLI hands to the daemon is a job: listed, shown, and as get_job gives it.
        report = run_json("ingest", "--case", CASE, str(small[0]))
        assert report["summary"]["ingested"] == 1
        (done,) = run_json("jobs", "list")
        assert done["status"] == "done" and done["case_name"] == CASE and done["done"] == done["total"] == 1
        assert done["results"][0]["name"] == small[0].name and done["results"][0]["status"] == "ingested"
        shown = run_json("jobs", "show", done["id"])
        assert shown == done
        one, recent, doc = _tools(home, done["id"], small[0].name)
        # documents info, answered by the daemon (it runs), is get_document's answer.
        assert run_json("documents", "info", "--case", CASE, small[0].name) == doc
        # The tool's JobOut adds `skipped` (ingest_folder's folder walk report; [] elsewhere): the rest is equal.
        assert [j.pop("skipped") for j in (*one["jobs"], *recent["jobs"])] == [[], []]
        assert one["jobs"] == [shown] and recent["jobs"] == [done]
        human = run("jobs", "show", done["id"]).stdout
        assert human.startswith(f"Job {done['id']}: done") and f"ingested   {small[0].name}" in human

        # A running job is cancelled after the file it is on; the files done stay.
        proc = subprocess.Popen(
            [sys.executable, "-m", "casetrack", "ingest", "--case", CASE, *map(str, batch)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env_for(home),
        )
        try:
            running = _running_job({done["id"]})
            assert running["case_name"] == CASE and running["total"] == len(batch)
            assert f"{running['id']}  running" in run("jobs", "list").stdout
            said = run("jobs", "cancel", running["id"]).stdout
            assert (
                said.startswith(f"Cancelling job {running['id']}") and "files already ingested stay" in said
            )
            out, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert f"as job {running['id']}" in err
        cancelled = run_json("jobs", "show", running["id"])
        assert cancelled["status"] == "cancelled" and cancelled["done"] < cancelled["total"], cancelled
        docs = run_json("documents", "list", "--case", CASE)
        assert len(docs) == 1 + cancelled["done"]  # no half-written document
        again = run("jobs", "cancel", running["id"]).stdout
        assert again.startswith(f"Job {running['id']} had already finished: cancelled")
        assert [j["id"] for j in run_json("jobs", "list", "--all")] == [running["id"], done["id"]]

        missing = run("jobs", "show", "nope", ok=False)
        assert missing.exit_code == 1 and "No job with id 'nope'" in missing.output
        assert "casetrack jobs list --all" in missing.output
