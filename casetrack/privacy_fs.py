"""Private by default on disk: what CaseTrack writes only its owner can read, and what Claude may
ask it to read stays inside the folders the user allowed.

Permissions: every entry point sets the umask to 0o077 before it creates anything (directories
0700, files 0600), the data directory and each case directory are made 0700 when created or
opened, and `repair_permissions` takes group and other access away from a data directory written
before (or copied in by hand). On Windows, where POSIX modes mean little, these do nothing.

Allowed roots: an MCP tool may only ingest a path whose real location (symlinks followed) lies
under an allowed root (default: the user's home folder), outside CaseTrack's own data directory,
outside system folders and outside hidden folders under the root (~/.ssh, ~/.aws, ~/.config):
a prompt slipped into a document must not turn Claude into a reader of /etc/shadow or a private
key. The CLI, where the user types the path in their own terminal, is not restricted.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath

from casetrack.errors import CaseTrackError, Fix
from casetrack.logsafe import safe_for_log

log = logging.getLogger(__name__)

PRIVATE_UMASK = 0o077
ENV_ALLOWED_ROOTS = "CASETRACK_ALLOWED_ROOTS"
_POSIX = os.name == "posix"

# First path components of system folders, per family. "lib*" is any /lib, /lib32, /lib64...;
# /private/etc and /private/var are the real paths of macOS's /etc and /var.
_SYSTEM_POSIX = frozenset(
    {"etc", "proc", "sys", "dev", "boot", "root", "var", "usr", "bin", "sbin", "run", "system", "library"}
)
_SYSTEM_PRIVATE = frozenset({"etc", "var"})  # under /private (macOS)
_SYSTEM_WINDOWS = frozenset({"windows"})  # and "program files*"


# -- permissions --------------------------------------------------------------------------------


def private_umask() -> int:
    """Make everything this process creates private (dirs 0700, files 0600); returns the old umask.
    Called once at each entry point (the CLI's `main`, the daemon) before anything is written."""
    return os.umask(PRIVATE_UMASK)


def _open_to_others(mode: int) -> bool:
    return bool(stat.S_IMODE(mode) & 0o077)


def private_dir(path: Path, note: str | None = None) -> bool:
    """Create `path` (and missing parents) and make it 0700. Returns whether an existing folder was
    open to other accounts; with `note` (what the folder is, "data folder"), that is logged."""
    path.mkdir(parents=True, exist_ok=True)
    if not _POSIX:  # pragma: no cover - Windows: ACLs, not modes
        return False
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode == 0o700:
        return False
    try:
        os.chmod(path, 0o700)
    except OSError as e:  # another account's folder, a read-only mount: say so, do not stop
        log.warning("cannot make %s private (mode %04o): %s", safe_for_log(path), mode, e.strerror or e)
        return False
    if note and _open_to_others(mode):
        log.warning(
            "%s %s was readable by other accounts on this computer (mode %s): made it private (0700)",
            note,
            safe_for_log(path),
            f"{mode:04o}",
        )
    return _open_to_others(mode)


def private_file(path: Path) -> bool:
    """Take group and other access away from an existing file (a no-op when it is missing)."""
    if not _POSIX:  # pragma: no cover - Windows
        return False
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode) or not _open_to_others(mode):
        return False
    try:
        os.chmod(path, stat.S_IMODE(mode) & ~0o077)
    except OSError as e:
        log.warning(
            "cannot make %s private (mode %04o): %s", safe_for_log(path), stat.S_IMODE(mode), e.strerror or e
        )
        return False
    return True


def repair_permissions(root: Path) -> list[str]:
    """Take group and other access away from `root` and everything under it; returns one line per
    change ("0755 -> 0700 cases/abc") and per entry it could not change. Symbolic links are neither
    changed nor followed (a models folder may link to a shared model pack). For `case check --repair`."""
    if not _POSIX or not root.is_dir():  # pragma: no cover - Windows
        return []
    changes: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        entries = [here] if here == root else []
        entries += [here / name for name in (*dirnames, *filenames)]
        for path in entries:
            change = _tighten(path, root)
            if change:
                changes.append(change)
    return changes


def _tighten(path: Path, root: Path) -> str | None:
    rel = "." if path == root else str(path.relative_to(root))
    try:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode) or not _open_to_others(mode):
            return None
        new = stat.S_IMODE(mode) & ~0o077
        os.chmod(path, new)
    except FileNotFoundError:  # removed while we walked
        return None
    except OSError as e:  # owned by another account (a `sudo casetrack ...` run), read-only mount
        return f"cannot change {safe_for_log(rel)}: {e.strerror or e}"
    return f"{stat.S_IMODE(mode):04o} -> {new:04o} {safe_for_log(rel)}"


# -- allowed roots ------------------------------------------------------------------------------


class PathNotAllowedError(CaseTrackError):
    """A tool asked for a path outside the folders CaseTrack may read on Claude's behalf."""


