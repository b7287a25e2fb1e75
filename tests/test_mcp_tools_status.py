"""get_status through the SDK's in-memory client over a real Service (tests/mcp_tools.py): the
version, the session's active case, the memory mode and models, and the daemon's state."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from casetrack import __version__
from tests.conftest import MODELS
from tests.mcp_tools import CASE, READ, Host, data, hints, open_host
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "status") as opened:
        yield opened


def test_the_tool_takes_nothing_and_is_read_only(host: Host) -> None:
    tool = host.tools()["get_status"]
    assert params(tool) == set() and hints(tool) == READ
    assert {"version", "data_dir", "memory_mode", "cases", "active_case", "daemon"} <= set(
        (tool.output_schema or {})["properties"]
    )


def test_status_names_the_active_case_the_models_and_the_daemon(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        before = await client.call_tool("get_status", {})
        await client.call_tool("switch_case", {"case_name": CASE})
        await client.call_tool("search_case", {"query": "rent per month"})  # loads the models
        after = await client.call_tool("get_status", {})
        return before, after

    before, after = host.run(script)
    first, then = data(before), data(after)
    assert (first["version"], first["cases"], first["active_case"]) == (__version__, 1, None)
    assert then["active_case"] == CASE and f"Active Case: {CASE}" in body(after)
    assert then["data_dir"] == str(host.data) and then["models_dir"] == str(MODELS.resolve())
    assert then["memory_mode"] in ("full", "standard", "constrained") and then["models_missing"] == []
    assert [s["slot"] for s in then["slots"]["en"]] == ["E1", "E7", "E6", "E12"]
    daemon = then["daemon"]
    assert daemon["log"] == str(host.data / "logs" / "daemon.log") and daemon["jobs_active"] == []
    assert first["daemon"]["model_loads"] == 0 and daemon["model_loads"] >= 1 and daemon["loaded_models"]
    assert body(after).startswith(
        f"CaseTrack v{__version__}"
    ) and f"Models folder: {MODELS.resolve()}" in body(after)
    assert "E1 (en, primary dense): multilingual-e5-small-enpt" in body(after)
