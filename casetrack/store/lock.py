"""The per-case single-writer lock (an OS file lock, freed by the OS even after kill -9)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from casetrack.errors import CaseBusyError

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class WriterLock:
    """Exclusive lock on `<case>/writer.lock`. Tantivy allows one writer; so do we, earlier
    and with a message that says who to wait for."""

    def __init__(self, path: Path, case_name: str) -> None:
        self.path = path
        self.case_name = case_name
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        if _try_lock(fd):
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            self._fd = fd
            return True
        os.close(fd)
        return False

    def acquire(self, timeout: float = 0.0) -> WriterLock:
        deadline = time.monotonic() + timeout
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                holder = self.holder()
                raise CaseBusyError(
                    f"Case '{self.case_name}' is being written by another CaseTrack process{holder}.",
                    "Wait for that ingest to finish (or stop it), then run the command again.",
                )
            time.sleep(0.2)
        return self

    def holder(self) -> str:
        """Who holds the lock, as ' (pid N)' (empty when the lock file names no process)."""
        try:
            pid = self.path.read_text().strip()
        except OSError:
            return ""
        return f" (pid {pid})" if pid else ""

    def release(self) -> None:
        if self._fd is not None:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


@contextmanager
def briefly_locked(path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold an OS lock on `path` for a short read-modify-write of a small file (case.json): two
    processes (or threads) changing it at once take turns instead of one losing the other's
    change. Waits up to `timeout` seconds, then goes on unlocked (a stuck holder must not stop a
    case from opening; the write itself stays atomic)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    locked = False
    try:
        deadline = time.monotonic() + timeout
        while not (locked := _try_lock(fd)) and time.monotonic() < deadline:
            time.sleep(0.002)  # a holder keeps it for a read and a replace: about a millisecond
        yield
    finally:
        if locked:
            _unlock(fd)
        os.close(fd)