def parse_roots(value: str, home: Path) -> tuple[Path, ...]:
    """CASETRACK_ALLOWED_ROOTS (os.pathsep-separated; `~` is `home`) as absolute paths."""
    roots = []
    for entry in (e.strip() for e in value.split(os.pathsep)):
        if not entry:
            continue
        path = home / entry[2:] if entry == "~" or entry.startswith(("~/", "~\\")) else Path(entry)
        if not path.is_absolute():
            raise CaseTrackError(
                f"{ENV_ALLOWED_ROOTS}: '{safe_for_log(entry)}' is not an absolute path.",
                f"List absolute folders separated by '{os.pathsep}', e.g. "
                f"{ENV_ALLOWED_ROOTS}={home}{os.pathsep}{home / 'Cases'}",
            )
        roots.append(path)
    return tuple(roots)


def _fold(path: PurePath, platform: str) -> tuple[str, ...]:
    """Path parts compared the way the platform's file systems usually do (macOS, Windows: any case)."""
    parts = path.parts
    return tuple(p.casefold() for p in parts) if platform in ("darwin", "win32") else parts


def _inside(path: PurePath, folder: PurePath, platform: str) -> tuple[str, ...] | None:
    """The parts of `path` below `folder` (() for the folder itself), or None if it is not inside."""
    a, b = _fold(path, platform), _fold(folder, platform)
    return path.parts[len(b) :] if a[: len(b)] == b else None


def system_folder(path: PurePath, platform: str = sys.platform) -> str | None:
    """The system folder `path` lies in ("/etc", "C:\\Windows"), or None."""
    parts = _fold(path, platform)
    if len(parts) < 2:
        return None
    first, depth = parts[1], 2
    if platform == "win32":
        hit = first in _SYSTEM_WINDOWS or first.startswith("program files")
    elif first == "private":  # macOS: /etc and /var are links into /private
        hit, depth = len(parts) > 2 and parts[2] in _SYSTEM_PRIVATE, 3
    else:
        hit = first in _SYSTEM_POSIX or first.startswith("lib")
    return str(PurePath(*path.parts[:depth])) if hit else None


def real_path(path: Path) -> Path:
    """`path` with every symlink followed (it need not exist); a link loop is a CaseTrackError."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as e:  # Python 3.11 raises RuntimeError on a symlink loop
        raise CaseTrackError(
            f"{safe_for_log(path)} cannot be opened: {e}.",
            "It is a symbolic link that points to itself (a loop); fix or remove the link.",
        ) from e


def check_allowed(
    path: Path, roots: Sequence[Path], home: Path, private: Iterable[Path] = (), platform: str = sys.platform
) -> Path:
    """The real path of `path` if a tool may read it, else PathNotAllowedError saying why, which
    roots are allowed and how to add one. `private`: folders never readable (the data directory)."""
    if not path.is_absolute():
        raise PathNotAllowedError(
            f"'{safe_for_log(path)}' is not an absolute path.",
            "Give the full path of the file or folder, e.g. /Users/ana/Cases/contract.pdf.",
        )
    real = real_path(path)
    shown = safe_for_log(path) + ("" if real == path else f" (which is {safe_for_log(real)})")
    for folder in private:
        if _inside(real, real_path(folder), platform) is not None:
            raise PathNotAllowedError(
                f"{shown} is inside CaseTrack's own data folder; it cannot be ingested.",
                "Ingest the original documents instead.",
            )
    home_real = real_path(home)
    system = system_folder(real, platform)
    in_home = len(home_real.parts) > 1 and _inside(real, home_real, platform) is not None
    allowed = f"Folders CaseTrack may read for Claude: {', '.join(safe_for_log(r) for r in roots) or 'none'}."
    if system is not None and not in_home:
        raise PathNotAllowedError(
            f"{shown} is in the system folder {system}, which CaseTrack never reads for Claude. {allowed}",
            "If the user means it, they can ingest it from a terminal: casetrack ingest --case NAME PATH",
        )
    hidden: str | None = None
    for root in roots:
        below = _inside(real, real_path(root), platform)
        if below is not None:
            hidden = next((p for p in below if p.startswith(".")), None)
            if hidden is None:
                return real
    if hidden is not None:
        raise PathNotAllowedError(
            f"{shown} is inside the hidden folder or file '{safe_for_log(hidden)}' (hidden "
            f"folders hold settings and keys, not case documents). {allowed}",
            fix=_add_root_fix(roots),
        )
    raise PathNotAllowedError(
        f"{shown} is outside the folders CaseTrack may read for Claude. {allowed}", fix=_add_root_fix(roots)
    )


def _add_root_fix(roots: Sequence[Path]) -> Fix:
    now = os.pathsep.join(str(r) for r in roots)
    example = f"{now}{os.pathsep}/path/to/Cases" if now else "/path/to/Cases"
    return Fix(
        f"Ingest it from a terminal (casetrack ingest --case NAME PATH), or allow its folder: set "
        f'{ENV_ALLOWED_ROOTS}={example} in the environment of CaseTrack\'s MCP server (the "env" of its '
        "entry in Claude's configuration) and restart the daemon (casetrack daemon stop)"
    )
