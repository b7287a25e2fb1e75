"""build_chronology through the SDK's in-memory client over a real Service (tests/mcp_tools.py):
its parameters and read-only hints, the events of CASE sorted with their pin-cites (the hearing
memo's March 3 and June 10, 2024; the BANGI hosting agreement's term, its "03/01/05" page header
left out), paging, and its errors with the fix as a tool call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import CASE, HOSTING, MEMO, READ, Host, data, error, hints, open_host
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "chronology") as opened:
        yield opened


def test_the_tool_is_read_only_with_its_parameters(host: Host) -> None:
    tool = host.tools()["build_chronology"]
    assert params(tool) == {"case_name", "date_from", "date_to", "documents", "query", "offset", "max_events"}
    assert hints(tool) == READ and tool.output_schema is not None
    assert "required" not in tool.input_schema or not tool.input_schema["required"]
    assert tool.input_schema["properties"]["max_events"]["maximum"] == 500


def test_events_are_sorted_and_pin_cited(host: Host) -> None:
    out = data(host.call("build_chronology", {"case_name": CASE}))
    assert (out["case"], out["documents"], out["total"], out["shown"]) == (CASE, 3, 4, 4)
    assert [(e["date"], e["document"], e["date_text"]) for e in out["events"]] == [
        ("2005-03-01", HOSTING.name, "March 1, 2005"),
        ("2006-02-28", HOSTING.name, "February 28, 2006"),
        ("2024-03-03", MEMO, "March 3, 2024"),
        ("2024-06-10", MEMO, "June 10, 2024"),
    ]
    heard = out["events"][2]
    assert (
        heard["sentence"] == "Judge Smith heard the Tenant's motion to enjoin the eviction on March 3, 2024."
    )
    assert heard["citation"] == f"{MEMO}, para. 2, l. 3" and heard["precision"] == "day"
    assert heard["source"]["line_start"] == 3 and heard["chunk_id"]
    assert out["undated_documents"] == ["lease.txt"]  # "(2005)" is a citation's year, not an event
    text = body(host.call("build_chronology", {"case_name": CASE}))
    assert f"- 2024-03-03 — {MEMO}, para. 2, l. 3" in text and "4 dated events in 3 documents" in text


def test_dates_documents_and_paging(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        dated = await client.call_tool("build_chronology", {"case_name": CASE, "date_from": "2024-01-01"})
        memo = await client.call_tool("build_chronology", {"case_name": CASE, "documents": [MEMO]})
        paged = await client.call_tool("build_chronology", {"case_name": CASE, "offset": 1, "max_events": 2})
        return dated, memo, paged

    dated, memo, paged = host.run(script)
    assert [e["date"] for e in data(dated)["events"]] == ["2024-03-03", "2024-06-10"]
    assert data(dated)["date_from"] == "2024-01-01"
    assert (data(memo)["documents"], data(memo)["total"]) == (1, 2)
    page = data(paged)
    assert (page["total"], page["shown"], page["offset"]) == (4, 2, 1)
    assert [e["date"] for e in page["events"]] == ["2006-02-28", "2024-03-03"]
    assert "call build_chronology again with offset=3" in body(paged)


def test_errors_name_the_fix(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        bad = await client.call_tool("build_chronology", {"case_name": CASE, "date_from": "March 2024"})
        unknown = await client.call_tool("build_chronology", {"case_name": CASE, "documents": ["nosuch.pdf"]})
        return bad, unknown

    bad, unknown = host.run(script)
    assert "'March 2024' is not a day written YYYY-MM-DD" in error(bad)
    assert 'build_chronology(date_from="2021-01-01")' in error(bad)
    assert "nosuch.pdf" in error(unknown)
