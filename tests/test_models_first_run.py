"""First run without a terminal: the models rule, degraded results that say so, and the MCP model
tools (download_models against a local stand-in of the hub, tests/fake_hub.py; import_models)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from casetrack.app import CaseTrack
from casetrack.config import (
    ModelsLocation,
    Settings,
    holds_models,
    install_models_dir,
    locate_models,
    resolve_settings,
)
from casetrack.daemon.client import daemon_command
from casetrack.daemon.model_jobs import child_environment, download_command
from casetrack.daemon.service import Service
from casetrack.embed.catalog import discover_models, file_sha256
from casetrack.embed.importing import carry_over, import_models, shadowed_warning
from casetrack.mcp import render
from casetrack.mcp.server import SessionState, build_server
from casetrack.search.ranking.output import response_json
from tests.cli_runner import run
from tests.conftest import MODELS, REPO
from tests.fake_hub import FakeHub

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}")

E5 = "multilingual-e5-small-enpt"
COMMIT = "5" * 40
LEASE = (
    "The tenant shall pay rent monthly.\n\nEither party may terminate this lease with sixty days written "
    "notice.\n\nThe landlord keeps the security deposit for repairs."
)


def model_folder(root: Path, name: str, source: str = E5) -> Path:
    """A folder holding one installed model (a link to a pack folder: cheap, and real)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / name).symlink_to(MODELS / source, target_is_directory=True)
    return root


# -- the models rule ------------------------------------------------------------------------------


def test_the_first_folder_that_holds_models_is_read_and_installs_go_to_the_users_choice(
    tmp_path: Path,
) -> None:
    data, chosen, install = tmp_path / "data", tmp_path / "chosen", tmp_path / "install"
    nothing = locate_models([chosen], data, install)
    assert (nothing.read, nothing.write, nothing.source) == (chosen, chosen, "empty")
    assert nothing.candidates == (chosen, data / "models", install)

    model_folder(install, E5)  # install.sh filled the install's own folder
    found = locate_models([chosen], data, install)
    assert (found.read, found.write, found.source) == (install, chosen, "install") and found.write_comes_first
    model_folder(data / "models", E5)
    assert locate_models([chosen], data, install).read == data / "models"
    model_folder(chosen, E5)
    assert locate_models([chosen], data, install).source == "explicit"

    # Without a choice the data folder's models are read, and installs go there.
    default = locate_models([], data, install)
    assert (default.read, default.write, default.source, default.explicit) == (
        data / "models",
        data / "models",
        "data_dir",
        None,
    )


def test_a_read_only_choice_is_read_but_installs_go_to_the_data_folder(tmp_path: Path) -> None:
    shared, data_models = model_folder(tmp_path / "share", E5), tmp_path / "data" / "models"
    # What the rule gives for a choice it cannot write (a firm's read-only share):
    location = ModelsLocation(shared, data_models, "explicit", (shared, data_models), (shared,))
    assert not location.write_comes_first and carry_over(location) == []
    warning = shadowed_warning(location) or ""
    assert str(shared) in warning and "--models-dir" in warning  # search would not see the new model
    shared.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(shared, os.W_OK):
            return  # root writes anywhere: the permission check itself cannot be shown here
        assert locate_models([shared], tmp_path / "data", None) == location
    finally:
        shared.chmod(stat.S_IRWXU)


def test_resolve_settings_applies_the_rule_and_children_get_only_the_users_choice(tmp_path: Path) -> None:
    install = model_folder(tmp_path / "install", E5)
    found = resolve_settings(tmp_path / "data", None, environ={}, install_models=install)
    assert (found.models_dir, found.models_target, found.models_source) == (
        install,
        tmp_path / "data" / "models",
        "install",
    )
    assert found.models_choice is None and "--models-dir" not in daemon_command(found)
    env = {"CASETRACK_MODELS_DIR": str(tmp_path / "env")}
    chosen = resolve_settings(tmp_path / "data", tmp_path / "flag", environ=env, install_models=install)
    assert chosen.models_location is not None
    assert chosen.models_location.candidates[:2] == (tmp_path / "flag", tmp_path / "env")  # flag, then env
    assert chosen.models_choice == tmp_path / "flag" and chosen.models_target == tmp_path / "flag"
    command = daemon_command(chosen)
    assert command[command.index("--models-dir") + 1] == str(tmp_path / "flag")
    built = Settings(data_dir=tmp_path / "data", models_dir=tmp_path / "m")  # a folder given directly
    assert built.models_choice == built.models_target == tmp_path / "m"


