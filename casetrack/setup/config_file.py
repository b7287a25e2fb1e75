"""Safe edits of a JSON config file that other programs own (~/.claude.json, .mcp.json,
claude_desktop_config.json).

Only one key changes: `<servers object>[name]`. Everything else is kept as parsed, in order. A
file that does not parse is refused and left untouched. A change is written to a temporary file
in the same folder, fsynced and renamed over the old file (atomic), with the old file's mode,
after a timestamped backup of the old file into the caller's backup folder (DATA_DIR/backups,
`setup/backups.py`). Writing the same entry again changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from casetrack import atomic_files
from casetrack.errors import CaseTrackError
from casetrack.setup.backups import backup_file

Action = Literal["added", "updated", "unchanged", "removed", "absent"]
CHANGES: tuple[Action, ...] = ("added", "updated", "removed")


@dataclass(frozen=True)
class MergeResult:
    """What happened (or, in a dry run, would happen) to our entry in one file."""

    path: Path
    action: Action
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    backup: Path | None = None
    dry_run: bool = False

    @property
    def changed(self) -> bool:
        return self.action in CHANGES

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "action": self.action,
            "backup": str(self.backup) if self.backup else None,
            "before": self.before,
            "after": self.after,
            "dry_run": self.dry_run,
        }


@dataclass(frozen=True)
class Plan:
    result: MergeResult
    document: dict[str, Any]


def read_config(path: Path) -> dict[str, Any]:
    """The file's JSON object; a missing or empty file is `{}`. Anything else is refused."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise CaseTrackError(
            f"Cannot read {path}: {e.strerror or e}.", "Check the file's permissions, then run this again."
        ) from e
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CaseTrackError(
            f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); it was left untouched.",
            "Fix the file (or move it aside), then run this command again.",
        ) from e
    if not isinstance(data, dict):
        raise CaseTrackError(
            f"{path} does not hold a JSON object; it was left untouched.",
            "Fix the file (or move it aside), then run this command again.",
        )
    return data


def normalized(entry: Any) -> Any:
    """An entry as the client reads it: `"type": "stdio"` and an empty `env` are defaults."""
    if not isinstance(entry, dict):
        return entry
    out = {k: v for k, v in entry.items() if not (k == "env" and not v)}
    if out.get("type") == "stdio":
        del out["type"]
    return out


def same_entry(a: Any, b: Any) -> bool:
    return bool(normalized(a) == normalized(b))


def _servers(
    document: dict[str, Any], keys: Sequence[str], path: Path, create: bool
) -> dict[str, Any] | None:
    """The object at `keys` (e.g. ["mcpServers"]), created on the way when `create`."""
    node: dict[str, Any] = document
    for i, key in enumerate(keys):
        child = node.get(key)
        if child is None:
            if not create:
                return None
            child = node[key] = {}
        if not isinstance(child, dict):
            where = ".".join(json.dumps(k) for k in keys[: i + 1])
            raise CaseTrackError(
                f"{path}: {where} is not a JSON object; the file was left untouched.",
                "Fix that key in the file, then run this command again.",
            )
        node = child
    return node


def plan_change(path: Path, keys: Sequence[str], name: str, entry: dict[str, Any] | None) -> Plan:
    """Read `path` and work out the change (entry None: remove ours). Writes nothing."""
    document = read_config(path)
    servers = _servers(document, keys, path, create=entry is not None)
    before = servers.get(name) if servers is not None else None
    if before is not None and not isinstance(before, dict):
        before = {"value": before}
    action: Action
    if entry is None:
        action = "absent" if servers is None or name not in servers else "removed"
        if servers is not None and name in servers:
            del servers[name]
    else:
        assert servers is not None
        if name not in servers:
            action = "added"
        elif same_entry(servers[name], entry):
            action = "unchanged"
        else:
            action = "updated"
        if action != "unchanged":
            servers[name] = entry
    after = None if entry is None else entry
    return Plan(MergeResult(path=path, action=action, before=before, after=after), document)


def update_server(
    path: Path,
    keys: Sequence[str],
    name: str,
    entry: dict[str, Any] | None,
    dry_run: bool = False,
    *,
    backup_dir: Path | None,
) -> MergeResult:
    """Set (or, with entry None, remove) `name` under `keys` in the JSON file at `path`.

    The file as it was is copied into `backup_dir` first (None: no backup, e.g. when the data
    folder that would hold it is being deleted).
    """
    plan = plan_change(path, keys, name, entry)
    result = plan.result
    if dry_run or not result.changed:
        return MergeResult(result.path, result.action, result.before, result.after, None, dry_run)
    target = path.resolve() if path.is_symlink() else path  # keep a dotfiles symlink a symlink
    backup = backup_file(target, backup_dir) if backup_dir is not None else None
    write_json_atomic(target, plan.document)
    return MergeResult(path, result.action, result.before, result.after, backup, False)


def write_json_atomic(path: Path, document: dict[str, Any]) -> None:
    """Temp file in the same folder → fsync → rename over `path` (the old file's mode kept, a new
    one gets the umask's) → fsync the folder (casetrack/atomic_files.py)."""
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CaseTrackError(
            f"Cannot write in {path.parent}: {e.strerror or e}; nothing was changed.",
            f"Make {path.parent} writable, then run this again.",
        ) from e
    try:
        atomic_files.write_text(path, text, mode=None)
    except OSError as e:
        raise CaseTrackError(
            f"Cannot write {path}: {e.strerror or e}; the old file was kept.",
            "Close programs that hold the file open (Claude), then run this again.",
        ) from e
