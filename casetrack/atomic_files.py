"""The one way CaseTrack replaces a file: a temp file in the same folder, written and fsynced,
renamed over the old one (`os.replace`, atomic on POSIX and Windows), then the folder fsynced so
the rename itself survives a power cut. A reader sees the old file or the new one, never half of
one; a write that fails (a full disk, an exception, a kill) leaves the old file as it was and, but
for a kill, no temp file (a killed writer's temp is `.<name>.<pid>.<random>.tmp` beside the file:
`remove_stale_temps` clears it, the case export skips `*.tmp`).

Modes: files are private (0600) unless the caller asks for another mode; `mode=None` is a user's
own file (a Claude config): the replaced file's mode, or what the umask gives a new file.

Renames (a staged folder into place, a damaged file set aside, a log rotated) go through
`rename_durably` for the same folder fsync. `tests/test_atomic_files.py` fails on any
`os.replace`, `os.rename`, `Path.replace` or `Path.rename` elsewhere in the package.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

PRIVATE = 0o600
TEMP_SUFFIX = ".tmp"
_NO_DIR_FSYNC = (errno.EINVAL, errno.ENOTSUP, errno.EBADF)  # file systems that cannot fsync a folder


def fsync_dir(folder: Path | str) -> None:
    """Make the entries of `folder` (a rename, a new file) durable. Windows cannot open a folder
    for fsync (NTFS journals renames itself); file systems that refuse a folder fsync are let be."""
    if os.name == "nt":  # pragma: no cover - Windows
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in _NO_DIR_FSYNC:
            raise
        log.debug("folder fsync not supported in %s: %s", folder, e)
    finally:
        os.close(fd)


def temp_path(path: Path) -> Path:
    """A new temp file's name beside `path`: hidden, with this process's id (for
    `remove_stale_temps`) and a random part (threads and processes never share one)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def _open_temp(path: Path, mode: int | None) -> tuple[int, Path]:
    tmp = temp_path(path)
    # O_EXCL: never write through a file (or a link) someone put there; 0o666 lets the umask
    # decide a user file's mode, 0o600 keeps a private one private from its first byte.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    return os.open(tmp, flags, 0o666 if mode is None else 0o600), tmp


def _final_mode(path: Path, tmp: Path, mode: int | None) -> None:
    if mode is None:
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)  # the replaced file's mode
        except FileNotFoundError:
            pass  # a new file: the umask's mode, set at creation
    elif mode != PRIVATE:
        os.chmod(tmp, mode)


@contextmanager
def replacing(path: Path, mode: int | None = PRIVATE) -> Iterator[BinaryIO]:
    """A binary file to write `path`'s new content into (archives, workbooks: any size). When the
    block ends it is fsynced and renamed over `path`; if the block raises, `path` is untouched and
    the temp file removed. `mode`: 0600 by default; None keeps the replaced file's mode."""
    fd, tmp = _open_temp(path, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        _final_mode(path, tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def write_bytes(path: Path, data: bytes, mode: int | None = PRIVATE) -> None:
    """Replace `path` with `data`, atomically and durably (see the module's docstring)."""
    with replacing(path, mode) as out:
        out.write(data)


def write_text(path: Path, text: str, mode: int | None = PRIVATE, encoding: str = "utf-8") -> None:
    """Replace `path` with `text`, atomically and durably."""
    write_bytes(path, text.encode(encoding), mode)


def write_json(path: Path, value: object, mode: int | None = PRIVATE, indent: int | None = None) -> None:
    """Replace `path` with `value` as UTF-8 JSON (non-ASCII kept as is), ending in a newline. A
    string holding a file name's undecodable bytes (surrogate escapes) makes the whole file ASCII
    JSON: `\\udcff` reads back as the same string, where UTF-8 could not hold it."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, indent=indent)
    write_text(path, text + "\n", mode)


def rename_durably(src: Path, dest: Path) -> None:
    """Rename `src` to `dest` (a file there is replaced; a folder only if it is empty) and make
    the rename durable: a file is fsynced first (a download written in place), then both folders.
    A file that cannot be fsynced (a damaged one set aside) is still renamed."""
    if src.is_file():
        try:
            fd = os.open(
                src, os.O_RDWR if os.name == "nt" else os.O_RDONLY
            )  # Windows flushes writable handles
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as e:
            log.debug("could not fsync %s before renaming it: %s", src, e)
    os.replace(src, dest)
    fsync_dir(dest.parent)
    if src.parent != dest.parent:
        fsync_dir(src.parent)


def pid_alive(pid: int) -> bool:
    """Whether process `pid` runs (another account's process, or an unclear answer: yes)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another account's process, or Windows' answer: treat as alive
        return True
    return True


def remove_stale_temps(path: Path) -> list[Path]:
    """Remove the temp files a killed writer of `path` left beside it (their process is gone);
    returns them."""
    removed = []
    prefix = f".{path.name}."
    try:
        siblings = list(path.parent.iterdir())
    except OSError:
        return []
    for item in siblings:
        name = item.name
        if not (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)):
            continue
        pid = name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and not pid_alive(int(pid)):
            item.unlink(missing_ok=True)
            removed.append(item)
    return removed
