"""The document tools (list_documents, get_document, delete_document) through the SDK's
in-memory client over a real Service (tests/mcp_tools.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import (
    CASE,
    DESTRUCTIVE,
    HOSTING,
    LEASE,
    MEMO,
    READ,
    Host,
    data,
    error,
    hints,
    open_host,
)
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "documents") as opened:
        yield opened


def test_the_document_tools_keep_their_parameters_and_annotations(host: Host) -> None:
    tools = host.tools()
    assert params(tools["list_documents"]) == {"case_name", "sort_by", "near_duplicates"}
    assert params(tools["get_document"]) == {"document_name", "case_name"}
    assert params(tools["delete_document"]) == {"document_name", "confirm", "case_name"}
    assert hints(tools["list_documents"]) == hints(tools["get_document"]) == READ
    assert hints(tools["delete_document"]) == DESTRUCTIVE
    assert tools["delete_document"].input_schema["properties"]["confirm"]["default"] is False
    assert set(tools["list_documents"].input_schema["properties"]["sort_by"]["enum"]) >= {"name", "date"}


def test_list_and_details_as_data_and_text(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        await client.call_tool("switch_case", {"case_name": CASE})
        listed = await client.call_tool("list_documents", {"sort_by": "name"})
        details = await client.call_tool("get_document", {"document_name": "hosting"})
        typo = await client.call_tool("get_document", {"document_name": "leese"})
        return listed, details, typo

    listed, details, typo = host.run(script)
    out = data(listed)
    assert out["case"] == CASE
    assert [(d["name"], d["file_type"], d["chunks"]) for d in out["documents"]] == [
        (HOSTING.name, "pdf", 2),
        (MEMO, "markdown", 1),
        (LEASE, "text", 1),
    ]
    assert out["documents"][1]["doc_type"] == "motion" and out["documents"][1]["doc_date"] == "2024-03-03"
    assert f"Documents in {CASE} (3):" in body(listed) and f"ID: {out['documents'][2]['id']}" in body(listed)

    doc = data(details)
    assert (doc["case"], doc["name"], doc["pages"], doc["chunks"]) == (CASE, HOSTING.name, 2, 2)
    assert doc["source_exists"] is True and len(doc["sha256"]) == 64 and doc["doc_date"] == "2005-03-01"
    assert f"Document: {HOSTING.name} (ID: {doc['document_id']})" in body(
        details
    ) and "Pages:      2" in body(details)
    assert "Did you mean 'lease.txt'?" in error(typo) and f'list_documents(case_name="{CASE}")' in error(typo)


def test_delete_takes_only_a_whole_name_or_an_id(host: Host) -> None:
    # Issue 30: delete_document("memo", confirm=true) deleted "secret-memo.txt".
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        fragment = await client.call_tool(
            "delete_document", {"document_name": "memo", "case_name": CASE, "confirm": True}
        )
        other_case = await client.call_tool(
            "delete_document", {"document_name": "HEARING_MEMO.MD", "case_name": CASE, "confirm": True}
        )
        listed = await client.call_tool("list_documents", {"case_name": CASE})
        return fragment, other_case, listed

    fragment, spelled, listed = host.run(script)
    assert f"Did you mean '{MEMO}'" in error(fragment) and "nothing was deleted" in error(fragment)
    assert f'list_documents(case_name="{CASE}")' in error(fragment)
    assert f"Did you mean '{MEMO}'" in error(spelled)
    assert MEMO in [d["name"] for d in data(listed)["documents"]]


def test_delete_case_refuses_an_id_prefix(host: Host) -> None:
    case_id = host.service.app.registry.get(CASE).id

    async def script(client: Client) -> CallToolResult:
        return await client.call_tool("delete_case", {"case_name": case_id[:8], "confirm": True})

    refused = host.run(script)
    assert f"Did you mean '{CASE}' (id {case_id})" in error(refused) and "list_cases()" in error(refused)
    assert host.service.app.registry.get(case_id).name == CASE


def test_delete_needs_confirm_and_leaves_the_file(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        refused = await client.call_tool("delete_document", {"document_name": MEMO, "case_name": CASE})
        deleted = await client.call_tool(
            "delete_document", {"document_name": MEMO, "case_name": CASE, "confirm": True}
        )
        after = await client.call_tool("list_documents", {"case_name": CASE})
        again = await client.call_tool("get_document", {"document_name": MEMO, "case_name": CASE})
        return refused, deleted, after, again

    source = host.service.app.document_details(host.service.app.registry.get(CASE).id, MEMO)["source_path"]
    assert source is not None
    refused, deleted, after, again = host.run(script)
    assert "Deletion requires confirm=true" in error(refused) and "(1 chunks)" in error(refused)
    assert data(deleted) == {"deleted": True, "case": CASE, "document": MEMO}
    assert body(deleted) == f'Removed "{MEMO}" from {CASE}.'
    assert sorted(d["name"] for d in data(after)["documents"]) == [HOSTING.name, LEASE]
    assert "No document named" in error(again)
    assert Path(source).read_text(encoding="utf-8").startswith("# Hearing memo")  # the original stays
