"""Safe merge of our one key into JSON config files that other programs own."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from casetrack.errors import CaseTrackError
from casetrack.setup.config_file import read_config, same_entry, update_server

ENTRY = {"type": "stdio", "command": "/opt/ct/bin/casetrack", "args": ["serve"]}
OTHERS: dict[str, Any] = {
    "numStartups": 42,
    "theme": "dark",
    "oauthAccount": {"emailAddress": "lawyer@example.com"},
    "projects": {"/home/u/matter": {"allowedTools": ["Read"], "mcpServers": {}}},
    "mcpServers": {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "gh-mcp"], "env": {"T": "x"}}
    },
    "notes": "ação — 契約",
}
KEYS = ("mcpServers",)


def write(path: Path, data: Any, mode: int = 0o600) -> bytes:
    path.write_text(json.dumps(data, indent=4, ensure_ascii=False), encoding="utf-8")
    path.chmod(mode)
    return path.read_bytes()


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.bak"))


def leftovers(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.tmp"))


def test_missing_file_is_created_with_only_our_entry(tmp_path: Path) -> None:
    path = tmp_path / "sub" / ".mcp.json"
    result = update_server(path, KEYS, "casetrack", ENTRY)
    assert (result.action, result.before, result.after, result.backup) == ("added", None, ENTRY, None)
    assert load(path) == {"mcpServers": {"casetrack": ENTRY}}
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert leftovers(path.parent) == []


def test_add_keeps_every_other_key_backs_up_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    original = write(path, OTHERS, mode=0o600)
    result = update_server(path, KEYS, "casetrack", ENTRY)
    assert result.action == "added" and result.backup is not None
    assert result.backup.read_bytes() == original  # the backup is the file as it was
    data = load(path)
    assert data["mcpServers"] == {**OTHERS["mcpServers"], "casetrack": ENTRY}
    assert {k: v for k, v in data.items() if k != "mcpServers"} == {
        k: v for k, v in OTHERS.items() if k != "mcpServers"
    }
    assert list(data) == list(OTHERS)  # key order kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert backups(tmp_path) == [result.backup] and leftovers(tmp_path) == []


def test_same_entry_again_is_unchanged_with_no_write_and_no_backup(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, OTHERS)
    update_server(path, KEYS, "casetrack", ENTRY)
    written = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    result = update_server(path, KEYS, "casetrack", ENTRY)
    assert (result.action, result.backup, result.before) == ("unchanged", None, ENTRY)
    assert path.read_bytes() == written and path.stat().st_mtime_ns == mtime
    assert len(backups(tmp_path)) == 1


def test_changed_entry_is_updated_and_reports_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, {**OTHERS, "mcpServers": {**OTHERS["mcpServers"], "casetrack": ENTRY}})
    new = {**ENTRY, "args": ["--data-dir", "/data/ct", "serve"]}
    result = update_server(path, KEYS, "casetrack", new)
    assert (result.action, result.before, result.after) == ("updated", ENTRY, new)
    assert result.backup is not None and load(result.backup)["mcpServers"]["casetrack"] == ENTRY
    assert load(path)["mcpServers"] == {**OTHERS["mcpServers"], "casetrack": new}


def test_remove_deletes_only_our_key_then_reports_absent(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, {**OTHERS, "mcpServers": {**OTHERS["mcpServers"], "casetrack": ENTRY}})
    result = update_server(path, KEYS, "casetrack", None)
    assert (result.action, result.before, result.after) == ("removed", ENTRY, None)
    assert result.backup is not None
    assert load(path) == OTHERS
    written = path.read_bytes()
    again = update_server(path, KEYS, "casetrack", None)
    assert (again.action, again.backup) == ("absent", None)
    assert path.read_bytes() == written and len(backups(tmp_path)) == 1


def test_remove_from_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    assert update_server(path, KEYS, "casetrack", None).action == "absent"
    assert not path.exists()


@pytest.mark.parametrize(
    "text",
    ['{"mcpServers": {"github": {}},', "[1, 2]", '{"mcpServers": ["not", "an", "object"]}'],
    ids=["truncated", "not-an-object", "servers-not-an-object"],
)
def test_a_file_we_cannot_merge_is_refused_and_left_untouched(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".claude.json"
    path.write_text(text, encoding="utf-8")
    before = path.read_bytes()
    for entry in (ENTRY, None):
        with pytest.raises(CaseTrackError) as info:
            update_server(path, KEYS, "casetrack", entry)
        assert str(path) in info.value.message and "untouched" in info.value.message
        assert info.value.hint and "run this command again" in info.value.hint
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".claude.json"]


def test_nested_key_path_is_created_beside_other_projects(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, OTHERS)
    keys = ("projects", "/home/u/other", "mcpServers")
    assert update_server(path, keys, "casetrack", ENTRY).action == "added"
    data = load(path)
    assert data["projects"]["/home/u/other"] == {"mcpServers": {"casetrack": ENTRY}}
    assert data["projects"]["/home/u/matter"] == OTHERS["projects"]["/home/u/matter"]
    assert data["mcpServers"] == OTHERS["mcpServers"]


def test_dry_run_reports_the_change_and_touches_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    before = write(path, OTHERS)
    result = update_server(path, KEYS, "casetrack", ENTRY, dry_run=True)
    assert (result.action, result.dry_run, result.backup, result.after) == ("added", True, None, ENTRY)
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]
    missing = tmp_path / "none" / ".mcp.json"
    assert update_server(missing, KEYS, "casetrack", ENTRY, dry_run=True).action == "added"
    assert not missing.parent.exists()


def test_empty_file_counts_as_an_empty_object(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text("\n", encoding="utf-8")
    assert read_config(path) == {}
    result = update_server(path, KEYS, "casetrack", ENTRY)
    assert result.action == "added" and result.backup is not None
    assert load(path) == {"mcpServers": {"casetrack": ENTRY}}


def test_a_symlinked_config_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    write(real, OTHERS)
    link = tmp_path / ".claude.json"
    link.symlink_to(real)
    update_server(link, KEYS, "casetrack", ENTRY)
    assert link.is_symlink() and load(real)["mcpServers"]["casetrack"] == ENTRY


def test_client_defaults_do_not_count_as_a_change() -> None:
    written_by_claude = {"type": "stdio", "command": "/x/casetrack", "args": ["serve"], "env": {}}
    assert same_entry(written_by_claude, {"command": "/x/casetrack", "args": ["serve"]})
    assert not same_entry(
        written_by_claude, {"command": "/x/casetrack", "args": ["serve"], "env": {"A": "1"}}
    )
