"""The portable case tools (export_case, import_case) through the SDK's in-memory client over a
real Service (tests/mcp_tools.py): a case with documents out to a .ctcase file and back in under
another name, with progress, and the refusals that name the call that fixes them. The empty
case's round trip and a path outside the allowed folders are tests/test_case_archive.py's."""

from __future__ import annotations

import stat
from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import CASE, WRITE, Host, Progress, data, error, hints, open_host
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "portable") as opened:
        yield opened


def test_the_portable_tools_keep_their_parameters(host: Host) -> None:
    tools = host.tools()
    assert params(tools["export_case"]) == {"destination_path", "case_name", "include_sources", "overwrite"}
    assert params(tools["import_case"]) == {"source_path", "new_name"}
    assert hints(tools["export_case"]) == hints(tools["import_case"]) == WRITE
    assert tools["export_case"].input_schema["required"] == ["destination_path"]


def test_a_case_goes_out_and_comes_back_under_a_new_name(host: Host) -> None:
    archive = host.files / "lease.ctcase"
    exporting = Progress()
    importing = Progress()

    async def script(client: Client) -> tuple[CallToolResult, ...]:
        await client.call_tool("switch_case", {"case_name": CASE})
        exported = await client.call_tool(
            "export_case", {"destination_path": str(archive)}, progress_callback=exporting
        )
        again = await client.call_tool("export_case", {"destination_path": str(archive)})
        taken = await client.call_tool("import_case", {"source_path": str(archive)})
        imported = await client.call_tool(
            "import_case",
            {"source_path": str(archive), "new_name": "Lease copy"},
            progress_callback=importing,
        )
        listed = await client.call_tool("list_cases", {})
        return exported, again, taken, imported, listed

    exported, again, taken, imported, listed = host.run(script)
    out = data(exported)
    assert (out["case"], out["path"], out["documents"], out["chunks"], out["sources"]) == (
        CASE,
        str(archive),
        3,
        4,
        3,
    )
    assert out["sources_included"] is True and out["bytes"] == archive.stat().st_size
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    assert body(exported).startswith(
        f'Exported case "{CASE}" to {archive}: 3 documents, 4 chunks, 3 original files'
    )
    assert exporting.seen and all(m and m.startswith("exporting: ") for _, _, m in exporting.seen)
    assert exporting.seen[-1][0] == exporting.seen[-1][1]

    assert "already exists; it was left as it is" in error(again)
    assert f'export_case(case_name="{CASE}", destination_path="{archive}", overwrite=true)' in error(again)
    assert "Nothing was imported" in error(taken)
    assert f'import_case(source_path="{archive}", new_name="{CASE} (imported)")' in error(taken)

    copy = data(imported)
    assert copy["case"]["name"] == "Lease copy" and copy["case"]["active"] is True
    assert (copy["kind"], copy["documents"], copy["chunks"], copy["sources"]) == ("archive", 3, 4, 3)
    assert copy["models_differed"] == {} and copy["reembedded"] == []  # the same models: nothing to redo
    assert 'Imported case "Lease copy" (3 documents, 4 chunks, 3 original files)' in body(imported)
    stages = {m.split(":")[0] for _, _, m in importing.seen if m}
    assert {"verifying checksums", "unpacking"} <= stages
    cases = data(listed)
    assert cases["active_case"] == copy["case"]["id"]
    assert sorted(c["name"] for c in cases["cases"]) == [CASE, "Lease copy"]


def test_an_archive_without_sources_and_a_path_with_nothing_there(host: Host) -> None:
    thin = host.files / "thin.ctcase"

    async def script(client: Client) -> tuple[CallToolResult, ...]:
        exported = await client.call_tool(
            "export_case", {"destination_path": str(thin), "case_name": CASE, "include_sources": False}
        )
        imported = await client.call_tool("import_case", {"source_path": str(thin), "new_name": "Thin"})
        nothing = await client.call_tool("import_case", {"source_path": str(host.files / "none.ctcase")})
        return exported, imported, nothing

    exported, imported, nothing = host.run(script)
    assert data(exported)["sources"] == 0 and data(exported)["sources_included"] is False
    warnings = data(imported)["warnings"]
    assert len(warnings) == 1 and "carries no original files" in warnings[0]
    assert f"Warning: {warnings[0]}" in body(imported)
    assert "No file or folder at" in error(nothing) and "a .ctcase archive, or a case folder" in error(
        nothing
    )
