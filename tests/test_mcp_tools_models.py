"""The model tools (download_models, import_models) through the SDK's in-memory client over a real
Service (tests/mcp_tools.py): their contract and their refusals, none of which reaches the
network or writes a model. A download against a local stand-in of the hub and an import that
installs are tests/test_models_first_run.py's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import IDEMPOTENT, Host, data, error, hints, open_host
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "models") as opened:
        yield opened


def test_download_is_the_one_open_world_tool(host: Host) -> None:
    tools = host.tools()
    assert params(tools["download_models"]) == {"models", "language", "allow_unpinned", "wait_seconds"}
    assert params(tools["import_models"]) == {"folder_path", "model_id", "wait_seconds"}
    assert hints(tools["download_models"]) == (False, False, True, True)
    assert hints(tools["import_models"]) == IDEMPOTENT
    assert [name for name, tool in tools.items() if hints(tool)[3]] == ["download_models"]
    for name in ("download_models", "import_models"):
        assert {"job", "missing"} <= set((tools[name].output_schema or {})["properties"]), name


def test_nothing_to_download_and_what_is_refused(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        nothing = await client.call_tool("download_models", {})
        unknown = await client.call_tool("download_models", {"models": ["E99"]})
        system = await client.call_tool("import_models", {"folder_path": "/etc"})
        absent = await client.call_tool("import_models", {"folder_path": str(host.files / "usb")})
        return nothing, unknown, system, absent

    nothing, unknown, system, absent = host.run(script)
    assert data(nothing) == {"job": None, "missing": [], "unpinned_skipped": []}
    assert "nothing to download" in body(nothing) and "get_status lists them" in body(nothing)
    assert "'E99' is not a CaseTrack model or slot" in error(unknown)
    assert "Call download_models() without models" in error(unknown)
    assert "system folder /etc" in error(
        system
    ) and f"Folders CaseTrack may read for Claude: {host.files}" in error(system)
    assert 'install it from a terminal: casetrack models import "/etc"' in error(system)
    assert f"Folder not found: {host.files / 'usb'}" in error(absent)
    assert host.service.jobs.recent() == []  # nothing was queued
