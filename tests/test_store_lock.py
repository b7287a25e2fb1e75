from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from casetrack.errors import CaseBusyError
from casetrack.store.lock import WriterLock


def test_second_writer_is_refused_with_the_holder_named(tmp_path: Path) -> None:
    path = tmp_path / "writer.lock"
    first = WriterLock(path, "Smith").acquire()
    with pytest.raises(CaseBusyError, match=rf"pid {os.getpid()}"):
        WriterLock(path, "Smith").acquire(timeout=0.3)
    first.release()
    WriterLock(path, "Smith").acquire().release()


def test_lock_of_a_killed_process_is_free(tmp_path: Path) -> None:
    path = tmp_path / "writer.lock"
    repo = str(Path(__file__).resolve().parents[1])
    code = (
        f"import sys, time, pathlib; sys.path.insert(0, {repo!r})\n"
        "from casetrack.store.lock import WriterLock\n"
        f"WriterLock(pathlib.Path({str(path)!r}), 'x').acquire(); print('held', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    assert not WriterLock(path, "x").try_acquire()
    proc.kill()
    proc.wait()
    lock = WriterLock(path, "x")
    assert lock.try_acquire()
    lock.release()
