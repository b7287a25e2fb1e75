"""Where CaseTrack is registered with Claude: a read-only look at the config files setup edits.

Claude Code: `~/.claude.json` (user scope: `mcpServers`; local scope: `projects[<folder>].mcpServers`,
every project folder) and `.mcp.json` in the current folder (project scope). Claude Desktop:
`claude_desktop_config.json`. For `casetrack doctor` (is it registered, does the command still
exist) and `casetrack uninstall` (what to take out).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from casetrack.errors import CaseTrackError
from casetrack.setup.claude_code import config_location
from casetrack.setup.config_file import read_config
from casetrack.setup.launcher import SERVER_NAME

Client = Literal["claude-code", "claude-desktop"]


@dataclass(frozen=True)
class Registration:
    """One `casetrack` entry in one config file."""

    client: Client
    scope: str  # "user" | "local" | "project" | "desktop"
    path: Path
    entry: dict[str, Any]
    project: str | None = None  # local scope: the project folder it is set for

    @property
    def keys(self) -> tuple[str, ...]:
        """The key path of the servers object holding the entry."""
        return ("projects", self.project, "mcpServers") if self.project is not None else ("mcpServers",)

    @property
    def command(self) -> tuple[str, ...]:
        command = self.entry.get("command")
        args = self.entry.get("args")
        if not isinstance(command, str):
            return ()
        return (command, *(str(a) for a in args)) if isinstance(args, list) else (command,)

    @property
    def where(self) -> str:
        if self.scope == "desktop":
            return f"Claude Desktop ({self.path})"
        if self.scope == "local":
            return f"local scope for {self.project} ({self.path})"
        return f"{self.scope} scope ({self.path})"


@dataclass(frozen=True)
class Registrations:
    found: tuple[Registration, ...]
    unreadable: tuple[tuple[Path, str], ...]  # a file that exists but does not parse, and why
    desktop_installed: bool  # Claude Desktop's config folder exists

    def of(self, client: Client) -> tuple[Registration, ...]:
        return tuple(r for r in self.found if r.client == client)

    def unreadable_of(self, client: Client, desktop_path: Path) -> tuple[tuple[Path, str], ...]:
        return tuple(u for u in self.unreadable if (u[0] == desktop_path) == (client == "claude-desktop"))


def _entry(node: Any) -> dict[str, Any] | None:
    servers = node.get("mcpServers") if isinstance(node, dict) else None
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def _read(path: Path, unreadable: list[tuple[Path, str]]) -> dict[str, Any]:
    try:
        return read_config(path)
    except CaseTrackError as e:
        unreadable.append((path, e.message))
        return {}


def find_registrations(claude_home: Path, cwd: Path, desktop_path: Path) -> Registrations:
    """Every `casetrack` entry in Claude Code's and Claude Desktop's files. Reads, never writes."""
    found: list[Registration] = []
    unreadable: list[tuple[Path, str]] = []
    user_file, _ = config_location("user", claude_home, cwd)
    document = _read(user_file, unreadable)
    entry = _entry(document)
    if entry is not None:
        found.append(Registration("claude-code", "user", user_file, entry))
    projects = document.get("projects")
    if isinstance(projects, dict):
        for folder, node in projects.items():
            entry = _entry(node)
            if entry is not None:
                found.append(Registration("claude-code", "local", user_file, entry, str(folder)))
    project_file, _ = config_location("project", claude_home, cwd)
    entry = _entry(_read(project_file, unreadable))
    if entry is not None:
        found.append(Registration("claude-code", "project", project_file, entry))
    entry = _entry(_read(desktop_path, unreadable))
    if entry is not None:
        found.append(Registration("claude-desktop", "desktop", desktop_path, entry))
    return Registrations(tuple(found), tuple(unreadable), desktop_path.parent.is_dir())
