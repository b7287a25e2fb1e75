"""build_evidence_table through the SDK's in-memory client over a real Service (tests/mcp_tools.py):
rows with their pin-cites and progress, a CSV written where allowed, and its refusals. The .xlsx
file and the folders it may not write to are tests/test_evidence_table.py's."""

from __future__ import annotations

import csv
import stat
from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import CASE, HOSTING, LEASE, WRITE, Host, Progress, data, error, hints, open_host
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body

NOTICE = "How much notice ends the lease?"
FEE = "What is the monthly hosting fee?"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "table") as opened:
        yield opened


def test_the_tool_keeps_its_parameters_and_writes_nothing_destructive(host: Host) -> None:
    tool = host.tools()["build_evidence_table"]
    assert params(tool) == {
        "questions",
        "case_name",
        "per_question",
        "by_document",
        "output_path",
        "overwrite",
    }
    assert hints(tool) == WRITE and tool.input_schema["required"] == ["questions"]
    assert tool.input_schema["properties"]["questions"]["maxItems"] == 100


def test_rows_cite_each_answer_and_a_csv_is_written_private(host: Host) -> None:
    progress = Progress()
    target = host.files / "chronology.csv"

    async def script(client: Client) -> tuple[CallToolResult, ...]:
        args = {"questions": [NOTICE, FEE], "case_name": CASE, "per_question": 1}
        table = await client.call_tool("build_evidence_table", args, progress_callback=progress)
        written = await client.call_tool("build_evidence_table", {**args, "output_path": str(target)})
        return table, written

    table, written = host.run(script)
    out = data(table)
    assert (out["case"], out["questions"], out["written_to"]) == (CASE, 2, None)
    assert [(r["question"], r["rank"], r["citation"]) for r in out["rows"]] == [
        (NOTICE, 1, f"{LEASE}, para. 4, ll. 8-9"),
        (FEE, 1, f"{HOSTING.name}, p. 1, para. 15, ll. 24-26"),
    ]
    assert out["rows"][1]["page"] == 1 and out["rows"][1]["lines"] == "24-26"
    assert out["columns"][:3] == ["question", "rank", "citation"]
    label = out["rows"][0]["match"]  # the text shows each row's label as its data does
    assert label in ("strong", "good", "weak") and out["rows"][0]["no_good_match"] is False
    assert f"Q: {NOTICE}" in body(table) and f'1. {LEASE}, para. 4, ll. 8-9 [{label}]: "Either party' in body(
        table
    )
    assert [(done, total) for done, total, _ in progress.seen] == [(0, 2), (1, 2), (2, 2)]
    assert progress.seen[0][2] == f"searching: {NOTICE}" and progress.seen[-1][2] == "done"

    assert data(written)["written_to"] == str(target) and f"Written to {target}" in body(written)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    with target.open(encoding="utf-8-sig", newline="") as f:  # the BOM: Excel reads it as UTF-8
        rows = list(csv.DictReader(f))
    assert [(r["question"], r["citation"]) for r in rows] == [
        (r["question"], r["citation"]) for r in out["rows"]
    ]


def test_blank_questions_and_a_format_it_cannot_write_are_refused(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        blank = await client.call_tool("build_evidence_table", {"questions": ["  "], "case_name": CASE})
        pdf = await client.call_tool(
            "build_evidence_table",
            {"questions": [NOTICE], "case_name": CASE, "output_path": str(host.files / "table.pdf")},
        )
        return blank, pdf

    blank, pdf = host.run(script)
    assert "Every question is blank" in error(blank) and "build_evidence_table again" in error(blank)
    assert ".pdf is not a table format CaseTrack writes" in error(pdf) and ".csv, .xlsx, .docx" in error(pdf)
    assert not (host.files / "table.pdf").exists()
