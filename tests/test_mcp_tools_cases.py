"""The case tools (create_case, list_cases, switch_case, get_case_info, set_case_status,
delete_case) through the SDK's in-memory client over a real Service (tests/mcp_tools.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import (
    CASE,
    DESTRUCTIVE,
    IDEMPOTENT,
    READ,
    WRITE,
    Host,
    data,
    error,
    hints,
    open_host,
)
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body

NEW = "Smith v. Jones"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "cases") as opened:
        yield opened


def test_the_case_tools_keep_their_parameters_and_annotations(host: Host) -> None:
    tools = host.tools()
    expected = {
        "create_case": ({"name", "case_type", "language"}, WRITE),
        "list_cases": ({"status_filter"}, READ),
        "switch_case": ({"case_name"}, IDEMPOTENT),
        "get_case_info": ({"case_name"}, READ),
        "set_case_status": ({"status", "case_name"}, IDEMPOTENT),
        "delete_case": ({"case_name", "confirm"}, DESTRUCTIVE),
    }
    for name, (parameters, expected_hints) in expected.items():
        assert (params(tools[name]), hints(tools[name])) == (parameters, expected_hints), name
        assert tools[name].output_schema is not None, name
    create = tools["create_case"].input_schema
    assert create["required"] == ["name"] and create["properties"]["language"]["enum"] == ["en", "pt"]
    assert "real_estate" in create["properties"]["case_type"]["enum"]


def test_create_switch_and_details_follow_the_sessions_active_case(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        created = await client.call_tool("create_case", {"name": NEW, "case_type": "civil", "language": "pt"})
        twice = await client.call_tool("create_case", {"name": NEW})
        wrong_type = await client.call_tool("create_case", {"name": "Other", "case_type": "litigation"})
        listed = await client.call_tool("list_cases", {})
        switched = await client.call_tool("switch_case", {"case_name": CASE.lower()})
        info = await client.call_tool("get_case_info", {})
        typo = await client.call_tool("switch_case", {"case_name": "Smith v Jnes"})
        return created, twice, wrong_type, listed, switched, info, typo

    created, twice, wrong_type, listed, switched, info, typo = host.run(script)
    new = data(created)
    assert (new["name"], new["type"], new["language"], new["status"]) == (NEW, "civil", "pt", "active")
    assert new["active"] is True and new["document_count"] == 0 and "Created case" in body(created)
    assert "already exists" in error(twice) and f'get_case_info(case_name="{NEW}")' in error(twice)
    assert "case_type" in error(wrong_type) and "real_estate" in error(wrong_type)

    cases = data(listed)
    assert cases["active_case"] == new["id"] and cases["status_filter"] == "active"
    assert sorted((c["name"], c["active"]) for c in cases["cases"]) == [(CASE, False), (NEW, True)]
    assert f"* {NEW} [ACTIVE] <-- current" in body(listed)

    assert data(switched)["name"] == CASE and body(switched).startswith(
        f'Switched to case "{CASE}" (3 documents'
    )
    details = data(info)
    assert (details["name"], details["document_count"], details["chunk_count"]) == (CASE, 3, 4)
    assert details["storage_bytes"] > 0 and len(details["documents"]) == 3
    assert f"Case: {CASE} (ID: {details['id']})" in body(info) and "Total: 2 pages, 4 chunks" in body(info)
    assert "No case named 'Smith v Jnes'" in error(typo) and "list_cases()" in error(typo)


def test_a_closed_case_leaves_the_active_list_and_a_deleted_one_the_session(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        await client.call_tool("create_case", {"name": "Closing"})
        closed = await client.call_tool("set_case_status", {"status": "closed"})
        active = await client.call_tool("list_cases", {})
        every = await client.call_tool("list_cases", {"status_filter": "all"})
        refused = await client.call_tool("delete_case", {"case_name": "Closing"})
        deleted = await client.call_tool("delete_case", {"case_name": "Closing", "confirm": True})
        gone = await client.call_tool("get_case_info", {})
        return closed, active, every, refused, deleted, gone

    closed, active, every, refused, deleted, gone = host.run(script)
    assert data(closed)["status"] == "closed" and body(closed) == 'Case "Closing" is now closed.'
    assert "Closing" not in [c["name"] for c in data(active)["cases"]]
    assert ("Closing", "closed") in [(c["name"], c["status"]) for c in data(every)["cases"]]
    assert "[CLOSED]" in body(every)
    assert "Deletion requires confirm=true" in error(refused) and "0 documents" in error(refused)
    assert data(deleted) == {"deleted": True, "case": "Closing", "document": None}
    assert body(deleted) == 'Deleted case "Closing" and all its data.'
    assert "No active case" in error(gone) and "create_case" in error(gone)  # the session forgot it
