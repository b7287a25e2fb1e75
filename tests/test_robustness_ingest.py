"""Every hostile PDF in ../shared/data/pdf_robustness through `casetrack ingest-folder`.

The process must not crash; each file either ingests or gets one clear error line with the
next step. Encrypted files say so and how to supply a password or decrypt.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, MODELS, require

pytestmark = pytest.mark.slow


def test_robustness_corpus_through_ingest_folder(tmp_path: Path) -> None:
    corpus = require(DATA / "pdf_robustness")
    home = tmp_path / "home"
    base = [sys.executable, "-m", "casetrack", "--data-dir", str(home), "--models-dir", str(MODELS)]
    env = {**os.environ, "LANCEDB_LOG": "error"}
    subprocess.run([*base, "case", "create", "Hostile"], check=True, env=env, capture_output=True)
    done = subprocess.run([*base, "ingest-folder", "--case", "Hostile", str(corpus), "--recursive", "--json"],
                          env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode in (0, 3), done.stderr[-3000:]
    report = json.loads(done.stdout)
    files = report["files"]
    expected = sorted(str(p) for p in corpus.rglob("*.pdf"))
    assert sorted(f["path"] for f in files) == expected
    for f in files:
        if f["status"] in ("ingested", "duplicate"):
            continue
        assert f["error"] and f["hint"], f
        assert f["error_code"] != "internal", f
        if f["error_code"] == "encrypted":
            assert "--password" in f["hint"] and "decrypt" in f["hint"]
    summary = report["summary"]
    assert summary["ingested"] >= 150, summary
    print(json.dumps(summary))
