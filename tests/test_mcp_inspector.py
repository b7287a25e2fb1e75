"""The MCP Inspector CLI (npm @modelcontextprotocol/inspector, pinned in ci/inspector.sh) against
`casetrack serve`: an independent client lists the tools and runs a search with citations.

The first run installs the Inspector into .ci-cache/npm-inspector (needs the npm registry);
later runs use the cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.daemon_util import cli, daemon_stopped_after, env_for

SCRIPT = REPO / "ci/inspector.sh"
SAMPLE = REPO / "casetrack/samples/services_agreement.txt"
CASE = "Harbor v. Pine Street"


def inspector(home: Path, tmp_path: Path, *method: str, timeout: float) -> dict[str, Any]:
    target = [sys.executable, "-m", "casetrack", "--data-dir", str(home), "serve", "--idle-exit", "0"]
    # The Inspector keeps its state under ~/.mcp-inspector: give it a private HOME.
    fake_home = tmp_path / "inspector-home"
    fake_home.mkdir(exist_ok=True)
    env = env_for(home, HOME=str(fake_home))
    if "CASETRACK_CI_CACHE" in os.environ:  # env_for drops CASETRACK_* variables
        env["CASETRACK_CI_CACHE"] = os.environ["CASETRACK_CI_CACHE"]
    proc = subprocess.run(
        ["bash", str(SCRIPT), *target, *method],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, f"inspector failed ({proc.returncode}):\n{proc.stderr}\n{proc.stdout}"
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.mark.slow  # npm-installs the Inspector on a fresh machine; ~20 s even when cached
def test_inspector_lists_tools_and_searches_with_citations(home: Path, tmp_path: Path) -> None:
    created = cli(home, "case", "create", CASE, "--type", "contract")
    assert created.returncode == 0, created.stderr
    ingested = cli(home, "ingest", "--case", CASE, str(SAMPLE), "--json")
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout)["summary"]["ingested"] == 1

    with daemon_stopped_after(home):
        # The first call may install the Inspector (npm): allow for it.
        listed = inspector(home, tmp_path, "--method", "tools/list", timeout=600)
        tools = {t["name"]: t for t in listed["tools"]}
        assert {
            "search_case",
            "create_case",
            "ingest_document",
            "ingest_folder",
            "get_job",
            "get_chunk",
            "get_status",
            "list_cases",
            "list_documents",
            "delete_case",
        } <= set(tools)
        assert {"query", "top_k", "case_name"} <= set(tools["search_case"]["inputSchema"]["properties"])

        called = inspector(
            home,
            tmp_path,
            "--method",
            "tools/call",
            "--tool-name",
            "search_case",
            "--tool-arg",
            "query=termination notice",
            f"case_name={CASE}",
            "top_k=3",
            timeout=120,
        )
        assert not called.get("isError"), called
        body = "\n".join(block.get("text", "") for block in called["content"])
        assert "services_agreement.txt" in body and "Termination" in body
        results = called["structuredContent"]["results"]
        assert 1 <= len(results) <= 3  # top_k reached the server as an integer
        top = results[0]
        assert top["source"]["document"] == "services_agreement.txt"
        assert top["citation"].startswith("services_agreement.txt, ") and top["citation"] in body
        assert top["chunk_id"] in body
        assert "ninety (90) days" in top["text"]
