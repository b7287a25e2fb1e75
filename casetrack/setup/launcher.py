"""The command Claude starts: an absolute path to `casetrack`, then `serve`.

GUI apps (Claude Desktop) start servers with a minimal PATH, so the entry never relies on
PATH lookup at run time: it names the console script next to the running interpreter (the
virtual environment CaseTrack is installed in), or the one PATH finds now, or falls back to
`<python> -m casetrack`.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from casetrack.config import ENV_MODELS, Settings, default_data_dir

SERVER_NAME = "casetrack"


@dataclass(frozen=True)
class ServerEntry:
    """One stdio MCP server: what to run, with which arguments and extra environment."""

    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def to_json(self, with_type: bool = True) -> dict[str, Any]:
        """The `mcpServers` entry. Claude Code's files carry `"type": "stdio"`; Claude Desktop's
        entries are plain `{command, args, env}` (`with_type=False`). An empty env is left out."""
        entry: dict[str, Any] = {"type": "stdio"} if with_type else {}
        entry["command"] = self.command
        entry["args"] = list(self.args)
        if self.env:
            entry["env"] = dict(self.env)
        return entry

    def command_line(self) -> list[str]:
        return [self.command, *self.args]


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def casetrack_command(
    python: str | None = None,
    which: Callable[[str], str | None] = shutil.which,
    windows: bool | None = None,
) -> list[str]:
    """The absolute command that runs the `casetrack` CLI of this installation."""
    python = python or sys.executable
    windows = os.name == "nt" if windows is None else windows
    # Not resolve(): a venv's python is a symlink to the base interpreter, outside the venv.
    bin_dir = Path(os.path.abspath(python)).parent
    if windows:
        candidates = [bin_dir / "casetrack.exe", bin_dir / "Scripts" / "casetrack.exe"]
    else:
        candidates = [bin_dir / "casetrack"]
    for candidate in candidates:
        if _is_executable(candidate):
            return [str(candidate)]
    found = which("casetrack")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(python), "-m", "casetrack"]


def build_server_entry(
    settings: Settings,
    python: str | None = None,
    which: Callable[[str], str | None] = shutil.which,
    default_home: Path | None = None,
) -> ServerEntry:
    """`casetrack [--data-dir DIR] serve`, with CASETRACK_MODELS_DIR only when it is not the default.

    `--data-dir` is an option of the `casetrack` group, so it comes before `serve`.
    """
    command, *prefix = casetrack_command(python, which)
    home = (default_home or default_data_dir()).expanduser().resolve()
    args = list(prefix)
    if settings.data_dir.resolve() != home:
        args += ["--data-dir", str(settings.data_dir.resolve())]
    args.append("serve")
    env: dict[str, str] = {}
    chosen = settings.models_choice  # a folder the models rule finds by itself is not pinned
    if chosen is not None and chosen.resolve() != (settings.data_dir / "models").resolve():
        env[ENV_MODELS] = str(chosen.resolve())
    return ServerEntry(command=command, args=tuple(args), env=env)
