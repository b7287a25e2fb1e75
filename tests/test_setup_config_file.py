"""Safe merge of our one key into JSON config files that other programs own."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from casetrack.errors import CaseTrackError
from casetrack.setup.backups import backups_of
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


def store(tmp_path: Path) -> Path:
    """Where the tests' backups go: DATA_DIR/backups."""
    return tmp_path / "data" / "backups"


def backups(tmp_path: Path) -> list[Path]:
    assert sorted(tmp_path.glob("*.bak")) == []  # never beside the file
    return sorted(store(tmp_path).glob("*.bak"))


def leftovers(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.tmp"))


def test_missing_file_is_created_with_only_our_entry(tmp_path: Path) -> None:
    path = tmp_path / "sub" / ".mcp.json"
    result = update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    assert (result.action, result.before, result.after, result.backup) == ("added", None, ENTRY, None)
    assert load(path) == {"mcpServers": {"casetrack": ENTRY}}
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert leftovers(path.parent) == []


def test_add_keeps_every_other_key_backs_up_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    original = write(path, OTHERS, mode=0o600)
    result = update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
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
    update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    written = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    result = update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    assert (result.action, result.backup, result.before) == ("unchanged", None, ENTRY)
    assert path.read_bytes() == written and path.stat().st_mtime_ns == mtime
    assert len(backups(tmp_path)) == 1


def test_changed_entry_is_updated_and_reports_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, {**OTHERS, "mcpServers": {**OTHERS["mcpServers"], "casetrack": ENTRY}})
    new = {**ENTRY, "args": ["--data-dir", "/data/ct", "serve"]}
    result = update_server(path, KEYS, "casetrack", new, backup_dir=store(tmp_path))
    assert (result.action, result.before, result.after) == ("updated", ENTRY, new)
    assert result.backup is not None and load(result.backup)["mcpServers"]["casetrack"] == ENTRY
    assert load(path)["mcpServers"] == {**OTHERS["mcpServers"], "casetrack": new}


def test_remove_deletes_only_our_key_then_reports_absent(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, {**OTHERS, "mcpServers": {**OTHERS["mcpServers"], "casetrack": ENTRY}})
    result = update_server(path, KEYS, "casetrack", None, backup_dir=store(tmp_path))
    assert (result.action, result.before, result.after) == ("removed", ENTRY, None)
    assert result.backup is not None
    assert load(path) == OTHERS
    written = path.read_bytes()
    again = update_server(path, KEYS, "casetrack", None, backup_dir=store(tmp_path))
    assert (again.action, again.backup) == ("absent", None)
    assert path.read_bytes() == written and len(backups(tmp_path)) == 1


def test_remove_from_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    assert update_server(path, KEYS, "casetrack", None, backup_dir=store(tmp_path)).action == "absent"
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
            update_server(path, KEYS, "casetrack", entry, backup_dir=store(tmp_path))
        assert str(path) in info.value.message and "untouched" in info.value.message
        assert info.value.hint and "run this command again" in info.value.hint
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".claude.json"]


def test_nested_key_path_is_created_beside_other_projects(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, OTHERS)
    keys = ("projects", "/home/u/other", "mcpServers")
    assert update_server(path, keys, "casetrack", ENTRY, backup_dir=store(tmp_path)).action == "added"
    data = load(path)
    assert data["projects"]["/home/u/other"] == {"mcpServers": {"casetrack": ENTRY}}
    assert data["projects"]["/home/u/matter"] == OTHERS["projects"]["/home/u/matter"]
    assert data["mcpServers"] == OTHERS["mcpServers"]


def test_dry_run_reports_the_change_and_touches_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    before = write(path, OTHERS)
    result = update_server(path, KEYS, "casetrack", ENTRY, dry_run=True, backup_dir=store(tmp_path))
    assert (result.action, result.dry_run, result.backup, result.after) == ("added", True, None, ENTRY)
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]
    missing = tmp_path / "none" / ".mcp.json"
    assert (
        update_server(missing, KEYS, "casetrack", ENTRY, dry_run=True, backup_dir=store(tmp_path)).action
        == "added"
    )
    assert not missing.parent.exists()


