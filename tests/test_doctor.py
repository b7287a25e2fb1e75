"""`casetrack doctor`: each check's ok / warn / fail and its fix, the JSON interface, the exit code.

Real parts throughout: the models of ../shared/models (copied and damaged where a test needs it),
a real daemon, the real config files setup writes (under a temporary HOME), tesseract stand-ins
on PATH for a subprocess. The checks that read the machine (disk, RAM) take their numbers as
arguments so each threshold can be tested.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from casetrack.app.doctor import (
    ClientState,
    Registered,
    client_check,
    daemon_check,
    data_dir_check,
    disk_check,
    memory_check,
    models_checks,
    ocr_check,
    python_check,
    run_checks,
)
from casetrack.config import Settings
from casetrack.embed.tiers import Tier
from casetrack.ocr.engine import EngineInfo
from tests.cli_runner import run
from tests.conftest import MODELS, require
from tests.daemon_util import cli, daemon_stopped_after, env_for

NAMES = [
    "python",
    "platform",
    "data_dir",
    "models",
    "model_files",
    "ocr",
    "daemon",
    "claude_code",
    "claude_desktop",
    "disk",
    "memory",
]
GIB = 1 << 30


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME: the Claude config files doctor reads are the test's own."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.chdir(home)
    return home


def doctor_json(*args: str, code: int = 0) -> dict[str, Any]:
    result = run(*args, "doctor", "--json", ok=False)
    assert result.exit_code == code, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["checks"]}


# -- the command ----------------------------------------------------------------------------------


def test_json_report_with_models_in_place_exits_0(user_home: Path, home: Path) -> None:
    require(MODELS / "multilingual-e5-small-enpt")
    report = doctor_json()
    assert report["ok"] is True and [c["name"] for c in report["checks"]] == NAMES
    assert all(set(c) == {"name", "status", "detail", "fix"} for c in report["checks"])
    assert all(c["status"] in ("ok", "warn", "fail") for c in report["checks"])
    checks = by_name(report)
    assert (
        checks["models"]["status"] == "ok" and "E1 multilingual-e5-small-enpt" in checks["models"]["detail"]
    )
    assert checks["model_files"]["status"] == "ok" and checks["model_files"]["fix"] is None
    assert (
        checks["data_dir"]["status"] == "ok"
        and "created (private) on first use" in checks["data_dir"]["detail"]
    )
    assert not home.exists()  # doctor only looks
    assert checks["claude_code"] == {
        "name": "claude_code",
        "status": "warn",
        "fix": "casetrack setup-claude-code",
        "detail": "CaseTrack is not registered with Claude Code.",
    }
    human = run("doctor").output
    assert "Everything a search needs is in place" in human and "fix: casetrack setup-claude-code" in human


def test_a_data_folder_that_cannot_exist_fails_with_exit_1(user_home: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    report = doctor_json("--data-dir", str(blocker / "CaseTrack"), code=1)
    data = by_name(report)["data_dir"]
    assert report["ok"] is False and data["status"] == "fail"
    assert "cannot be created" in data["detail"] and "--data-dir" in data["fix"]
    human = run("--data-dir", str(blocker / "CaseTrack"), "doctor", ok=False)
    assert human.exit_code == 1 and "1 problem stops search" in human.output


def test_registration_is_read_from_the_files_setup_writes(user_home: Path, tmp_path: Path) -> None:
    run("setup-claude-code", "--edit-file")
    checks = by_name(doctor_json())
    assert checks["claude_code"]["status"] == "ok", checks["claude_code"]
    assert checks["claude_code"]["detail"].startswith(
        f"registered (user scope ({user_home / '.claude.json'})"
    )
    config = json.loads((user_home / ".claude.json").read_text(encoding="utf-8"))
    config["mcpServers"]["casetrack"]["command"] = str(tmp_path / "old-venv" / "bin" / "casetrack")
    (user_home / ".claude.json").write_text(json.dumps(config), encoding="utf-8")
    moved = by_name(doctor_json())["claude_code"]
    assert moved["status"] == "warn" and "its command is missing" in moved["detail"]
    assert moved["fix"] == "casetrack setup-claude-code"
    (user_home / ".claude.json").write_text('{"mcpServers": {', encoding="utf-8")
    broken = by_name(doctor_json())["claude_code"]
    assert (
        broken["status"] == "warn"
        and "cannot read" in broken["detail"]
        and "not valid JSON" in broken["detail"]
    )


@pytest.mark.skipif(sys.platform != "linux", reason="Claude Desktop's Linux config location")
def test_claude_desktop_missing_then_registered(user_home: Path) -> None:
    desktop = by_name(doctor_json())["claude_desktop"]
    assert desktop["status"] == "warn" and "not set up on this computer" in desktop["detail"]
    (user_home / ".config" / "Claude").mkdir(parents=True)
    assert by_name(doctor_json())["claude_desktop"]["fix"] == "casetrack setup-claude-desktop"
    run("setup-claude-desktop")
    assert by_name(doctor_json())["claude_desktop"]["status"] == "ok"


def test_a_running_daemon_is_reported(tmp_path: Path) -> None:
    home = tmp_path / "ct"
    with daemon_stopped_after(home):
        started = cli(home, "daemon", "start")
        assert started.returncode == 0, started.stderr
        done = cli(home, "doctor", "--json")
        daemon = by_name(json.loads(done.stdout))["daemon"]
        assert daemon["status"] == "ok" and daemon["detail"].startswith("running (pid ")


def test_tesseract_without_portuguese_is_a_warning_with_its_fix(tmp_path: Path) -> None:
    """A subprocess: the tesseract probe is cached per process, and this one is a stand-in."""
    fake = tmp_path / "bin" / "tesseract"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\ncase \"$1\" in --version) echo 'tesseract 5.3.0';; --list-langs) "
        "printf 'List of available languages in \"/x/tessdata/\" (2):\\neng\\nosd\\n';; esac\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    env = env_for(tmp_path / "ct", PATH=f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("CASETRACK_TESSERACT", None)
    done = subprocess.run(
        [sys.executable, "-m", "casetrack", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    report = json.loads(done.stdout)
    ocr = by_name(report)["ocr"]
    assert ocr["status"] == "warn" and "no Portuguese data" in ocr["detail"] and "por" in ocr["fix"]
    assert done.returncode == 0 and report["ok"] is True  # OCR is not what a search needs


# -- the checks, one by one -------------------------------------------------------------------------


def test_python_check() -> None:
    assert python_check((3, 11, 7), "/v/bin/python").status == "ok"
    old = python_check((3, 9, 18), "/usr/bin/python3")
    assert old.status == "fail" and "3.9.18" in old.detail and old.fix and "install.sh" in old.fix


def test_data_dir_modes(tmp_path: Path) -> None:
    folder = tmp_path / "ct"
    assert data_dir_check(folder).status == "ok"  # created on first use
    folder.mkdir(mode=0o700)
    folder.chmod(0o700)
    assert data_dir_check(folder).status == "ok"
    if os.name == "posix":
        folder.chmod(0o755)
        loose = data_dir_check(folder)
        assert (
            loose.status == "warn" and "0755" in loose.detail and loose.fix == f'chmod -R go-rwx "{folder}"'
        )
    file = tmp_path / "file"
    file.write_text("x", encoding="utf-8")
    assert data_dir_check(file).status == "fail"


def _import_models(tmp_path: Path, *names: str) -> Path:
    """Models installed the way a user does (`models import` records each file's sha256)."""
    pack = tmp_path / "pack"
    for name in names:
        shutil.copytree(require(MODELS / name), pack / name)
    folder = tmp_path / "models"
    run("--models-dir", str(folder), "models", "import", str(pack))
    return folder


def _flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


def test_no_models_fail_with_the_download_command(tmp_path: Path) -> None:
    presence, files = models_checks(tmp_path / "empty", Tier.STANDARD)
    assert presence.status == "fail" and "does not exist" in presence.detail
    assert presence.fix and presence.fix.startswith("casetrack models download")
    assert files.status == "warn" and "nothing to verify" in files.detail
    report = run_checks(Settings(tmp_path / "data", tmp_path / "empty"), None, [], memory=(16 * GIB, 8 * GIB))
    assert report.ok is False and [c.name for c in report.checks if c.status == "fail"] == ["models"]


def test_a_damaged_e1_model_fails_a_damaged_e6_model_warns(tmp_path: Path) -> None:
    models = _import_models(tmp_path, "multilingual-e5-small-enpt", "splade-tiny")
    presence, files = models_checks(models, Tier.STANDARD)
    assert presence.status == "warn" and "missing E7" in presence.detail and files.status == "ok"
    _flip_last_byte(models / "splade-tiny" / "model.onnx")
    files = models_checks(models, Tier.STANDARD)[1]
    assert files.status == "warn" and "splade-tiny" in files.detail and "sha256 differs" in files.detail
    _flip_last_byte(models / "multilingual-e5-small-enpt" / "model.onnx")
    files = models_checks(models, Tier.STANDARD)[1]
    assert files.status == "fail" and "2 of 2 models failed verification" in files.detail
    assert files.fix and "casetrack models verify" in files.fix


def test_ocr_check() -> None:
    missing = EngineInfo(
        False,
        None,
        (),
        "Tesseract OCR is not installed: scans cannot be read.",
        "sudo apt-get install tesseract-ocr",
    )
    check = ocr_check(missing, "apt")
    assert check.status == "warn" and check.fix == "sudo apt-get install tesseract-ocr"
    no_por = EngineInfo(True, "5.3.0", ("eng", "osd"), None, None)
    assert (
        ocr_check(no_por, "brew").fix
        == "Install Tesseract OCR with Portuguese: brew install tesseract tesseract-lang"
    )
    assert ocr_check(EngineInfo(True, "5.3.0", ("eng", "osd", "por"), None, None), "apt").status == "ok"


def test_daemon_check() -> None:
    assert daemon_check(None).status == "ok"
    assert daemon_check({"pid": 42, "version": "0.1.0"}, "0.1.0").detail == "running (pid 42, version 0.1.0)"
    other = daemon_check({"pid": 42, "version": "0.0.9"}, "0.1.0")
    assert other.status == "warn" and other.fix == "casetrack daemon stop"


def test_client_check_compares_with_this_installation(tmp_path: Path) -> None:
    exe = Path(sys.executable)
    mine = (str(exe), "serve")
    state = ClientState(
        "claude_code",
        "Claude Code",
        "casetrack setup-claude-code",
        (Registered("user scope", mine),),
        expected=mine,
    )
    assert client_check(state).status == "ok"
    elsewhere = ClientState(
        "claude_code",
        "Claude Code",
        "casetrack setup-claude-code",
        (Registered("user scope", (str(exe), "--data-dir", "/other", "serve")),),
        expected=mine,
    )
    check = client_check(elsewhere)
    assert check.status == "warn" and "another installation or data folder" in check.detail


def test_disk_and_memory_thresholds(tmp_path: Path) -> None:
    assert disk_check(tmp_path, free=100 << 20).status == "fail"
    assert disk_check(tmp_path, free=1 * GIB).status == "warn"
    assert disk_check(tmp_path, free=50 * GIB).status == "ok"
    low = memory_check(None, 4 * GIB, 1 * GIB)
    assert low.status == "warn" and "constrained" in low.detail and "E12" in low.detail
    assert memory_check(None, 32 * GIB, 20 * GIB).status == "ok"
    assert memory_check("standard", 4 * GIB, 1 * GIB).status == "ok"
