"""`setup-claude-code` / `setup-claude-desktop`: the registered command, the files, the `claude` CLI.

The `claude` command is played by a small script on PATH that records its arguments; HOME and
the project folder are temporary folders, never the real ones.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from casetrack.cli.main import CaseTrackGroup
from casetrack.cli.setup_cmds import setup_claude_code_cmd, setup_claude_desktop_cmd
from casetrack.config import Settings, default_data_dir
from casetrack.errors import CaseTrackError
from casetrack.setup.claude_code import claude_home, setup_claude_code
from casetrack.setup.claude_desktop import desktop_config_path
from casetrack.setup.launcher import ServerEntry, build_server_entry, casetrack_command

posix_only = pytest.mark.skipif(os.name == "nt", reason="the fake `claude` is a POSIX script")

FAKE_CLAUDE = """#!{python}
import json, os, sys
with open({log!r}, "a", encoding="utf-8") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd(), "home": os.environ.get("HOME")}}) + "\\n")
if os.environ.get("FAKE_CLAUDE_FAIL"):
    print("MCP server casetrack already exists in user config", file=sys.stderr)
    sys.exit(1)
"""
GITHUB = {"type": "stdio", "command": "npx", "args": ["-y", "gh-mcp"], "env": {"TOKEN": "t"}}
USER_CONFIG = {
    "numStartups": 3,
    "projects": {"/srv/other": {"mcpServers": {}}},
    "mcpServers": {"github": GITHUB},
}


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "matter"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder.resolve()


@pytest.fixture
def no_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Puts a recording `claude` first on PATH; returns its log (one JSON line per run)."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    log = tmp_path / "claude-calls.jsonl"
    script = bin_dir / "claude"
    script.write_text(FAKE_CLAUDE.format(python=sys.executable, log=str(log)), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return log


def backups_in(user_home: Path) -> Path:
    """The tests' DATA_DIR/backups (beside the fake home, never in it)."""
    return user_home.parent / "data" / "backups"


