"""Entry layer: one-command registration of the `casetrack serve` MCP server with Claude Code and Claude Desktop."""

from casetrack.setup.claude_code import SCOPES, ClaudeCodeResult, Scope, setup_claude_code
from casetrack.setup.claude_desktop import desktop_config_path, setup_claude_desktop
from casetrack.setup.config_file import MergeResult, update_server
from casetrack.setup.launcher import SERVER_NAME, ServerEntry, build_server_entry

__all__ = [
    "SCOPES",
    "SERVER_NAME",
    "ClaudeCodeResult",
    "MergeResult",
    "Scope",
    "ServerEntry",
    "build_server_entry",
    "desktop_config_path",
    "setup_claude_code",
    "setup_claude_desktop",
    "update_server",
]
