"""`casetrack uninstall`: take CaseTrack out of Claude, off the disk, and (only when asked) its data.

What is removed, in this order:
1. the `casetrack` entries in Claude's config files that run this installation (or a command that
   no longer exists); an entry that runs another CaseTrack that still exists is left alone;
2. with `delete_data`, the data folder's CaseTrack entries (cases, registry, logs, models, ...)
   and the folder once it is empty; anything else in it is left where it is and named;
3. the program: the venv the installer made (`<checkout>/.venv` with its marker), never anything
   else; any other installation gets the `pip uninstall` command instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from casetrack.config import Settings
from casetrack.setup.claude_code import Scope, setup_claude_code
from casetrack.setup.claude_desktop import setup_claude_desktop
from casetrack.setup.config_file import MergeResult, update_server
from casetrack.setup.installation import Installation
from casetrack.setup.launcher import SERVER_NAME, ServerEntry
from casetrack.setup.registration import Registration, Registrations

# What CaseTrack writes at the top of a data folder (config.Settings, daemon/endpoint, daemon/service,
# setup/backups), and what the OS adds to any folder.
DATA_ENTRIES = frozenset({"cases", "logs", "run", "jobs", "models", "backups"})
DATA_PREFIXES = ("registry.sqlite",)  # the registry, its -wal/-shm and damaged copies set aside
OS_LITTER = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (OSError, ValueError):
        return False
    return True


def _runs_this(reg: Registration, installation: Installation, ours: Sequence[str]) -> bool:
    """The entry runs this installation, or a command that no longer exists (it can only fail)."""
    command = reg.command
    if not command:
        return True
    program = Path(command[0])
    if command[0] == (ours[0] if ours else None) or (
        program.is_absolute() and _inside(program, installation.prefix)
    ):
        return True
    return program.is_absolute() and not program.exists()


def split_registrations(
    found: Sequence[Registration], installation: Installation, ours: Sequence[str]
) -> tuple[list[Registration], list[Registration]]:
    """(to remove, to keep): entries of another CaseTrack that still exists are kept."""
    remove = [r for r in found if _runs_this(r, installation, ours)]
    return remove, [r for r in found if r not in remove]


def data_dirs_of(found: Sequence[Registration]) -> list[Path]:
    """The `--data-dir` each registration passes (their daemons are stopped too)."""
    dirs = []
    for reg in found:
        args = list(reg.command)
        if "--data-dir" in args[:-1]:
            dirs.append(Path(args[args.index("--data-dir") + 1]))
    return dirs


def remove_registration(
    reg: Registration, entry: ServerEntry, backup_dir: Path | None, claude_home: Path
) -> MergeResult:
    """Take one entry out, through the same functions as `setup-claude-* --remove`."""
    if reg.client == "claude-desktop":
        return setup_claude_desktop(entry, remove=True, config_path=reg.path, backup_dir=backup_dir)
    if reg.scope == "local":  # any project's: `claude mcp remove` only reaches the current folder's
        return update_server(reg.path, reg.keys, SERVER_NAME, None, backup_dir=backup_dir)
    scope: Scope = "user" if reg.scope == "user" else "project"
    return setup_claude_code(
        entry, scope=scope, remove=True, home=claude_home, cwd=reg.path.parent, backup_dir=backup_dir
    ).change


@dataclass(frozen=True)
class DataPlan:
    folder: Path
    remove: tuple[Path, ...]  # CaseTrack's entries
    keep: tuple[Path, ...]  # anything else: never deleted
    refused: str | None = None  # why nothing may be deleted here


def plan_data(data_dir: Path, home: Path) -> DataPlan:
    """What deleting the data folder would remove. A folder that is the home folder (or holds it),
    or that holds no registry and no cases, is refused: it is not a CaseTrack data folder."""
    folder = data_dir.absolute()
    if not folder.is_dir():
        return DataPlan(folder, (), (), f"{folder} does not exist")
    if folder.resolve() == Path(folder.anchor).resolve() or _inside(home, folder):
        return DataPlan(folder, (), (), f"{folder} is the home folder or holds it; it is not deleted")
    entries = sorted(folder.iterdir())
    ours = [
        p
        for p in entries
        if p.name in DATA_ENTRIES or p.name.startswith(DATA_PREFIXES) or p.name in OS_LITTER
    ]
    if not any(p.name == "cases" or p.name.startswith(DATA_PREFIXES) for p in ours):
        return DataPlan(folder, (), tuple(entries), f"{folder} holds no CaseTrack registry or cases")
    return DataPlan(folder, tuple(ours), tuple(p for p in entries if p not in ours))


def delete_data(plan: DataPlan) -> bool:
    """Delete the planned entries (a symlink is unlinked, never followed); remove the folder when it
    is then empty. Returns whether the folder itself is gone."""
    if plan.refused:
        return False
    for path in plan.remove:
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path)
    try:
        plan.folder.rmdir()
    except OSError:
        return False
    return True


def remove_program(installation: Installation) -> Path | None:
    """Delete the installer's venv (POSIX: a running program's files may go). Returns it, or None
    when this is not an installer's venv or on Windows (its running files cannot be deleted)."""
    if not installation.by_installer or installation.windows or os.name == "nt":
        return None
    venv = installation.prefix
    shutil.rmtree(venv)
    return venv


def program_command(installation: Installation) -> str:
    """What the user runs to remove the program where CaseTrack cannot do it itself."""
    if installation.by_installer:
        return (
            f'Remove-Item -Recurse -Force "{installation.prefix}"'
            if installation.windows
            else f'rm -rf "{installation.prefix}"'
        )
    return installation.pip_uninstall_command()


@dataclass(frozen=True)
class UninstallPlan:
    entry: ServerEntry  # this installation's registration (what `setup-claude-* --remove` is given)
    remove: tuple[Registration, ...]
    keep: tuple[Registration, ...]  # entries of another CaseTrack that still exists
    unreadable: tuple[tuple[Path, str], ...]  # config files that do not parse: left untouched
    daemons: tuple[Path, ...]  # data folders whose daemon is stopped
    data: DataPlan | None  # None: the data folder is kept


def plan_uninstall(
    settings: Settings,
    installation: Installation,
    registrations: Registrations,
    entry: ServerEntry,
    delete: bool,
) -> UninstallPlan:
    """What `uninstall` removes, before anything is touched (shown, then confirmed)."""
    remove, keep = split_registrations(registrations.found, installation, entry.command_line())
    folders = {settings.data_dir.absolute(), *(p.absolute() for p in data_dirs_of(remove))}
    data = plan_data(settings.data_dir, settings.home_dir) if delete else None
    return UninstallPlan(
        entry, tuple(remove), tuple(keep), registrations.unreadable, tuple(sorted(folders)), data
    )
