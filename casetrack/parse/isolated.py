"""Parsing in a child process: the daemon's searches never wait on a parser, and a hostile file
that makes a parser spin, eat memory or crash costs one per-file error, not the daemon.

pdfplumber/pdfminer are pure Python: parsed on the daemon's job thread, a PDF held the GIL and
searches on other threads stalled for seconds (bench/concurrency.py). One long-lived child
(started on first use, `spawn` so no onnxruntime or LanceDB threads are forked) parses one file
at a time; a file that takes too long gets the child killed and replaced, and a child that dies
is replaced too. On POSIX the child's address space is capped so a decompression bomb fails
with MemoryError inside the child (tesseract, started by the child, inherits the cap).

The child reports each page read (`("progress", done, total)`), so the time limit counts from
the last page, not from the start: a 500-page scan OCR'd at a few seconds a page is fine, a page
that spins is not.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import threading
from dataclasses import replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from casetrack import errors
from casetrack.domain import ParsedDocument
from casetrack.errors import CorruptFileError, ParseError
from casetrack.logsafe import safe_for_log
from casetrack.parse.options import PageProgress, ParseOptions, no_progress

log = logging.getLogger(__name__)

MEMORY_LIMIT_BYTES = 4 * 2**30


def parse_timeout(path: Path) -> float:
    """How long the child may go without finishing a page: generous for real documents
    (parsing runs at ~2-20 pages/s, OCR at a few seconds a page), bounded for hostile ones."""
    try:
        megabytes = path.stat().st_size / 2**20
    except OSError:
        megabytes = 0.0
    return min(120.0 + 30.0 * megabytes, 3600.0)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """On Linux, the child is killed when its parent dies (a kill -9 of the CLI must not leave
    a parser OCRing on its own)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child(conn: Connection, memory_limit: int) -> None:  # pragma: no cover - runs in the child
    _die_with_parent()
    if os.name == "posix" and memory_limit:
        import resource

        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
        except (ValueError, OSError):
            pass
    from casetrack.parse import parse_file

    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        path, options = request

        def progress(done: int, total: int) -> None:
            conn.send(("progress", done, total))

        try:
            conn.send(("ok", parse_file(Path(path), options=options, on_page=progress)))
        except errors.CaseTrackError as e:
            conn.send(("error", type(e).__name__, e.message, e.hint))
        except MemoryError:
            conn.send(
                (
                    "error",
                    "CorruptFileError",
                    f"{Path(path).name}: its content needs more memory to read than "
                    f"CaseTrack allows ({memory_limit // 2**30} GB): it unpacks to far more than its size on disk "
                    "(an extremely large document, or a file built to do that).",
                    "Split the document, or save it as PDF, and ingest the parts.",
                )
            )
        except Exception as e:
            conn.send(("crash", f"{type(e).__name__}: {str(e)[:300]}"))


class IsolatedParser:
    """`parse(path, password)` with the same results and errors as `parse_file`, in a child."""

    def __init__(self, memory_limit: int = MEMORY_LIMIT_BYTES) -> None:
        self.memory_limit = memory_limit
        self._lock = threading.Lock()
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self.restarts = 0

    def _start(self) -> Connection:
        if self._proc is not None and self._proc.is_alive() and self._conn is not None:
            return self._conn
        self._stop()
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(
            target=_child, args=(child, self.memory_limit), name="casetrack-parser", daemon=True
        )
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        return parent

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(5)
        self._proc = self._conn = None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._proc is not None and self._proc.is_alive():
                try:
                    self._conn.send(None)
                    self._proc.join(2)
                except OSError:
                    pass
            self._stop()

    def parse(
        self,
        path: Path,
        password: str | None = None,
        timeout: float | None = None,
        options: ParseOptions | None = None,
        on_page: PageProgress = no_progress,
    ) -> ParsedDocument:
        """`timeout`: the most seconds without a page read (default `parse_timeout`). `on_page`
        (else `options.on_page`) hears of each page the child reads."""
        limit = parse_timeout(path) if timeout is None else timeout
        options = options or ParseOptions(password=password)
        if on_page is no_progress:
            on_page = options.on_page
        with self._lock:
            conn = self._start()
            # The callback stays here: the child reports pages over the pipe instead.
            conn.send((str(path), replace(options, on_page=no_progress)))
            reply = self._wait(conn, path, limit, on_page)
        if reply[0] == "ok":
            document: ParsedDocument = reply[1]
            return document
        if reply[0] == "error":
            cls = getattr(errors, reply[1], ParseError)
            if not (isinstance(cls, type) and issubclass(cls, errors.CaseTrackError)):
                cls = ParseError
            raise cls(reply[2], reply[3])
        raise RuntimeError(reply[1])  # a parser bug: ingest turns it into a per-file error

    def _wait(self, conn: Connection, path: Path, limit: float, on_page: PageProgress) -> tuple[Any, ...]:
        """The child's answer, passing its page progress on; the child is stopped (and an error
        raised) when it goes `limit` seconds without a page or dies."""
        while True:
            if not conn.poll(limit):
                log.warning(
                    "parsing %s: no page read for %.0f s: stopping the parser", safe_for_log(str(path)), limit
                )
                self._stop()
                self.restarts += 1
                raise CorruptFileError(
                    f"{path.name}: reading one page took longer than {limit:.0f} s; the file may be malformed.",
                    "Re-save or print it to a new PDF and ingest that copy.",
                )
            try:
                reply: tuple[Any, ...] = conn.recv()
            except (EOFError, OSError):
                self._stop()
                self.restarts += 1
                raise CorruptFileError(
                    f"{path.name}: the parser stopped while reading this file (it may be damaged).",
                    "Re-save or print it to a new PDF and ingest that copy.",
                ) from None
            if reply[0] != "progress":
                return reply
            try:
                on_page(int(reply[1]), int(reply[2]))
            except Exception:  # a progress display must not stop the parse
                log.debug("page progress callback failed", exc_info=True)
