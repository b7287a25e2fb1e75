"""The soak of bench/soak.py, short (issue 30): three MCP clients searching, one ingesting, one
deleting and waves of 300 idle connections against a daemon limited to 256 descriptors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.soak import run_soak
from tests.conftest import DATA, require


@pytest.mark.slow  # ~2 min: 30 s of clients, plus the case built and five `casetrack serve` started
@pytest.mark.skipif(os.name != "posix", reason="descriptor limits and Unix sockets")
def test_a_short_soak_loses_nothing_and_the_daemon_never_exits(tmp_path: Path) -> None:
    require(DATA / "lener_br/raw_text")
    report = run_soak(30, fd_limit=256, flood=300, root=tmp_path)
    assert report["daemon_exits"] == 0 and len(report["daemon_pids_seen"]) == 1, report
    assert report["lost_documents"] == [] and report["deleted_but_present"] == [], report
    assert report["documents_at_end"] == report["expected_at_end"], report
    assert report["searches"] > 10 and report["search_ms"]["p95"] is not None, report
    assert report["ingested"] >= 1 and report["flood_connections"] >= 300, report
    assert report["log_tracebacks"] == 0 and not [e for e in report["errors"] if not e.startswith("flood")], (
        report
    )