def calls(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write(path: Path, data: Any) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path.read_bytes()


ENTRY = ServerEntry(command="/opt/ct/bin/casetrack", args=("serve",))
ENTRY_ENV = ServerEntry(
    "/opt/ct/bin/casetrack", ("--data-dir", "/data/ct", "serve"), {"CASETRACK_MODELS_DIR": "/m"}
)


# --- the registered command ---------------------------------------------------------------


def test_default_settings_register_the_absolute_console_script_and_serve_only() -> None:
    home = default_data_dir().resolve()
    entry = build_server_entry(Settings(data_dir=home, models_dir=home / "models"))
    assert entry.args == ("serve",) and entry.env == {}
    command = Path(entry.command)
    assert command.is_absolute() and command.name.startswith("casetrack")
    assert command.is_file() and os.access(command, os.X_OK)
    assert entry.to_json() == {"type": "stdio", "command": entry.command, "args": ["serve"]}
    assert entry.to_json(with_type=False) == {"command": entry.command, "args": ["serve"]}


def test_chosen_data_and_models_dirs_are_passed_on(tmp_path: Path) -> None:
    data, models = tmp_path / "data", tmp_path / "pack"
    entry = build_server_entry(Settings(data_dir=data, models_dir=data / "models"))
    assert entry.args == ("--data-dir", str(data.resolve()), "serve") and entry.env == {}
    entry = build_server_entry(Settings(data_dir=data, models_dir=models))
    assert entry.env == {"CASETRACK_MODELS_DIR": str(models.resolve())}
    assert entry.to_json()["env"] == {"CASETRACK_MODELS_DIR": str(models.resolve())}


def test_the_registered_command_line_is_one_the_cli_accepts(tmp_path: Path) -> None:
    entry = build_server_entry(Settings(data_dir=tmp_path / "data", models_dir=tmp_path / "data" / "models"))
    assert entry.args[-1] == "serve"
    # `--data-dir` is a group option: it must parse before the subcommand.
    proc = subprocess.run(
        [entry.command, *entry.args[:-1], "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "--data-dir" in proc.stdout


def test_command_falls_back_to_path_then_to_python_m(tmp_path: Path) -> None:
    python = str(tmp_path / "bin" / "python")
    assert casetrack_command(python, which=lambda _: None, windows=False) == [python, "-m", "casetrack"]
    assert casetrack_command(python, which=lambda _: "/usr/local/bin/casetrack", windows=False) == [
        "/usr/local/bin/casetrack"
    ]
    script = tmp_path / "bin" / "casetrack"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    assert casetrack_command(python, which=lambda _: None, windows=False) == [str(script)]
    exe = tmp_path / "bin" / "Scripts" / "casetrack.exe"
    exe.parent.mkdir()
    exe.write_bytes(b"MZ")
    exe.chmod(0o755)
    assert casetrack_command(python, which=lambda _: None, windows=True) == [str(exe)]


# --- Claude Code by file edit ---------------------------------------------------------------


def test_user_scope_edits_claude_json_keeping_everything_else(user_home: Path, project: Path) -> None:
    config = user_home / ".claude.json"
    original = write(config, USER_CONFIG)
    result = setup_claude_code(
        ENTRY, scope="user", home=user_home, cwd=project, use_claude=False, backup_dir=backups_in(user_home)
    )
    assert (result.method, result.change.action, result.change.path) == ("file", "added", config)
    data = load(config)
    assert data["mcpServers"] == {"github": GITHUB, "casetrack": ENTRY.to_json()}
    assert data["numStartups"] == 3 and data["projects"] == USER_CONFIG["projects"]
    assert result.change.backup is not None and result.change.backup.read_bytes() == original
    assert result.change.backup.parent == backups_in(user_home) and list(user_home.glob("*.bak")) == []
    again = setup_claude_code(
        ENTRY, scope="user", home=user_home, cwd=project, use_claude=False, backup_dir=backups_in(user_home)
    )
    assert (again.change.action, again.change.backup) == ("unchanged", None)


def test_project_scope_writes_mcp_json_in_the_project(user_home: Path, project: Path) -> None:
    result = setup_claude_code(
        ENTRY_ENV,
        scope="project",
        home=user_home,
        cwd=project,
        use_claude=False,
        backup_dir=backups_in(user_home),
    )
    assert result.change.path == project / ".mcp.json" and result.change.action == "added"
    assert load(project / ".mcp.json") == {"mcpServers": {"casetrack": ENTRY_ENV.to_json()}}
    assert not (user_home / ".claude.json").exists()


def test_local_scope_writes_under_this_projects_key(user_home: Path, project: Path) -> None:
    write(user_home / ".claude.json", USER_CONFIG)
    setup_claude_code(
        ENTRY, scope="local", home=user_home, cwd=project, use_claude=False, backup_dir=backups_in(user_home)
    )
    data = load(user_home / ".claude.json")
    assert data["projects"][str(project)]["mcpServers"] == {"casetrack": ENTRY.to_json()}
    assert data["projects"]["/srv/other"] == {"mcpServers": {}}
    assert data["mcpServers"] == {"github": GITHUB}
    removed = setup_claude_code(
        ENTRY,
        scope="local",
        remove=True,
        home=user_home,
        cwd=project,
        use_claude=False,
        backup_dir=backups_in(user_home),
    )
    assert removed.change.action == "removed"
    assert load(user_home / ".claude.json")["projects"][str(project)]["mcpServers"] == {}


def test_without_claude_on_path_the_file_is_edited(user_home: Path, project: Path, no_claude: None) -> None:
    result = setup_claude_code(ENTRY, home=user_home, cwd=project, backup_dir=backups_in(user_home))
    assert result.method == "file" and result.commands == ()
    assert load(user_home / ".claude.json")["mcpServers"]["casetrack"] == ENTRY.to_json()


# --- Claude Code through the `claude` command -------------------------------------------------


@posix_only
def test_claude_mcp_add_gets_the_absolute_command(user_home: Path, project: Path, fake_claude: Path) -> None:
    result = setup_claude_code(
        ENTRY, scope="user", home=user_home, cwd=project, backup_dir=backups_in(user_home)
    )
    assert (result.method, result.change.action) == ("claude", "added")
    [call] = calls(fake_claude)
    assert call["argv"] == [
        "mcp",
        "add",
        "--scope",
        "user",
        "casetrack",
        "--",
        "/opt/ct/bin/casetrack",
        "serve",
    ]
    assert call["cwd"] == str(project) and call["home"] == str(user_home)
    assert not (user_home / ".claude.json").exists()  # `claude` owns the file on this path


@posix_only
def test_env_goes_after_the_name_and_update_removes_first(
    user_home: Path, project: Path, fake_claude: Path
) -> None:
    write(user_home / ".claude.json", {"mcpServers": {"casetrack": ENTRY.to_json()}})
    result = setup_claude_code(
        ENTRY_ENV, scope="user", home=user_home, cwd=project, backup_dir=backups_in(user_home)
    )
    assert result.change.action == "updated" and result.change.before == ENTRY.to_json()
    assert [c["argv"] for c in calls(fake_claude)] == [
        ["mcp", "remove", "--scope", "user", "casetrack"],
        ["mcp", "add", "--scope", "user", "casetrack", "--env", "CASETRACK_MODELS_DIR=/m", "--",
         "/opt/ct/bin/casetrack", "--data-dir", "/data/ct", "serve"],
    ]  # fmt: skip


@posix_only
def test_an_entry_claude_already_wrote_is_left_alone(
    user_home: Path, project: Path, fake_claude: Path
) -> None:
    as_claude_writes = {"type": "stdio", "command": ENTRY.command, "args": ["serve"], "env": {}}
    write(project / ".mcp.json", {"mcpServers": {"casetrack": as_claude_writes}})
    result = setup_claude_code(
        ENTRY, scope="project", home=user_home, cwd=project, backup_dir=backups_in(user_home)
    )
    assert (result.change.action, result.commands) == ("unchanged", ())
    assert calls(fake_claude) == []


@posix_only
def test_remove_and_dry_run_through_claude(user_home: Path, project: Path, fake_claude: Path) -> None:
    assert (
        setup_claude_code(
            ENTRY, remove=True, home=user_home, cwd=project, backup_dir=backups_in(user_home)
        ).change.action
        == "absent"
    )
    assert calls(fake_claude) == []
    write(user_home / ".claude.json", {"mcpServers": {"casetrack": ENTRY.to_json()}})
    dry = setup_claude_code(
        ENTRY, remove=True, dry_run=True, home=user_home, cwd=project, backup_dir=backups_in(user_home)
    )
    assert dry.change.action == "removed" and dry.change.dry_run and calls(fake_claude) == []
    assert [c[1:] for c in dry.commands] == [("mcp", "remove", "--scope", "user", "casetrack")]
    setup_claude_code(ENTRY, remove=True, home=user_home, cwd=project, backup_dir=backups_in(user_home))
    assert [c["argv"] for c in calls(fake_claude)] == [["mcp", "remove", "--scope", "user", "casetrack"]]


@posix_only
def test_a_failing_claude_is_a_clear_error(
    user_home: Path, project: Path, fake_claude: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "1")
    with pytest.raises(CaseTrackError) as info:
        setup_claude_code(ENTRY, home=user_home, cwd=project, backup_dir=backups_in(user_home))
    assert "exit 1" in info.value.message and "already exists" in info.value.message
    assert info.value.hint and "--edit-file" in info.value.hint


@posix_only
def test_use_claude_false_edits_the_file_even_with_claude_installed(
    user_home: Path, project: Path, fake_claude: Path
) -> None:
    result = setup_claude_code(
        ENTRY, home=user_home, cwd=project, use_claude=False, backup_dir=backups_in(user_home)
    )
    assert result.method == "file" and calls(fake_claude) == []
    assert load(user_home / ".claude.json")["mcpServers"]["casetrack"] == ENTRY.to_json()


def test_claude_config_dir_moves_claude_json(
    tmp_path: Path, user_home: Path, project: Path, no_claude: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = tmp_path / "claude-work"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(custom))
    assert claude_home() == custom
    assert setup_claude_code(ENTRY, backup_dir=backups_in(user_home)).change.path == custom / ".claude.json"
    assert load(custom / ".claude.json")["mcpServers"]["casetrack"] == ENTRY.to_json()
    assert not (user_home / ".claude.json").exists()


# --- Claude Desktop's config location ----------------------------------------------------------


def test_desktop_config_path_per_platform(tmp_path: Path) -> None:
    home = tmp_path / "u"
    name = "claude_desktop_config.json"
    assert (
        desktop_config_path("darwin", home, {}) == home / "Library" / "Application Support" / "Claude" / name
    )
    assert desktop_config_path("win32", home, {"APPDATA": str(tmp_path / "Roaming")}) == (
        tmp_path / "Roaming" / "Claude" / name
    )
    assert desktop_config_path("win32", home, {}) == home / "AppData" / "Roaming" / "Claude" / name
    assert desktop_config_path("linux", home, {}) == home / ".config" / "Claude" / name
    assert desktop_config_path("linux", home, {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}) == (
        tmp_path / "xdg" / "Claude" / name
    )


# --- the CLI commands --------------------------------------------------------------------------


def settings(tmp_path: Path) -> Settings:
    data = tmp_path / "data"
    return Settings(data_dir=data, models_dir=data / "models")


def run(tmp_path: Path, *args: str, code: int = 0) -> Result:
    group = CaseTrackGroup(name="casetrack")
    for command in (setup_claude_code_cmd, setup_claude_desktop_cmd):
        group.add_command(command)
    result = CliRunner().invoke(group, list(args), obj=settings(tmp_path), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="checks the Linux config location")
def test_setup_claude_desktop_command(tmp_path: Path, user_home: Path) -> None:
    config = user_home / ".config" / "Claude" / "claude_desktop_config.json"
    write(config, {"mcpServers": {"github": GITHUB}, "globalShortcut": "Ctrl+Space"})
    out = run(tmp_path, "setup-claude-desktop").output
    assert f"Added casetrack to Claude Desktop: {config}" in out
    assert "backup of the previous file:" in out and "restart Claude Desktop" in out
    entry = load(config)["mcpServers"]["casetrack"]
    assert "type" not in entry and entry["args"] == [
        "--data-dir",
        str((tmp_path / "data").resolve()),
        "serve",
    ]
    assert load(config)["globalShortcut"] == "Ctrl+Space" and load(config)["mcpServers"]["github"] == GITHUB

    written = config.read_bytes()
    assert "already set up, unchanged" in run(tmp_path, "setup-claude-desktop").output
    report = json.loads(run(tmp_path, "setup-claude-desktop", "--json").output)
    assert (report["action"], report["backup"], report["client"]) == ("unchanged", None, "claude-desktop")
    assert config.read_bytes() == written and list(config.parent.glob("*.bak")) == []
    [backup] = (tmp_path / "data" / "backups").glob("claude_desktop_config.json.*.bak")
    assert f"backup of the previous file: {backup}" in out  # said where it went

    dry = run(tmp_path, "setup-claude-desktop", "--remove", "--dry-run").output
    assert "would remove casetrack" in dry and "Nothing was changed" in dry
    assert config.read_bytes() == written
    assert "Removed casetrack from Claude Desktop" in run(tmp_path, "setup-claude-desktop", "--remove").output
    assert load(config) == {"mcpServers": {"github": GITHUB}, "globalShortcut": "Ctrl+Space"}


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="checks the Linux config location")
def test_unparsable_desktop_config_is_refused_with_a_hint(tmp_path: Path, user_home: Path) -> None:
    config = user_home / ".config" / "Claude" / "claude_desktop_config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"mcpServers": {', encoding="utf-8")
    result = run(tmp_path, "setup-claude-desktop", code=1)
    assert "Error:" in result.output and "is not valid JSON" in result.output
    assert "run this command again" in result.output
    assert config.read_text(encoding="utf-8") == '{"mcpServers": {'
    assert [p.name for p in config.parent.iterdir()] == [config.name]


def test_setup_claude_code_command_without_claude(
    tmp_path: Path, user_home: Path, project: Path, no_claude: None
) -> None:
    report = json.loads(run(tmp_path, "setup-claude-code", "--scope", "project", "--json").output)
    assert (report["method"], report["action"], report["path"]) == (
        "file",
        "added",
        str(project / ".mcp.json"),
    )
    assert "claude mcp list" in report["next_step"]
    assert load(project / ".mcp.json")["mcpServers"]["casetrack"]["args"][-1] == "serve"
    out = run(tmp_path, "setup-claude-code", "--remove", "--dry-run").output
    assert "casetrack is not set up in Claude Code (user scope)" in out
    assert not (user_home / ".claude.json").exists()


@posix_only
def test_setup_claude_code_command_with_claude(
    tmp_path: Path, user_home: Path, project: Path, fake_claude: Path
) -> None:
    out = run(tmp_path, "setup-claude-code").output
    assert "Added casetrack to Claude Code (user scope)" in out
    assert "ran: " in out and " mcp add --scope user casetrack -- " in out
    assert "Next: run `claude mcp list`" in out
    [call] = calls(fake_claude)
    assert call["argv"][:6] == ["mcp", "add", "--scope", "user", "casetrack", "--"]
    assert call["argv"][-3:] == ["--data-dir", str((tmp_path / "data").resolve()), "serve"]
    assert Path(call["argv"][6]).is_absolute()
    run(tmp_path, "setup-claude-code", "--edit-file")
    assert len(calls(fake_claude)) == 1
    assert load(user_home / ".claude.json")["mcpServers"]["casetrack"]["command"] == call["argv"][6]
