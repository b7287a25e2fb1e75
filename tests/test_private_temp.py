"""Nothing is written outside the data folder (issue 30): OCR's page images and TSV (pytesseract's
`tess_*`), LanceDB's temporary folders and Python's temporary files go to `DATA_DIR/tmp/<pid>/`
(0700), which a crash can leave behind only until the next process starts. Before: all of them in
/tmp, and a crash during OCR left the scanned page there for good."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from casetrack.private_temp import PrivateTemp, system_temp
from tests.conftest import MODELS
from tests.pdf_maker import page_images, scanned_pdf, text_pdf


def test_a_stopped_process_s_folder_is_swept_and_ours_is_private(tmp_path: Path) -> None:
    before = (os.environ.get("TMPDIR"), tempfile.tempdir, system_temp())
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    left = tmp_path / "tmp" / dead.stdout.strip()
    left.mkdir(parents=True)
    (left / "tess_abc_input.PPM").write_bytes(b"P6 a scanned page")
    temp = PrivateTemp(tmp_path)
    temp.start()
    try:
        assert not left.exists()  # its process is gone
        assert tempfile.gettempdir() == str(temp.path) == os.environ["TMPDIR"]
        assert (temp.path.stat().st_mode & 0o777) == 0o700 and (temp.root.stat().st_mode & 0o777) == 0o700
        assert system_temp() == (before[1] or before[0] or "/tmp")  # the socket's place does not move
        old = temp.path / "tess_old.tsv"
        old.write_text("left by a killed tesseract")
        os.utime(old, (0, 0))
        fresh = temp.path / "tess_new.tsv"
        fresh.write_text("a search's, still in use")
        temp.clean()
        assert not old.exists() and fresh.exists()
    finally:
        temp.stop()
    assert (os.environ.get("TMPDIR"), tempfile.tempdir) == before[:2] and not temp.path.exists()


def _created_outside(trace: Path, inside: Path) -> list[str]:
    """Paths the traced processes created (a file opened with O_CREAT, a folder made) outside
    `inside`."""
    created = []
    for line in trace.read_text(errors="replace").splitlines():
        if "= -1" in line or not ("O_CREAT" in line or "mkdir" in line):
            continue
        path = line.split('"')[1] if '"' in line else ""
        if path and not path.startswith(str(inside)) and not path.startswith("/dev/"):
            created.append(path)
    return created


# ~20 s on 2 cores: an ingest with OCR and a search, each traced with strace
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to see every file created")
def test_an_ingest_with_ocr_and_a_search_create_no_file_outside_the_data_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    native = text_pdf(tmp_path / "native.pdf", [["The lessee shall return the premises in good order."]])
    scanned_pdf(docs / "scan.pdf", page_images(native, dpi=200))
    (docs / "note.txt").write_text("The hearing is set for the third of June.\n")
    data, tmpdir = tmp_path / "data", tmp_path / "system-tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir), "LANCEDB_LOG": "error", "PYTHONDONTWRITEBYTECODE": "1"}
    base = [sys.executable, "-m", "casetrack", "--data-dir", str(data), "--models-dir", str(MODELS)]
    subprocess.run([*base, "case", "create", "T"], env=env, check=True, capture_output=True)
    created: list[str] = []
    for i, command in enumerate(
        (["ingest-folder", "--case", "T", str(docs)], ["search", "--case", "T", "premises in good order"])
    ):
        trace = tmp_path / f"trace{i}.txt"
        done = subprocess.run(
            [
                "strace",
                "-f",
                "-qq",
                "-e",
                "trace=openat,open,creat,mkdir,mkdirat",
                "-o",
                str(trace),
                *base,
                *command,
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert "OCR'd" in done.stdout or i == 1, done.stdout
        created += _created_outside(trace, data)
    assert created == [], created
    assert list(tmpdir.iterdir()) == []
    assert not any((data / "tmp").iterdir())  # each process removed its own folder
