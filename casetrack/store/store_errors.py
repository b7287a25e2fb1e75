"""A store that fails says which store and how to repair it, never a raw Rust traceback and
never "your file may be damaged": LanceDB raises `RuntimeError("lance error: ...")`,
`ValueError("Invalid input, ...")` or a Rust panic for a damaged data file or manifest, tantivy
`ValueError("Data corrupted ...")`. The store's own words go to the log, not to the user."""

from __future__ import annotations

import errno
import logging
import math
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from casetrack.errors import CaseTrackError, Fix
from casetrack.logsafe import safe_for_log
from casetrack.store.lance_salvage import is_lance_failure

log = logging.getLogger(__name__)


class _Registry(Protocol):
    def get(self, name_or_id: str) -> object: ...


def store_error(case: str, exc: BaseException) -> CaseTrackError | None:
    """The user-facing error for a failure inside a case's stores, or None for anything else."""
    text = " ".join(str(exc).split())
    if isinstance(exc, ValueError) and "data corrupt" in text.lower():
        store = "keyword index"
    elif is_lance_failure(exc):
        store = "LanceDB store (document text and vectors)"
    else:
        return None
    why = "a file of it is missing" if "not found" in text.lower() else "a file of it is damaged"
    log.info("case %s: %s failed: %s", safe_for_log(case), store, safe_for_log(text[:400]))  # -v shows it
    return CaseTrackError(
        f"Case '{case}': its {store} could not be read ({why}). Your documents' files are fine.",
        f'Repair it (what cannot be recovered is named): casetrack case check "{case}" --repair',
    )


@contextmanager
def store_errors(registry: _Registry, name_or_id: str) -> Iterator[None]:
    """Turn a store failure inside the block into `store_error`'s message."""
    try:
        yield
    except BaseException as exc:  # a Rust panic is a BaseException
        translated = store_error(getattr(_safe_get(registry, name_or_id), "name", name_or_id), exc)
        if translated is None:
            raise
        raise translated from exc


def _safe_get(registry: _Registry, name_or_id: str) -> object | None:
    try:
        return registry.get(name_or_id)
    except CaseTrackError:
        return None


# A full disk in the words of each store: Python's OSError, LanceDB's Rust io error, SQLite, tantivy.
_FULL_TEXT = ("no space left on device", "os error 28", "database or disk is full", "disk full")
MB = 2**20


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc` (or an error it was raised from) says the disk is full (ENOSPC)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if any(mark in str(current).lower() for mark in _FULL_TEXT):
            return True
        current = current.__cause__ or current.__context__
    return False


def mount_point(path: Path) -> Path:
    """The mount point of the file system that holds `path` (the disk a user frees space on)."""
    current = path.resolve()
    while not os.path.ismount(current) and current != current.parent:
        current = current.parent
    return current


def disk_full_error(
    exc: BaseException, folder: Path, needed_bytes: int, what: str, retry: str
) -> CaseTrackError | None:
    """The error for a full disk while writing into `folder` (None when `exc` is something else):
    which disk, about how much to free (`needed_bytes`, an estimate) and the command that goes on
    (`retry`); `what` is what could not be written."""
    if not is_disk_full(exc):
        return None
    where = mount_point(folder)
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        free = 0
    need = max(1, math.ceil(needed_bytes / MB))
    log.warning(
        "disk full on %s (%d MB free) while writing %s", safe_for_log(where), free // MB, safe_for_log(what)
    )
    return CaseTrackError(
        f"The disk that holds CaseTrack's data ({where}) is full ({free // MB} MB free): {what} could "
        f"not be written (about {need} MB more are needed). Nothing already stored was lost, and "
        "your files are fine.",
        fix=Fix(f"Free at least {need} MB on {where}, then run this (it resumes where it stopped)", retry),
    )
