"""Register CaseTrack with Claude Desktop: `mcpServers.casetrack` in claude_desktop_config.json.

Claude Desktop runs stdio servers only, with entries `{command, args, env}`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from casetrack.setup.config_file import MergeResult, update_server
from casetrack.setup.launcher import SERVER_NAME, ServerEntry

CONFIG_NAME = "claude_desktop_config.json"


def desktop_config_path(
    platform: str | None = None, home: Path | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """macOS: ~/Library/Application Support/Claude; Windows: %APPDATA%\\Claude;
    Linux builds: $XDG_CONFIG_HOME/Claude (~/.config/Claude)."""
    platform = platform or sys.platform
    home = home or Path.home()
    env = os.environ if environ is None else environ
    if platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / CONFIG_NAME
    if platform == "win32":
        appdata = env.get("APPDATA")
        base = Path(appdata) if appdata else home / "AppData" / "Roaming"
        return base / "Claude" / CONFIG_NAME
    xdg = env.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"
    return base / "Claude" / CONFIG_NAME


def setup_claude_desktop(
    entry: ServerEntry,
    dry_run: bool = False,
    remove: bool = False,
    config_path: Path | None = None,
    *,
    backup_dir: Path | None,
) -> MergeResult:
    """Add, update or (`remove`) the casetrack server in Claude Desktop's config file (the file
    as it was is copied into `backup_dir`, DATA_DIR/backups, first)."""
    path = config_path or desktop_config_path()
    wanted = None if remove else entry.to_json(with_type=False)
    return update_server(path, ("mcpServers",), SERVER_NAME, wanted, dry_run=dry_run, backup_dir=backup_dir)