def test_the_install_folder_of_a_source_tree_is_its_models_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests get an empty install folder of their own (conftest): install.sh fills this tree's.
    assert install_models_dir() != REPO / "models" and not holds_models(install_models_dir())
    monkeypatch.delenv("CASETRACK_INSTALL_MODELS_DIR")
    assert install_models_dir() == REPO / "models"
    assert (install_models_dir() / "catalog.json").is_file()  # where the shipped catalog is


def test_the_first_install_into_an_earlier_folder_copies_the_models_in_use(tmp_path: Path) -> None:
    """Reading from the install's folder, a download or import goes to DATA_DIR/models, which then
    comes first in the rule: the models in use are copied along, so nothing is lost."""
    install, data = tmp_path / "install", tmp_path / "data"
    import_models(MODELS / "splade-tiny", install)  # what install.sh does
    settings = resolve_settings(data, None, environ={}, install_models=install)
    assert (settings.models_dir, settings.models_source) == (install, "install")
    carried = carry_over(settings.models_location)  # what `models download|import` do first
    assert [r.name for r in carried] == ["splade-tiny"] and "copied from" in carried[0].warnings[0]
    import_models(MODELS / "all-MiniLM-L6-v2", settings.models_target)
    after = settings.models_rescanned()
    assert (after.models_dir, after.models_source) == (data / "models", "data_dir")
    assert sorted(s.name for s in discover_models(after.models_dir)) == ["all-MiniLM-L6-v2", "splade-tiny"]
    assert carry_over(after.models_location) == []  # once


# -- degraded results say so ----------------------------------------------------------------------


def app_with(tmp_path: Path, models: Path, mode: str = "full") -> CaseTrack:
    return CaseTrack(
        resolve_settings(tmp_path / "data", models, environ={}, memory_mode=mode, install_models=None)
    )


def test_a_search_without_its_models_says_so_in_every_surface(tmp_path: Path) -> None:
    (tmp_path / "lease.txt").write_text(LEASE)
    app = app_with(tmp_path, model_folder(tmp_path / "e1-only", E5))  # E6, E7, E12 not installed
    app.create_case("Lease")
    app.ingest("Lease", [tmp_path / "lease.txt"])
    out = response_json(app.search("Lease", "how can the lease be terminated", top_k=2))
    assert out["models_missing"] == ["E7", "E6", "E12"]
    assert len(out["warnings"]) == 3 and all(
        "is installed: this search ran without" in w for w in out["warnings"]
    )
    assert out["results"][0]["source"]["document"] == "lease.txt"  # it still answers
    mcp_text = render.search(out, "1 documents")
    assert "download_models()" in mcp_text and "casetrack models" not in mcp_text
    # The CLI prints the notes with the results on stdout, with the command that fixes them.
    human = run(
        "--data-dir",
        str(tmp_path / "data"),
        "--models-dir",
        str(tmp_path / "e1-only"),
        "--memory-mode",
        "full",
        "search",
        "--case",
        "Lease",
        "terminate the lease",
    )
    assert "No structure dense model (E7) is installed" in human.stdout
    assert "casetrack models download --missing" in human.stdout and "download_models" not in human.stdout

    # The constrained memory mode leaves E6/E7/E12 out on purpose: nothing is missing then.
    lean = app_with(tmp_path, tmp_path / "e1-only", "constrained")
    quiet = response_json(lean.search("Lease", "terminate"))
    assert quiet["models_missing"] == [] and quiet["warnings"] == []


def test_status_names_the_missing_models_and_the_fix_in_both_forms(tmp_path: Path) -> None:
    status = app_with(tmp_path, tmp_path / "none").status()
    missing = {m["slot"]: m for m in status["models_missing"]}
    assert list(missing) == ["E1", "E7", "E6", "E12"]
    assert missing["E1"]["model"] == "multilingual-e5-small" and missing["E1"]["languages"] == ["en", "pt"]
    assert missing["E1"]["pinned"] and missing["E1"]["size_bytes"] == 470268510 + 17082730
    assert not missing["E6"]["pinned"]  # the catalog pins no revision for it
    fix = status["models_fix"]
    assert fix is not None and fix["cli"].startswith("casetrack models download --missing, then ")
    assert fix["tool"] == (
        'download_models(), then download_models(models=["opensearch-neural-sparse-doc-v3-gte"], '
        "allow_unpinned=true)"
    )
    assert status["models_source"] == "empty" and status["models_install_dir"] == str(tmp_path / "none")

    # With the offline pack every slot has a model.
    assert app_with(tmp_path, MODELS).status()["models_missing"] == []
    text = render.status(
        {**status, "daemon": {"pid": 1, "uptime_s": 1, "rss_mb": 1, "connections": 1, "model_loads": 0}}
    )
    assert (
        "Missing models" in text and "download_models()" in text and "casetrack models download" not in text
    )
    human = run("--data-dir", str(tmp_path / "data"), "--models-dir", str(tmp_path / "none"), "status")
    assert "Missing models: multilingual-e5-small (E1)" in human.stdout
    assert "casetrack models download --missing" in human.stdout


