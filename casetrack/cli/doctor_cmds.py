"""`casetrack doctor [--json]`: every check a search depends on, with its fix. Exit 0 when a search
can work (warnings allowed), 1 otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from casetrack.config import Settings, resolve_settings

if TYPE_CHECKING:
    from casetrack.app.doctor import ClientState, DoctorReport

COLORS = {"ok": "green", "warn": "yellow", "fail": "red"}


def _settings(ctx: click.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else resolve_settings()


def client_states(settings: Settings) -> list[ClientState]:
    """Claude Code's and Claude Desktop's registrations, read (never written) through setup/."""
    from casetrack.app.doctor import ClientState, Registered
    from casetrack.setup.claude_code import claude_home
    from casetrack.setup.claude_desktop import desktop_config_path
    from casetrack.setup.launcher import build_server_entry
    from casetrack.setup.registration import find_registrations

    desktop = desktop_config_path()
    regs = find_registrations(claude_home(), Path.cwd(), desktop)
    expected = tuple(build_server_entry(settings).command_line())
    states = []
    for client, name, label, command, installed in (
        ("claude-code", "claude_code", "Claude Code", "casetrack setup-claude-code", True),
        (
            "claude-desktop",
            "claude_desktop",
            "Claude Desktop",
            "casetrack setup-claude-desktop",
            regs.desktop_installed,
        ),
    ):
        found = tuple(Registered(r.where, r.command) for r in regs.of(client))  # type: ignore[arg-type]
        unreadable = tuple(f"{path}: {why}" for path, why in regs.unreadable_of(client, desktop))  # type: ignore[arg-type]
        states.append(ClientState(name, label, command, found, unreadable, installed, expected))
    return states


def _print(report: DoctorReport) -> None:
    click.echo(f"CaseTrack {report.version} — data folder {report.data_dir}, models {report.models_dir}")
    for check in report.checks:
        click.echo(
            f"  {click.style(f'{check.status:<5}', fg=COLORS[check.status])} {check.name:<15} {check.detail}"
        )
        if check.fix and check.status != "ok":
            click.echo(f"  {'':<5} {'':<15} fix: {check.fix}")
    warnings, failures = report.count("warn"), report.count("fail")
    if failures:
        click.echo(
            f"{failures} problem{'s' * (failures > 1)} stop{'s' * (failures == 1)} search: fix the lines "
            "marked fail, then run `casetrack doctor` again."
        )
    else:
        extra = f" ({warnings} warning{'s' * (warnings > 1)}: see their fix lines)" if warnings else ""
        click.echo(f"Everything a search needs is in place{extra}.")


@click.command("doctor")
@click.option(
    "--json", "as_json", is_flag=True, help='Print {"ok", "checks": [{"name", "status", "detail", "fix"}]}.'
)
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check Python, the data folder, models, OCR, the daemon, Claude's set-up, disk and memory.

    Each line says ok, warn or fail and the command that fixes it. Exit 0 when a search can work
    (warnings allowed), 1 when something it needs is missing. Reads only; changes nothing.
    """
    from casetrack.app.doctor import run_checks
    from casetrack.daemon.client import ping

    settings = _settings(ctx)
    report = run_checks(settings, ping(settings), client_states(settings))
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        _print(report)
    ctx.exit(0 if report.ok else 1)
