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
    done = subprocess.run(
        [*base, "ingest-folder", "--case", "Hostile", str(corpus), "--recursive", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode in (0, 3), done.stderr[-3000:]
    report = json.loads(done.stdout)
    files = report["files"]
    # Every PDF is reported once; the folder's other document files (TXT, DOCX, ...) come too.
    reported = [f["path"] for f in files]
    assert len(reported) == len(set(reported))
    assert {str(p) for p in corpus.rglob("*.pdf")} <= set(reported)
    for f in files:
        if f["status"] in ("ingested", "replaced", "duplicate"):
            continue
        assert f["error"] and f["hint"], f
        assert f["error_code"] != "internal", f
        if f["error_code"] == "encrypted":
            assert "decrypt" in f["hint"], f
            if "password-protected" in f["error"]:  # not for encryption pdfminer cannot read at all
                assert "--password" in f["hint"], f
    summary = report["summary"]
    assert summary["ingested"] >= 150, summary
    by_code: dict[str, int] = {}
    for f in files:
        by_code[f["error_code"] or f["status"]] = by_code.get(f["error_code"] or f["status"], 0) + 1
    print(json.dumps({"summary": summary, "by_outcome": by_code}))
