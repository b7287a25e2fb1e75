"""A LanceDB table whose newest version cannot be read opens at the newest one that can.

LanceDB commits a version by writing a new manifest; a torn or zeroed newest manifest (a crash
of the disk, a sync tool, a restored backup) made every command fail with a raw Rust error
("does not have sufficient data"). The unreadable manifest is moved aside (`.damaged`, kept),
the version hint dropped, and the next older manifest opened; what was lost is recorded for
the case's recovery, which reports it and takes the documents of the lost version out of the
journal so they can be ingested again.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from casetrack.atomic_files import rename_durably
from casetrack.store.lance_salvage import is_lance_failure

log = logging.getLogger(__name__)

MAX_FALLBACK_VERSIONS = 3  # damaged newest manifests set aside before giving up


def manifest_version(path: Path) -> int:
    """A manifest's table version: `N.manifest`, or the v2 naming `(2^64 - 1 - N).manifest`."""
    number = int(path.name.split(".")[0])
    return 2**64 - 1 - number if number > 2**63 else number


def open_checked(db: Any, name: str) -> Any:
    """`db.open_table(name)`, refusing a version whose schema lacks `doc_id` (a zeroed manifest
    opens as an empty table instead of failing)."""
    table = db.open_table(name)
    if "doc_id" not in table.schema.names:
        raise RuntimeError(f"lance error: table {name} opened without its columns (a damaged manifest)")
    return table


def open_older(db: Any, root: Path, name: str, exc: BaseException, fallbacks: list[str]) -> Any:
    """Open table `name` of `db` (at `root`) at its newest readable version; appends a line per
    version set aside to `fallbacks`; re-raises when no version opens."""
    versions = root / f"{name}.lance" / "_versions"
    for _ in range(MAX_FALLBACK_VERSIONS):
        manifests = sorted(versions.glob("*.manifest"), key=manifest_version, reverse=True)
        if len(manifests) < 2:
            break
        broken = manifests[0]
        rename_durably(broken, broken.with_name(broken.name + ".damaged"))
        (versions / "latest_version_hint.json").unlink(missing_ok=True)
        fallbacks.append(
            f"LanceDB table {name}: version {manifest_version(broken)} could not be read "
            f"(its manifest is damaged); using version {manifest_version(manifests[1])}"
        )
        log.warning("%s", fallbacks[-1])
        log.info("LanceDB error: %s", " ".join(str(exc).split())[:300])  # its own words: -v
        try:
            return open_checked(db, name)
        except BaseException as again:  # noqa: BLE001 - a Rust panic is a BaseException
            if not is_lance_failure(again):
                raise
            exc = again
    raise exc
