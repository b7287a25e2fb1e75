"""A full disk is named as one (issue 30): which disk, about how much to free and the command that
resumes, and nothing already stored is lost. Real ENOSPC from a small tmpfs the data folder lives
on (needs root to mount it; skipped otherwise). Before: "the case's store could not be written",
then "a file of it is damaged"."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from casetrack.store.store_errors import disk_full_error, is_disk_full
from tests.cli_runner import run


def test_a_full_disk_is_told_apart_from_other_store_errors(tmp_path: Path) -> None:
    assert is_disk_full(OSError(28, "No space left on device"))
    assert is_disk_full(RuntimeError("lance error: IO error: No space left on device (os error 28)"))
    try:
        try:
            raise OSError(28, "No space left on device")
        except OSError as inner:
            raise RuntimeError("commit failed") from inner
    except RuntimeError as outer:
        assert is_disk_full(outer)
    assert not is_disk_full(RuntimeError("lance error: Not found: data/x.lance"))
    error = disk_full_error(
        OSError(28, "full"), tmp_path, 5 * 2**20 + 1, "big.txt", "casetrack ingest-folder X"
    )
    assert error is not None and "is full" in error.message and "about 6 MB" in error.message
    assert (
        error.fix is not None
        and "Free at least 6 MB on /" in error.fix.lead
        and error.fix.cli == "casetrack ingest-folder X"
    )


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.decode(errors='replace').strip()[:80]})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(mount: Path, leave: int) -> Path:
    """A filler file that leaves about `leave` bytes free on `mount`."""
    filler = mount / "filler"
    free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, free - leave))
    return filler


# ~10 s: two ingests and a search on a tmpfs of 24 MB
@pytest.mark.slow
def test_a_full_disk_during_ingest_is_named_and_loses_nothing(small_disk: Path, tmp_path: Path) -> None:
    data = small_disk / "data"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lease.txt").write_text(
        "The tenant shall pay rent monthly.\n\nEither party may terminate with notice.\n"
    )
    base = ["--data-dir", str(data)]
    run(*base, "case", "create", "Full")
    run(*base, "ingest", "--case", "Full", str(docs / "lease.txt"))
    big = docs / "later"
    big.mkdir()
    paragraphs = [
        f"Clause {i}: the supplier shall deliver lot {i} of the goods to the warehouse in Rotterdam."
        for i in range(3000)
    ]
    (big / "contract.txt").write_text("\n\n".join(paragraphs))
    filler = _fill(small_disk, 256 * 1024)
    failed = run(*base, "ingest", "--case", "Full", str(big / "contract.txt"), ok=False)
    text = failed.output + (failed.stderr or "")
    assert failed.exit_code != 0, text
    assert "is full" in text and "Free at least" in text and f"on {small_disk}" in text, text
    assert f'casetrack ingest-folder --case "Full" "{big}"' in text, text
    assert "damaged" not in text and "Traceback" not in text, text
    filler.unlink()  # the user frees the space, then runs the command the message gave
    resumed = json.loads(run(*base, "ingest-folder", "--case", "Full", str(big), "--json").stdout)
    assert [f["status"] for f in resumed["files"]] == ["ingested"], resumed
    report = json.loads(run(*base, "case", "check", "Full", "--json").stdout)
    assert report["healthy"] and report["documents"] == 2, report
    hits = json.loads(run(*base, "search", "--case", "Full", "tenant pay rent monthly", "--json").stdout)
    assert hits["results"][0]["source"]["document"] == "lease.txt"