# -- the MCP model tools, through a real client and the daemon's Service --------------------------

TINY = "tiny-e1"
REPO_ID = "test-org/tiny-e1"
LAYOUT = {"onnx/model.onnx": "model.onnx", "tokenizer.json": "tokenizer.json"}


def stand_in_catalog(path: Path) -> Path:
    """A catalog of one E1 model: the pack's e5 files with their real sizes and sha256."""
    files = [
        {
            "kind": "onnx" if repo_path.endswith(".onnx") else "tokenizer",
            "path": repo_path,
            "size": (MODELS / E5 / name).stat().st_size,
            "sha256": file_sha256(MODELS / E5 / name),
        }
        for repo_path, name in LAYOUT.items()
    ]
    entry = {
        "id": TINY,
        "slot": "E1",
        "role": "dense",
        "family": "e5",
        "hub_repo": REPO_ID,
        "revision": COMMIT,
        "files": files,
        "output": "sentence_embedding",
        "pooling": "mean",
        "normalize": True,
        "dim": 384,
        "max_tokens": 512,
        "query_prefix": "query: ",
        "passage_prefix": "passage: ",
        "languages": ["en", "pt"],
    }
    path.write_text(json.dumps({"schema": 1, "models": [entry]}))
    return path


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    with FakeHub() as stand_in:
        stand_in.add_folder(REPO_ID, COMMIT, MODELS / E5, LAYOUT)
        monkeypatch.setenv("HF_ENDPOINT", stand_in.url)  # the download child reads it at its entry point
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # as the daemon runs: only the child may go online
        yield stand_in


def service_for(tmp_path: Path) -> Service:
    # Constrained: the memory mode needs E1 only, the one model the stand-in catalog has.
    return Service(
        resolve_settings(
            tmp_path / "data",
            None,
            environ={},
            memory_mode="constrained",
            install_models=None,
            model_catalog=stand_in_catalog(tmp_path / "catalog.json"),
            allowed_roots=[tmp_path],
        )
    )


Progress = list[tuple[float, float | None, str | None]]


def with_client(service: Service, calls: Any) -> Any:
    async def main() -> Any:
        service.start()
        try:
            async with Client(build_server(service, SessionState())) as client:
                return await calls(client)
        finally:
            service.close()

    return anyio.run(main)


