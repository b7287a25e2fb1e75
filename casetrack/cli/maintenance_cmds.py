"""`casetrack update` (the upgrade command; `--check` asks the package registry through pip) and
`casetrack uninstall` (Claude registrations, daemon, program; the data only when asked)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from casetrack import __version__
from casetrack.config import Settings, resolve_settings
from casetrack.errors import CaseTrackError
from casetrack.setup.installation import Installation, current_installation

if TYPE_CHECKING:
    from casetrack.setup.uninstall import UninstallPlan


def _settings(ctx: click.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else resolve_settings()


# -- update ---------------------------------------------------------------------------------------


@click.command("update")
@click.option(
    "--check",
    is_flag=True,
    help="Ask the package registry (through this installation's pip) whether a newer version exists.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def update(check: bool, as_json: bool) -> None:
    """Say how to upgrade CaseTrack; with --check, whether a newer version exists.

    CaseTrack never checks on its own and never upgrades itself: --check is the one request it
    makes to the network besides `models download`, and the upgrade is a command you run.
    """
    installation = current_installation()
    commands = installation.upgrade_commands()
    if not check:
        if as_json:
            click.echo(json.dumps({"installed": __version__, "checked": False, "commands": list(commands)}))
            return
        click.echo(f"CaseTrack {__version__} ({installation.prefix}). To upgrade it, run:")
        for command in commands:
            click.echo(f"  {command}")
        click.echo(
            "To see first whether a newer version exists: casetrack update --check "
            "(asks the package registry through pip)."
        )
        return
    from casetrack.setup.update import check_for_update

    result = check_for_update(installation, __version__)
    if as_json:
        click.echo(json.dumps({**result.to_json(), "checked": True}))
        return
    if not result.update_available:
        click.echo(
            f"CaseTrack {__version__} is up to date (newest on the package registry: {result.latest})."
        )
        return
    click.echo(f"A newer CaseTrack is available: {result.latest} (this is {__version__}). To upgrade, run:")
    for command in result.commands:
        click.echo(f"  {command}")
    click.echo("Claude restarts CaseTrack's daemon at the new version on its next connection.")


# -- uninstall ------------------------------------------------------------------------------------


def _confirm(settings: Settings, delete_data: bool, yes: bool) -> None:
    if yes:
        return
    click.confirm("Uninstall CaseTrack as listed above?", abort=True)
    if delete_data:
        name = settings.data_dir.name
        typed = click.prompt(
            f"To delete your case data too, type the data folder's name ({name})",
            default="",
            show_default=False,
        )
        if typed.strip() != name:
            raise CaseTrackError(
                "The name did not match; nothing was changed.",
                "Run casetrack uninstall again (without --delete-data to keep your data).",
            )


def _plan(settings: Settings, installation: Installation, delete_data: bool) -> UninstallPlan:
    from casetrack.setup.claude_code import claude_home
    from casetrack.setup.claude_desktop import desktop_config_path
    from casetrack.setup.launcher import build_server_entry
    from casetrack.setup.registration import find_registrations
    from casetrack.setup.uninstall import plan_uninstall

    regs = find_registrations(claude_home(), Path.cwd(), desktop_config_path())
    return plan_uninstall(settings, installation, regs, build_server_entry(settings), delete_data)


def _show_plan(plan: UninstallPlan, settings: Settings, installation: Installation) -> None:
    from casetrack.setup.uninstall import program_command

    click.echo("casetrack uninstall will:")
    click.echo("  stop CaseTrack's daemon")
    for reg in plan.remove:
        click.echo(f"  remove CaseTrack from {reg.where}")
    for reg in plan.keep:
        click.echo(f"  keep {reg.where}: it runs another CaseTrack ({reg.command[0]})")
    for path, why in plan.unreadable:
        click.echo(f"  skip {path}: {why}")
    if installation.by_installer and not installation.windows:
        click.echo(f"  delete the program: {installation.prefix}")
    else:
        click.echo(f"  leave the program for you to remove: {program_command(installation)}")
    if plan.data is None:
        click.echo(f"  keep your data folder: {settings.data_dir}")
    elif plan.data.refused:
        click.echo(f"  keep the data folder: {plan.data.refused}")
    else:
        click.echo(
            f"  DELETE your case data in {plan.data.folder}: {', '.join(p.name for p in plan.data.remove)}"
        )
        if plan.data.keep:
            click.echo(f"    (left there, not CaseTrack's: {', '.join(p.name for p in plan.data.keep)})")


def _stop_daemons(settings: Settings, plan: UninstallPlan) -> None:
    from casetrack.daemon.client import stop_daemon

    for folder in plan.daemons:
        same = folder == settings.data_dir.absolute()
        pid = stop_daemon(settings if same else resolve_settings(folder, settings.models_dir, environ={}))
        if pid:
            click.echo(f"Stopped CaseTrack's daemon (pid {pid}) for {folder}.")


def _remove_registrations(settings: Settings, plan: UninstallPlan, delete_data: bool) -> None:
    from casetrack.setup.backups import backup_dir_of
    from casetrack.setup.claude_code import claude_home
    from casetrack.setup.uninstall import remove_registration

    # Deleting the data deletes its backups folder too: no backup is made then.
    backups = (
        None
        if delete_data and plan.data is not None and not plan.data.refused
        else backup_dir_of(settings.data_dir)
    )
    for reg in plan.remove:
        change = remove_registration(reg, plan.entry, backups, claude_home())
        note = f" (backup of the file as it was: {change.backup})" if change.backup else ""
        click.echo(f"Removed CaseTrack from {reg.where}{note}.")


def _remove_data(settings: Settings, plan: UninstallPlan) -> None:
    from casetrack.setup.uninstall import delete_data

    if plan.data is not None and not plan.data.refused:
        gone = delete_data(plan.data)
        click.echo(
            f"Deleted your case data in {plan.data.folder}"
            + ("." if gone else "; the folder stays (it holds files that are not CaseTrack's).")
        )
        return
    remove = (
        f'rm -rf "{settings.data_dir}"' if os.name != "nt" else f'Remove-Item -Recurse "{settings.data_dir}"'
    )
    click.echo(f"Your data is kept in {settings.data_dir} (to delete it later: {remove}).")


def _remove_program(installation: Installation) -> None:
    from casetrack.setup.uninstall import program_command, remove_program

    removed = remove_program(installation)
    if removed is None:
        click.echo(f"To remove the program, run: {program_command(installation)}")
        return
    click.echo(f"Deleted the program: {removed}")
    if installation.source is not None:
        click.echo(f"The source folder {installation.source} is yours to keep or delete.")


@click.command("uninstall")
@click.option(
    "--delete-data",
    is_flag=True,
    help="Also delete your cases, models and logs (asks you to type the data folder's name).",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--dry-run", is_flag=True, help="Show what would be removed; change nothing.")
@click.pass_context
def uninstall(ctx: click.Context, delete_data: bool, yes: bool, dry_run: bool) -> None:
    """Remove CaseTrack: its Claude registrations, its daemon and the program.

    Your data folder (cases, models, logs) is kept unless --delete-data is given and confirmed.
    """
    settings = _settings(ctx)
    installation = current_installation()
    plan = _plan(settings, installation, delete_data)
    _show_plan(plan, settings, installation)
    if dry_run:
        click.echo("Dry run: nothing was changed.")
        return
    _confirm(settings, delete_data, yes)
    _stop_daemons(settings, plan)
    _remove_registrations(settings, plan, delete_data)
    _remove_data(settings, plan)
    _remove_program(installation)
    click.echo("Restart Claude Desktop and any Claude Code session so they forget CaseTrack.")
