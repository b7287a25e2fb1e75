"""A store that fails says which store and how to repair it, never a raw Rust traceback and
never "your file may be damaged": LanceDB raises `RuntimeError("lance error: ...")`,
`ValueError("Invalid input, ...")` or a Rust panic for a damaged data file or manifest, tantivy
`ValueError("Data corrupted ...")`. The store's own words go to the log, not to the user."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from casetrack.errors import CaseTrackError
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
