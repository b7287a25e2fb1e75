"""A LanceDB table with a missing, zeroed or truncated data file keeps every row it can read.

A table version lists its data files; one that is gone or damaged made every scan of the table
fail with a raw Rust error ("Not found", "Invalid range", "not a Lance file"), so a whole case
stopped for the loss of one document's file. `case check --repair` reads the table row by row
where it must (a take by offset touches only the fragment that holds the row), writes the rows it
could read as a new version (the old versions and the damaged file stay on disk, untouched), and
then looks in older versions for a readable copy of each document that lost rows (after a
compaction the pre-compaction files still hold them). What no version holds is reported by the
caller: those documents must be ingested again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

log = logging.getLogger(__name__)

BLOCK = 1024  # rows read per take while salvaging
MAX_OLDER_VERSIONS = 50  # versions searched for a lost document's rows


def is_lance_failure(exc: BaseException) -> bool:
    """An error LanceDB raises for a damaged or missing file (RuntimeError "lance error: ...",
    ValueError "Invalid input, ...", a Rust panic surfaced as RustPanic/PanicException)."""
    if type(exc).__name__ in ("RustPanic", "PanicException"):
        return True
    if not isinstance(exc, (RuntimeError, ValueError, OSError)):
        return False
    text = str(exc).lower()
    return any(
        mark in text
        for mark in (
            "lance error",
            "lanceerror",
            "invalid input",
            "not found in target schema",
            "schema error",
            "not found:",
            "was not found",  # "Table 'chunks' was not found": its _versions/ folder is gone
            "rust future panicked",
        )
    )


def unreadable(table: Any) -> str | None:
    """Why the table's current version cannot be read in full, or None (reads every row and
    column once, in batches: `case check` only)."""
    try:
        n = int(table.count_rows())
        if n:
            for _ in table.search().limit(n).to_batches(BLOCK):
                pass
    except BaseException as exc:  # noqa: BLE001 - a Rust panic is a BaseException
        if not is_lance_failure(exc):
            raise
        return _short(exc)
    return None


def _short(exc: BaseException) -> str:
    """The kind of failure in plain words (the Rust text is logged, not shown)."""
    text = str(exc)
    log.info("LanceDB read failed: %s", " ".join(text.split())[:300])  # its own words: -v
    if "Not found" in text:
        return "a data file is missing"
    return "a data file is damaged"


class Salvage:
    """The readable rows of `table`'s current version, streamed in offset order; `lost` counts
    the rows that could not be read once the stream is consumed."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.total = int(table.count_rows())
        self.lost = 0

    def _take(self, start: int, stop: int) -> pa.Table | None:
        try:
            result: pa.Table = self.table.take_offsets(list(range(start, stop))).to_arrow()
            return result
        except BaseException as exc:  # noqa: BLE001 - a Rust panic is a BaseException
            if not is_lance_failure(exc):
                raise
            return None

    def _readable_prefix(self, start: int, stop: int) -> int:
        """The first offset in [start, stop) that cannot be read (stop if all can)."""
        lo, hi = start, stop  # rows [start, lo) read; the first bad row is in [lo, hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._take(lo, mid) is not None:
                lo = mid
            else:
                hi = mid
        return lo if self._take(lo, lo + 1) is None else hi

    def _bad_run_end(self, start: int) -> int:
        """The first readable offset after the unreadable row at `start` (a damaged file's rows
        are contiguous: gallop, then bisect)."""
        step, last_bad = 1, start
        while last_bad + step < self.total and self._take(last_bad + step, last_bad + step + 1) is None:
            last_bad += step
            step *= 2
        lo, hi = last_bad, min(last_bad + step, self.total)  # lo bad; hi readable (or the end)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._take(mid, mid + 1) is None:
                lo = mid
            else:
                hi = mid
        return hi

    def batches(self) -> Iterator[pa.RecordBatch]:
        pos = 0
        while pos < self.total:
            stop = min(pos + BLOCK, self.total)
            block = self._take(pos, stop)
            if block is None:
                good = self._readable_prefix(pos, stop)
                block = self._take(pos, good) if good > pos else None
                end = self._bad_run_end(good)
                self.lost += end - good
                stop = end
            if block is not None:
                yield from block.to_batches()
            pos = stop


def rewrite_readable(db: Any, name: str, table: Any) -> tuple[Any, int, int]:
    """Write the readable rows of `table` as a new version of table `name`; returns the new table,
    rows kept and rows lost."""
    schema = table.schema
    salvage = Salvage(table)
    batches = (b.select(schema.names).cast(schema) for b in salvage.batches())
    reader = pa.RecordBatchReader.from_batches(schema, batches)
    fresh = db.create_table(name, data=reader, schema=schema, mode="overwrite")
    kept = int(fresh.count_rows())
    log.warning(
        "LanceDB table %s rewritten from its readable rows: %d kept, %d lost", name, kept, salvage.lost
    )
    return fresh, kept, salvage.lost


def older_copy(db: Any, name: str, where: str, expected: int, skip: set[int]) -> pa.Table | None:
    """The rows matching `where` from the newest older version of table `name` that holds exactly
    `expected` of them and can be read (versions in `skip` are not tried)."""
    try:
        handle = db.open_table(name)  # a table set aside (no version opened) is not there
        versions = sorted((int(v["version"]) for v in handle.list_versions()), reverse=True)
    except BaseException as exc:  # noqa: BLE001
        if not is_lance_failure(exc):
            raise
        return None
    for version in [v for v in versions if v not in skip][:MAX_OLDER_VERSIONS]:
        try:
            handle.checkout(version)
            rows: pa.Table = handle.search().where(where).limit(max(expected, 1) + 1).to_arrow()
        except BaseException as exc:  # noqa: BLE001
            if not is_lance_failure(exc):
                raise
            continue
        if rows.num_rows == expected:
            return rows
    return None
