"""Register CaseTrack with Claude Code: through `claude mcp` when installed, else by a safe file edit.

Where Claude Code keeps stdio servers:
  user     ~/.claude.json            mcpServers
  project  <project>/.mcp.json       mcpServers
  local    ~/.claude.json            projects["<abs project path>"].mcpServers
With CLAUDE_CONFIG_DIR set, Claude Code keeps `.claude.json` in that folder instead of ~.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from casetrack.errors import CaseTrackError
from casetrack.setup.config_file import MergeResult, plan_change, update_server
from casetrack.setup.launcher import SERVER_NAME, ServerEntry

Scope = Literal["user", "project", "local"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")
Method = Literal["claude", "file"]
CLAUDE_TIMEOUT_S = 120
ENV_CLAUDE_CONFIG_DIR = "CLAUDE_CONFIG_DIR"


@dataclass(frozen=True)
class ClaudeCodeResult:
    scope: Scope
    method: Method  # "claude": through the `claude mcp` commands; "file": edited the file
    change: MergeResult
    commands: tuple[tuple[str, ...], ...] = ()  # the `claude` commands run (or, dry run, to run)

    def to_json(self) -> dict[str, Any]:
        return {
            "client": "claude-code",
            "scope": self.scope,
            "method": self.method,
            **self.change.to_json(),
            "commands": [list(c) for c in self.commands],
        }


def config_location(scope: Scope, home: Path, cwd: Path) -> tuple[Path, tuple[str, ...]]:
    """The file and the key path of the servers object that `scope` uses."""
    if scope == "user":
        return home / ".claude.json", ("mcpServers",)
    if scope == "project":
        return cwd / ".mcp.json", ("mcpServers",)
    if scope == "local":
        return home / ".claude.json", ("projects", str(cwd), "mcpServers")
    raise CaseTrackError(f"Unknown scope {scope!r}.", f"Use one of: {', '.join(SCOPES)}.")


def claude_commands(entry: ServerEntry, scope: Scope, action: str, claude: str) -> list[list[str]]:
    """The `claude mcp` commands that make Claude Code's config match `action`.

    The name goes before `--env`: `--env` takes several values and would swallow it.
    """
    remove = [claude, "mcp", "remove", "--scope", scope, SERVER_NAME]
    if action == "removed":
        return [remove]
    if action not in ("added", "updated"):
        return []
    add = [claude, "mcp", "add", "--scope", scope, SERVER_NAME]
    for key, value in entry.env.items():
        add += ["--env", f"{key}={value}"]
    add += ["--", *entry.command_line()]
    return [remove, add] if action == "updated" else [add]


def claude_home(environ: dict[str, str] | None = None) -> Path:
    """The folder holding Claude Code's `.claude.json`: $CLAUDE_CONFIG_DIR, else the home folder."""
    env = os.environ if environ is None else environ
    custom = env.get(ENV_CLAUDE_CONFIG_DIR)
    return Path(custom).expanduser() if custom else Path.home()


def _run_claude(argv: list[str], cwd: Path, home: Path | None, config: Path) -> None:
    env = dict(os.environ)
    if home is not None:  # an explicit home wins over the caller's environment
        env.pop(ENV_CLAUDE_CONFIG_DIR, None)
        env["HOME"] = str(home)
        if os.name == "nt":
            env["USERPROFILE"] = str(home)
    try:
        proc = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLAUDE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CaseTrackError(
            f"Could not run `{' '.join(argv[:3])}`: {e}.",
            f"Run `casetrack setup-claude-code --edit-file` to edit {config} directly.",
        ) from e
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise CaseTrackError(
            f"`claude {' '.join(argv[1:3])}` failed (exit {proc.returncode})"
            + (f": {detail[-1]}" if detail else "."),
            f"Run `casetrack setup-claude-code --edit-file` to edit {config} directly.",
        )


def setup_claude_code(
    entry: ServerEntry,
    scope: Scope = "user",
    dry_run: bool = False,
    remove: bool = False,
    home: Path | None = None,
    cwd: Path | None = None,
    claude_bin: str | None = None,
    use_claude: bool = True,
    *,
    backup_dir: Path | None,
) -> ClaudeCodeResult:
    """Add, update or (`remove`) the casetrack server in Claude Code's `scope`.

    `home`: the folder holding `.claude.json` (default: $CLAUDE_CONFIG_DIR or the home folder).
    `claude_bin`: the `claude` command (default: found on PATH); with none, or `use_claude`
    false, the config file is edited directly, after a backup into `backup_dir` (DATA_DIR/backups).
    A dry run reports the change and touches nothing.
    """
    if scope not in SCOPES:
        raise CaseTrackError(f"Unknown scope {scope!r}.", f"Use one of: {', '.join(SCOPES)}.")
    home_dir = (home or claude_home()).absolute()
    project = (cwd or Path.cwd()).resolve()
    path, keys = config_location(scope, home_dir, project)
    wanted = None if remove else entry.to_json(with_type=True)
    claude = (claude_bin or shutil.which("claude")) if use_claude else None
    if not claude:
        change = update_server(path, keys, SERVER_NAME, wanted, dry_run=dry_run, backup_dir=backup_dir)
        return ClaudeCodeResult(scope, "file", change)

    planned = plan_change(path, keys, SERVER_NAME, wanted).result
    commands = claude_commands(entry, scope, planned.action, claude)
    if not dry_run:
        for argv in commands:
            _run_claude(argv, project, home, path)
    change = MergeResult(path, planned.action, planned.before, planned.after, None, dry_run)
    return ClaudeCodeResult(scope, "claude", change, tuple(tuple(c) for c in commands))