def body(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def test_download_models_runs_as_a_job_with_progress_and_search_uses_the_model(
    hub: FakeHub, tmp_path: Path
) -> None:
    service = service_for(tmp_path)
    notified: Progress = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notified.append((progress, total, message))

    async def calls(client: Client) -> tuple[Any, ...]:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        before = await client.call_tool("get_status", {})
        done = await client.call_tool("download_models", {"wait_seconds": 50}, progress_callback=on_progress)
        job_id = (done.structured_content or {})["job"]["id"]
        again = await client.call_tool("download_models", {})
        followed = await client.call_tool("get_job", {"job_id": job_id})
        after = await client.call_tool("get_status", {})
        return listed, before, done, again, followed, after

    listed, before, done, again, followed, after = with_client(service, calls)
    tool = listed["download_models"]
    assert tool.annotations.open_world_hint is True and tool.annotations.destructive_hint is False
    assert listed["import_models"].annotations.open_world_hint is False
    assert [m["model"] for m in before.structured_content["models_missing"]] == [TINY]
    assert "download_models()" in body(before)

    job = done.structured_content["job"]
    assert not done.is_error and job["status"] == "done", body(done)
    assert job["results"][0]["status"] == "installed" and job["results"][0]["revision"] == COMMIT
    assert "Search uses the installed models now" in body(done)
    fractions = [p for p, total, _ in notified if total == 1]
    assert fractions == sorted(fractions) and fractions[-1] == 1 and any(0 < f < 1 for f in fractions)
    assert any(m and "onnx/model.onnx" in m and "MB" in m for _, _, m in notified)
    assert hub.gets("onnx/model.onnx") == [None]
    # Installed where downloads go, checked, and used without a restart.
    installed = tmp_path / "data" / "models" / TINY
    meta = json.loads((installed / "model.json").read_text())
    assert meta["files"]["onnx/model.onnx"]["sha256_source"] == "catalog"
    assert service.app.pool.resolve("E1", "pt") is not None
    assert after.structured_content["models_missing"] == [] and "Missing models" not in body(after)
    assert again.structured_content["job"] is None and "nothing to download" in body(again)
    assert "Model download job" in body(followed) and "tiny-e1 (E1): installed" in body(followed)


def test_a_corrupted_download_is_refused_and_nothing_is_installed(hub: FakeHub, tmp_path: Path) -> None:
    real = (MODELS / E5 / "model.onnx").read_bytes()
    hub.add(REPO_ID, COMMIT, "onnx/model.onnx", real, served=real[:5000] + b"\0" * 10 + real[5010:])
    service = service_for(tmp_path)

    async def calls(client: Client) -> Any:
        return await client.call_tool("download_models", {"models": [TINY], "wait_seconds": 50})

    result = with_client(service, calls)
    job = result.structured_content["job"]
    assert job["status"] == "failed" and "does not match the catalog hash" in job["error"], body(result)
    assert "Nothing was installed" in job["error"] and 'download_models(models=["tiny-e1"])' in job["hint"]
    assert not (tmp_path / "data" / "models" / TINY).exists()
    assert service.app.pool.resolve("E1", "en") is None


@pytest.mark.slow
def test_a_cancelled_download_continues_where_it_stopped(hub: FakeHub, tmp_path: Path) -> None:
    hub.rate = 8 << 20  # 8 MB/s: the 42 MB file takes ~5 s, time enough to cancel halfway
    service = service_for(tmp_path)
    size = (MODELS / E5 / "model.onnx").stat().st_size

    async def calls(client: Client) -> tuple[Any, Any]:
        started = (await client.call_tool("download_models", {"wait_seconds": 0})).structured_content["job"]
        while True:  # until part of the big file is on disk
            job = (
                await client.call_tool("get_job", {"job_id": started["id"], "wait_seconds": 1})
            ).structured_content
            if "onnx/model.onnx" in str(job["jobs"][0].get("stage")) and job["jobs"][0]["fraction"] > 0.2:
                break
        cancelled = await client.call_tool("cancel_job", {"job_id": started["id"]})
        await client.call_tool("get_job", {"job_id": started["id"], "wait_seconds": 20})
        hub.rate = None
        return cancelled, await client.call_tool("download_models", {"wait_seconds": 50})

    cancelled, resumed = with_client(service, calls)
    assert not cancelled.is_error
    assert resumed.structured_content["job"]["status"] == "done", body(resumed)
    ranges = hub.gets("onnx/model.onnx")
    assert ranges[0] is None and len(ranges) == 2 and ranges[1] is not None
    kept = int(ranges[1].removeprefix("bytes=").rstrip("-"))
    assert 0.2 * size < kept < size  # only the rest was fetched
    assert file_sha256(tmp_path / "data" / "models" / TINY / "onnx" / "model.onnx") == file_sha256(
        MODELS / E5 / "model.onnx"
    )


def test_import_models_installs_from_an_allowed_folder(tmp_path: Path) -> None:
    folder = tmp_path / "usb" / "splade-tiny"
    folder.parent.mkdir()
    import shutil

    shutil.copytree(MODELS / "splade-tiny", folder)
    service = service_for(tmp_path)

    async def calls(client: Client) -> tuple[Any, Any]:
        refused = await client.call_tool("import_models", {"folder_path": "/etc"})
        done = await client.call_tool(
            "import_models", {"folder_path": str(folder.parent), "wait_seconds": 50}
        )
        return refused, done

    refused, done = with_client(service, calls)
    assert refused.is_error and "casetrack models import" in body(refused)
    job = done.structured_content["job"]
    assert job["status"] == "done" and [m["name"] for m in job["results"][0]["models"]] == ["splade-tiny"], (
        body(done)
    )
    assert "splade-tiny (E6): installed" in body(done)
    assert service.app.pool.resolve("E6", "en") is not None  # rescanned: no restart needed


def test_the_download_child_alone_is_lifted_out_of_offline_mode(tmp_path: Path) -> None:
    settings = resolve_settings(
        tmp_path / "data",
        tmp_path / "chosen",
        environ={},
        install_models=None,
        model_catalog=tmp_path / "c.json",
    )
    from casetrack.daemon.jobs import Job

    job = Job("j1", "", "", ["a", "b"], kind="download", options={"allow_unpinned": True})
    command = download_command(settings, job)
    assert command[command.index("--models-dir") + 1] == str(tmp_path / "chosen")
    assert command[-4:] == ["--model", "a", "--model", "b"] and "--allow-unpinned" in command
    assert command[command.index("--catalog") + 1] == str(tmp_path / "c.json")
    daemon_env = {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ORT_DISABLE_TELEMETRY": "1",
        "CASETRACK_MODELS_DIR": "/elsewhere",
        "PATH": "/bin",
    }
    child = child_environment(daemon_env)
    assert child == {"ORT_DISABLE_TELEMETRY": "1", "PATH": "/bin"}  # telemetry stays off
    assert daemon_env["HF_HUB_OFFLINE"] == "1"  # the daemon itself stays offline
