"""`casetrack models list|import|verify|download` through the real CLI (click's CliRunner)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from huggingface_hub import constants

from casetrack.cli.main import cli
from casetrack.embed.catalog import load_model_spec
from tests.conftest import MODELS
from tests.fake_hub import FakeHub

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}")

SPARSE_REPO = "Qdrant/opensearch-neural-sparse-encoding-doc-v3-gte"
SPARSE_ID = "opensearch-neural-sparse-doc-v3-gte"


def run(*args: str, code: int = 0, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def run_json(*args: str, code: int = 0, env: dict[str, str] | None = None) -> Any:
    return json.loads(run(*args, "--json", code=code, env=env).stdout)


def test_list_json_on_the_offline_pack() -> None:
    listing = run_json("--models-dir", str(MODELS), "models", "list", "--memory-mode", "constrained")
    # The CLI resolves --models-dir once (symlinks included): ../shared may be a symlink.
    assert listing["tier"] == "constrained" and Path(listing["models_dir"]) == MODELS.resolve()
    rows = {r["slot"]: r for r in listing["slots"]}
    assert {s: (r["name"], r["residency"]) for s, r in rows.items()} == {
        "E1": ("multilingual-e5-small-enpt", "resident"),
        "E6": ("splade-tiny", "transient"),
        "E7": ("all-MiniLM-L6-v2", "transient"),
        "E12": ("colbert-standin-minilm", "transient"),
    }
    assert all(r["present"] and r["size_bytes"] > 0 and "@" in r["fingerprint"] for r in rows.values())
    detected = run_json("--models-dir", str(MODELS), "models", "list")
    assert detected["tier"] in ("full", "standard", "constrained") and "GiB" in detected["tier_reason"]


def test_list_an_empty_folder_says_what_to_run(tmp_path: Path) -> None:
    out = run("--models-dir", str(tmp_path / "none"), "models", "list", "--memory-mode", "standard").stdout
    assert out.count("missing") == 4 and "casetrack models download --slot E1" in out
    assert "casetrack models import DIR" in out


def test_import_verify_and_a_corrupted_file(tmp_path: Path) -> None:
    models_dir = str(tmp_path / "models")
    report = run_json("--models-dir", models_dir, "models", "import", str(MODELS))
    assert sorted(r["slot"] for r in report["installed"]) == ["E1", "E12", "E6", "E7"]
    checked = run_json("--models-dir", models_dir, "models", "verify")
    assert checked["ok"] and len(checked["models"]) == 4
    onnx = tmp_path / "models" / "splade-tiny" / "model.onnx"
    data = bytearray(onnx.read_bytes())
    data[-10] ^= 0x01
    onnx.write_bytes(bytes(data))
    failed = run_json("--models-dir", models_dir, "models", "verify", code=1)
    assert not failed["ok"]
    assert [m["name"] for m in failed["models"] if not m["ok"]] == ["splade-tiny"]
    text = run("--models-dir", models_dir, "models", "verify", code=1)
    assert "FAIL  splade-tiny" in text.stdout and "model.onnx: sha256 differs" in text.stdout
    assert "casetrack models import DIR" in text.stderr


def test_import_hub_files_with_as_and_clear_errors(tmp_path: Path) -> None:
    snapshot = tmp_path / "snapshot"
    (snapshot / "onnx").mkdir(parents=True)
    shutil.copyfile(MODELS / "all-MiniLM-L6-v2" / "model.onnx", snapshot / "onnx" / "model.onnx")
    shutil.copyfile(MODELS / "all-MiniLM-L6-v2" / "tokenizer.json", snapshot / "tokenizer.json")
    models_dir = str(tmp_path / "models")
    unknown = run("--models-dir", models_dir, "models", "import", str(snapshot), code=1)
    assert "Error: Could not tell which model" in unknown.stderr and "--as ID" in unknown.stderr
    done = run("--models-dir", models_dir, "models", "import", str(snapshot), "--as", "all-MiniLM-L6-v2")
    assert "all-MiniLM-L6-v2 (E7): installed in" in done.stdout
    assert "warning: model.onnx is not the pinned all-MiniLM-L6-v2 file" in done.stderr
    (tmp_path / "empty").mkdir()
    empty = run("--models-dir", models_dir, "models", "import", str(tmp_path / "empty"), code=1)
    assert "Error: No model in" in empty.stderr


def test_verify_with_nothing_installed(tmp_path: Path) -> None:
    result = run("--models-dir", str(tmp_path / "none"), "models", "verify", code=1)
    assert "No models installed" in result.stderr and "casetrack models download" in result.stderr


def test_download_offline_says_how_to_import(tmp_path: Path) -> None:
    result = run(
        "--models-dir",
        str(tmp_path / "models"),
        "models",
        "download",
        "--slot",
        "E7",
        code=1,
        env={"HF_HUB_OFFLINE": "1"},
    )
    assert "Could not download all-MiniLM-L6-v2 from the model hub: offline mode" in result.stderr
    assert "casetrack models import DIR --as all-MiniLM-L6-v2" in result.stderr
    assert str(tmp_path / "models" / "all-MiniLM-L6-v2") in result.stderr


def test_download_role_dense_covers_e1_and_e7_and_reports_each_failure(tmp_path: Path) -> None:
    report = run_json(
        "--models-dir",
        str(tmp_path / "models"),
        "models",
        "download",
        "--role",
        "dense",
        "--language",
        "pt",
        code=1,
        env={"HF_HUB_OFFLINE": "1"},
    )
    assert report["installed"] == []
    assert [f["model"] for f in report["failed"]] == ["multilingual-e5-small", "all-MiniLM-L6-v2"]
    assert all("casetrack models import DIR" in f["hint"] for f in report["failed"])


def test_download_unpinned_sparse_model_through_a_local_hub(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))  # never the user's cache
    models_dir = str(tmp_path / "models")
    commit = "4" * 40
    with FakeHub() as hub:
        names = ("model.onnx", "tokenizer.json")
        hub.add_folder(SPARSE_REPO, commit, MODELS / "splade-tiny", {name: name for name in names})
        hub.add(SPARSE_REPO, commit, "idf.json", json.dumps({"court": 4.1, "appeal": 3.7}).encode())
        env = {"HF_ENDPOINT": hub.url}
        refused = run("--models-dir", models_dir, "models", "download", "--slot", "E6", code=1, env=env)
        assert "--allow-unpinned" in refused.stderr and hub.requests == []
        args = ("--models-dir", models_dir, "models", "download", "--slot", "E6", "--allow-unpinned")
        done = run(*args, env=env)
        assert f"{SPARSE_ID} (E6): installed in" in done.stdout and f"revision {commit[:12]}" in done.stdout
        again = run_json(*args, env=env)
        assert again["installed"][0]["already_installed"] and again["failed"] == []
    spec = load_model_spec(tmp_path / "models" / SPARSE_ID)
    assert spec.role == "sparse" and spec.extra["revision"] == commit and spec.extra["slot"] == "E6"
    assert {r["sha256_source"] for r in spec.extra["files"].values()} == {"hub", "hub-git-sha1"}
    listing = run_json("--models-dir", models_dir, "models", "list", "--memory-mode", "full")
    assert [r["name"] for r in listing["slots"] if r["present"]] == [SPARSE_ID]
