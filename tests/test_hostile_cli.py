"""Hostile input through the terminal without a daemon (issue 14): a DOCX that unpacks to 3 GB
(a zip bomb) fails alone, within the time limit and under the parse process's memory cap, while
the rest of the batch lands."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from casetrack.parse.isolated import MEMORY_LIMIT_BYTES
from tests.conftest import MODELS

pytestmark = pytest.mark.slow

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/'
    'package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/'
    'document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/'
    'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


def zip_bomb(path: Path, gigabytes: int = 3) -> Path:
    """A 7 MB DOCX whose document part unpacks to `gigabytes` GB of paragraphs."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(
                b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
                b'wordprocessingml/2006/main"><w:body>'
            )
            block = (b"<w:p><w:r><w:t>" + b"A" * 1000 + b"</w:t></w:r></w:p>") * 1000
            for _ in range(gigabytes * 1000):
                f.write(block)
            f.write(b"</w:body></w:document>")
    return path


def test_a_zip_bomb_fails_alone_and_the_batch_lands(tmp_path: Path) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    zip_bomb(folder / "bomb.docx")
    (folder / "note.txt").write_text("A short note about the lease renewal.", encoding="utf-8")
    base = [
        sys.executable,
        "-m",
        "casetrack",
        "--data-dir",
        str(tmp_path / "home"),
        "--models-dir",
        str(MODELS),
    ]
    env = {**os.environ, "LANCEDB_LOG": "error"}
    subprocess.run([*base, "case", "create", "Hostile"], check=True, env=env, capture_output=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.monotonic()
    done = subprocess.run(
        [*base, "ingest-folder", "--case", "Hostile", str(folder), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    elapsed = time.monotonic() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the CLI and its parse process, at most
    assert done.returncode == 3, done.stderr[-2000:]
    files = {f["name"]: f for f in json.loads(done.stdout)["files"]}
    assert files["note.txt"]["status"] == "ingested"
    bomb = files["bomb.docx"]
    assert bomb["status"] == "error" and "decompression bomb" in bomb["error"]
    assert "save it again" in bomb["hint"]  # refused from the zip directory, before any memory is spent
    assert elapsed < 300
    assert (
        max(peak_kb, before) * 1024 < MEMORY_LIMIT_BYTES + 512 * 2**20
    )  # the cap held (plus the interpreter)
