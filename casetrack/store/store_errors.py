"""A store that fails says which store and how to repair it, never a raw Rust traceback and
never "your file may be damaged": LanceDB raises `RuntimeError("lance error: ...")` for a damaged
data file or manifest, tantivy `ValueError("Data corrupted ...")`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from casetrack.errors import CaseTrackError


class _Registry(Protocol):
    def get(self, name_or_id: str) -> object: ...


def store_error(case: str, exc: BaseException) -> CaseTrackError | None:
    """The user-facing error for a failure inside a case's stores, or None for anything else."""
    text = " ".join(str(exc).split())
    if isinstance(exc, RuntimeError) and text.lower().startswith("lance error"):
        store = "LanceDB store (document text and vectors)"
    elif isinstance(exc, ValueError) and "data corrupt" in text.lower():
        store = "keyword index"
    else:
        return None
    return CaseTrackError(
        f"Case '{case}': its {store} could not be read ({text[:160]}). Your documents' files are fine.",
        f'casetrack case check "{case}" --repair',
    )


@contextmanager
def store_errors(registry: _Registry, name_or_id: str) -> Iterator[None]:
    """Turn a store failure inside the block into `store_error`'s message."""
    try:
        yield
    except (RuntimeError, ValueError) as exc:
        translated = store_error(getattr(_safe_get(registry, name_or_id), "name", name_or_id), exc)
        if translated is None:
            raise
        raise translated from exc


def _safe_get(registry: _Registry, name_or_id: str) -> object | None:
    try:
        return registry.get(name_or_id)
    except CaseTrackError:
        return None