def test_empty_file_counts_as_an_empty_object(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text("\n", encoding="utf-8")
    assert read_config(path) == {}
    result = update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    assert result.action == "added" and result.backup is not None
    assert load(path) == {"mcpServers": {"casetrack": ENTRY}}


def test_a_symlinked_config_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    write(real, OTHERS)
    link = tmp_path / ".claude.json"
    link.symlink_to(real)
    update_server(link, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    assert link.is_symlink() and load(real)["mcpServers"]["casetrack"] == ENTRY


def test_client_defaults_do_not_count_as_a_change() -> None:
    written_by_claude = {"type": "stdio", "command": "/x/casetrack", "args": ["serve"], "env": {}}
    assert same_entry(written_by_claude, {"command": "/x/casetrack", "args": ["serve"]})
    assert not same_entry(
        written_by_claude, {"command": "/x/casetrack", "args": ["serve"], "env": {"A": "1"}}
    )


# -- backups: in DATA_DIR/backups, private, the newest few per file ----------------------------------


def test_backups_go_to_the_private_backups_folder_not_beside_the_file(tmp_path: Path) -> None:
    path = tmp_path / "home" / ".claude.json"
    path.parent.mkdir()
    original = write(path, OTHERS, mode=0o644)
    result = update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    assert result.backup is not None and result.backup.parent == store(tmp_path)
    assert result.backup.read_bytes() == original and result.backup.name.startswith("claude.json.")
    assert sorted(p.name for p in path.parent.iterdir()) == [".claude.json"]  # nothing piles up at home
    if os.name == "posix":
        assert stat.S_IMODE(store(tmp_path).stat().st_mode) == 0o700
        assert stat.S_IMODE(result.backup.stat().st_mode) == 0o600  # it holds the account's details


def test_only_the_newest_five_backups_of_each_file_are_kept(tmp_path: Path) -> None:
    first = tmp_path / "a" / ".mcp.json"
    second = tmp_path / "b" / ".mcp.json"  # same name, another project: its own five
    made: dict[Path, list[Path]] = {first: [], second: []}
    for path in (first, second):
        path.parent.mkdir()
        write(path, {"mcpServers": {}})
    for n in range(7):
        for path in (first, second):
            entry = {**ENTRY, "args": ["serve", str(n)]}
            result = update_server(path, KEYS, "casetrack", entry, backup_dir=store(tmp_path))
            assert result.backup is not None
            made[path].append(result.backup)
    for path in (first, second):
        kept = backups_of(path, store(tmp_path))
        assert kept == made[path][-5:] and all(b.exists() for b in kept)
        assert not any(b.exists() for b in made[path][:2])
        assert load(kept[-1])["mcpServers"]["casetrack"]["args"] == [
            "serve",
            "5",
        ]  # the file before the last write
    assert len(backups(tmp_path)) == 10


def test_backups_an_older_version_left_beside_the_file_move_in(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, OTHERS)
    old = [tmp_path / ".claude.json.20240101-100000.bak", tmp_path / ".claude.json.20240101-100000-1.bak"]
    for backup in old:
        backup.write_text("{}", encoding="utf-8")
    unrelated = tmp_path / ".claude.json.mine.bak"
    unrelated.write_text("{}", encoding="utf-8")
    result = update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    assert not any(p.exists() for p in old) and unrelated.exists()
    kept = backups_of(path, store(tmp_path))
    assert len(kept) == 3 and kept[-1] == result.backup


def test_no_backup_folder_means_no_backup(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    write(path, OTHERS)
    result = update_server(path, KEYS, "casetrack", ENTRY, backup_dir=None)
    assert result.action == "added" and result.backup is None and not store(tmp_path).exists()


def test_a_backup_that_cannot_be_written_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    before = write(path, OTHERS)
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be", encoding="utf-8")
    with pytest.raises(CaseTrackError) as info:
        update_server(path, KEYS, "casetrack", ENTRY, backup_dir=store(tmp_path))
    assert "Cannot back up" in info.value.message and "nothing was changed" in info.value.message
    assert info.value.hint and "--data-dir" in info.value.hint
    assert path.read_bytes() == before
