"""`casetrack setup-claude-code` and `casetrack setup-claude-desktop`: register `casetrack serve`."""

from __future__ import annotations

import json
import shlex
from typing import Any

import click

from casetrack.config import Settings, resolve_settings
from casetrack.setup.backups import backup_dir_of
from casetrack.setup.claude_code import SCOPES, ClaudeCodeResult, Scope, setup_claude_code
from casetrack.setup.claude_desktop import desktop_config_path, setup_claude_desktop
from casetrack.setup.config_file import MergeResult
from casetrack.setup.launcher import ServerEntry, build_server_entry

VERBS = {
    "added": ("Added casetrack to", "would add casetrack to"),
    "updated": ("Updated casetrack in", "would update casetrack in"),
    "removed": ("Removed casetrack from", "would remove casetrack from"),
    "unchanged": ("casetrack is already set up, unchanged, in", "casetrack is already set up, unchanged, in"),
    "absent": ("casetrack was not set up in", "casetrack is not set up in"),
}


def _settings(ctx: click.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else resolve_settings()


def _command_line(entry: dict[str, Any] | None) -> str:
    if not entry or "command" not in entry:
        return json.dumps(entry)
    line = shlex.join([str(entry["command"]), *map(str, entry.get("args") or [])])
    env = entry.get("env") or {}
    return " ".join([*(f"{k}={shlex.quote(str(v))}" for k, v in env.items()), line])


def _report(
    where: str, change: MergeResult, commands: tuple[tuple[str, ...], ...], next_step: str, note: str = ""
) -> None:
    verb = VERBS[change.action][1 if change.dry_run else 0]
    click.echo(f"{'Dry run: ' if change.dry_run else ''}{verb} {where}: {change.path}")
    if change.action in ("added", "updated", "unchanged"):
        click.echo(f"  runs:   {_command_line(change.after)}")
    if change.action in ("updated", "removed"):
        click.echo(f"  was:    {_command_line(change.before)}")
    for argv in commands:
        click.echo(f"  {'would run' if change.dry_run else 'ran'}: {shlex.join(argv)}")
    if change.backup:
        click.echo(f"  backup of the previous file: {change.backup} (the newest 5 are kept)")
    if note:
        click.echo(f"  {note}")
    if change.dry_run:
        click.echo("Nothing was changed. Run the same command without --dry-run to apply it.")
    else:
        click.echo(f"Next: {next_step}")


def _code_next_step(result: ClaudeCodeResult, remove: bool) -> str:
    if result.change.action == "absent":
        return "nothing to remove."
    if remove:
        return "run `claude mcp list` to confirm casetrack is gone (restart open Claude Code sessions)."
    if result.change.action == "unchanged":
        return "run `claude mcp list` to check that casetrack connects."
    step = "run `claude mcp list` to check that casetrack connects, then start a new Claude Code session."
    if result.scope == "project":
        step += " Claude Code asks you to approve servers from .mcp.json the first time."
    return step


@click.command("setup-claude-code")
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="user",
    show_default=True,
    help="user: all your projects (~/.claude.json); project: this folder's .mcp.json (shared "
    "with the team); local: only you, only this folder.",
)
@click.option("--dry-run", is_flag=True, help="Show what would change; touch nothing.")
@click.option("--remove", is_flag=True, help="Remove CaseTrack from Claude Code instead.")
@click.option("--edit-file", is_flag=True, help="Edit the config file even when the `claude` command exists.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def setup_claude_code_cmd(
    ctx: click.Context, scope: Scope, dry_run: bool, remove: bool, edit_file: bool, as_json: bool
) -> None:
    """Register CaseTrack's MCP server (`casetrack serve`) with Claude Code."""
    settings = _settings(ctx)
    entry = build_server_entry(settings)
    result = setup_claude_code(
        entry,
        scope=scope,
        dry_run=dry_run,
        remove=remove,
        use_claude=not edit_file,
        backup_dir=backup_dir_of(settings.data_dir),
    )
    next_step = _code_next_step(result, remove)
    if as_json:
        click.echo(json.dumps({**result.to_json(), "next_step": next_step}))
        return
    _report(f"Claude Code ({scope} scope)", result.change, result.commands, next_step)


@click.command("setup-claude-desktop")
@click.option("--dry-run", is_flag=True, help="Show what would change; touch nothing.")
@click.option("--remove", is_flag=True, help="Remove CaseTrack from Claude Desktop instead.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def setup_claude_desktop_cmd(ctx: click.Context, dry_run: bool, remove: bool, as_json: bool) -> None:
    """Register CaseTrack's MCP server (`casetrack serve`) with Claude Desktop."""
    settings = _settings(ctx)
    entry: ServerEntry = build_server_entry(settings)
    path = desktop_config_path()
    installed = path.parent.is_dir()
    change = setup_claude_desktop(
        entry, dry_run=dry_run, remove=remove, config_path=path, backup_dir=backup_dir_of(settings.data_dir)
    )
    next_step = _desktop_next_step(change)
    if as_json:
        click.echo(json.dumps({"client": "claude-desktop", **change.to_json(), "next_step": next_step}))
        return
    note = "" if installed else f"({path.parent} did not exist: install Claude Desktop; it reads this file.)"
    _report("Claude Desktop", change, (), next_step, note if change.changed else "")


def _desktop_next_step(change: MergeResult) -> str:
    if change.action == "absent":
        return "nothing to remove."
    if change.action == "unchanged":
        return "if Claude Desktop does not list casetrack, restart it (quit it completely, then open it)."
    verb = "unload" if change.action == "removed" else "load"
    return f"restart Claude Desktop (quit it completely, then open it again) to {verb} casetrack."
