"""manifest.json, the MCPB bundle manifest: its fields, and the official validator's verdict."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

MANIFEST = REPO / "manifest.json"
VALIDATE = REPO / "ci" / "validate_manifest.sh"


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def project() -> dict[str, Any]:
    with (REPO / "pyproject.toml").open("rb") as f:
        return dict(tomllib.load(f)["project"])


def test_identity_matches_pyproject(manifest: dict[str, Any], project: dict[str, Any]) -> None:
    assert manifest["manifest_version"] == "0.4"
    assert manifest["name"] == project["name"] == "casetrack"
    assert manifest["version"] == project["version"]
    assert manifest["description"] and manifest["author"]["name"]
    assert manifest["compatibility"]["runtimes"] == {"python": project["requires-python"]}
    assert sorted(manifest["compatibility"]["platforms"]) == ["darwin", "linux", "win32"]


def test_server_runs_casetrack_serve_with_uv(manifest: dict[str, Any]) -> None:
    server = manifest["server"]
    assert server["type"] == "uv"
    assert (REPO / server["entry_point"]).is_file()
    config = server["mcp_config"]
    assert config["command"] == "uv"
    # The entry point runs `casetrack serve`; tests/test_bundle.py runs this command from the built bundle.
    assert config["args"] == [
        "run",
        "--frozen",
        "--directory",
        "${__dirname}",
        "${__dirname}/" + server["entry_point"],
    ]
    assert config["env"] == {
        "CASETRACK_HOME": "${user_config.data_dir}",
        "CASETRACK_MEMORY_MODE": "${user_config.memory_mode}",
    }


def test_data_dir_is_a_directory_setting_defaulting_to_documents(manifest: dict[str, Any]) -> None:
    option = manifest["user_config"]["data_dir"]
    assert option["type"] == "directory"
    assert option["default"] == "${DOCUMENTS}/CaseTrack"
    assert option["title"] and option["description"]


def test_tool_list_matches_the_real_server(manifest: dict[str, Any], tmp_path: Path) -> None:
    """The manifest advertises exactly the tools (and descriptions) the MCP server registers."""
    import anyio
    from mcp import Client

    from casetrack.config import resolve_settings
    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server

    async def listed() -> list[tuple[str, str]]:
        service = Service(resolve_settings(tmp_path / "data", tmp_path / "models", environ={}))
        try:
            async with Client(build_server(service, SessionState())) as client:
                return [(t.name, t.description or "") for t in (await client.list_tools()).tools]
        finally:
            service.close()

    assert [(t["name"], t["description"]) for t in manifest["tools"]] == anyio.run(listed)


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(VALIDATE), str(path)], capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow  # npm-installs @anthropic-ai/mcpb on a fresh machine
def test_official_mcpb_validator_accepts_the_manifest() -> None:
    proc = validate(MANIFEST)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "validation passes" in proc.stdout


@pytest.mark.slow  # npm-installs @anthropic-ai/mcpb on a fresh machine
def test_validator_script_fails_loudly_on_a_bad_manifest(tmp_path: Path, manifest: dict[str, Any]) -> None:
    bad = {**manifest, "privacy": "local only"}  # unknown keys fail validation
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    proc = validate(path)
    assert proc.returncode != 0
    assert "privacy" in proc.stdout and "not a valid MCPB manifest" in proc.stderr


def test_prompt_list_matches_the_real_server(manifest: dict[str, Any], tmp_path: Path) -> None:
    """The manifest advertises exactly the prompts the MCP server offers, with the same arguments."""
    import anyio
    from mcp import Client

    from casetrack.config import resolve_settings
    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server

    async def listed() -> list[tuple[str, list[str]]]:
        service = Service(resolve_settings(tmp_path / "data", tmp_path / "models", environ={}))
        try:
            async with Client(build_server(service, SessionState())) as client:
                prompts = (await client.list_prompts()).prompts
                return [(p.name, [a.name for a in p.arguments or []]) for p in prompts]
        finally:
            service.close()

    assert [(p["name"], p["arguments"]) for p in manifest["prompts"]] == anyio.run(listed)
