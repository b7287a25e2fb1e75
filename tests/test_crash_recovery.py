"""kill -9 during `ingest-folder` at random moments; every case must reopen consistent.

After each kill: recovery runs on open; every committed document is whole in LanceDB and in
tantivy (same chunk count, findable by its own words); no half document is visible. At the end
the same ingest, re-run, completes the case.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.store.case_store import gen_of_chunk
from tests.conftest import DATA, MODELS

TRIALS = int(os.environ.get("CASETRACK_CRASH_TRIALS", "10"))  # the slow tier's run


def _corpus(folder: Path, count: int = 6) -> list[Path]:
    """Short real Portuguese decisions (LeNER-Br), cut to ~2 chunks each to keep trials quick."""
    sources = sorted((DATA / "lener_br/raw_text").glob("*.txt"))[:count]
    if len(sources) < count:
        pytest.skip(f"test data missing: LeNER-Br texts in {DATA / 'lener_br/raw_text'}")
    folder.mkdir()
    paths = []
    for src in sources:
        text = src.read_text(encoding="utf-8")[:3500]
        path = folder / src.name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def _ingest_cmd(home: Path, folder: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "casetrack",
        "--data-dir",
        str(home),
        "--models-dir",
        str(MODELS),
        "ingest-folder",
        "--case",
        "Crash",
        str(folder),
        "--json",
    ]


def _check_consistent(home: Path, files: list[Path]) -> int:
    app = CaseTrack(resolve_settings(home, MODELS, environ={}))
    store = app.open_case("Crash")  # runs recovery: the killed writer's lock is free
    try:
        assert not store.journal.unfinished(), "recovery left unfinished documents"
        committed = {e.doc_id: e for e in store.documents()}
        assert store.lance.doc_ids_in_chunks() <= set(committed), "half document in LanceDB"
        assert store.bm25.all_doc_ids() <= set(committed), "half document in tantivy"
        counts = store.bm25.count_for(committed)
        texts = {p.name: p.read_text(encoding="utf-8") for p in files}
        for doc_id, entry in committed.items():
            assert store.lance.count_chunks(doc_id) == entry.expected_chunks
            assert store.lance.count_chunks(doc_id, entry.gen) == entry.expected_chunks
            assert counts[doc_id] == entry.expected_chunks
            # Findable by its own opening words, through the same filter search uses.
            probe = " ".join(texts[entry.name].split()[:12])
            hits = [h for h in store.bm25.search(probe, 50) if h.doc_id == doc_id]
            assert hits and all(gen_of_chunk(h.chunk_id) == entry.gen for h in hits)
        return len(committed)
    finally:
        store.close()
        app.close()


@pytest.mark.parametrize(
    ("trials", "documents"),  # one kill over a shorter batch, then many (both slow: 19 s and minutes)
    [
        pytest.param(1, 3, id="1-trial", marks=pytest.mark.slow),
        pytest.param(TRIALS, 6, id="many-trials", marks=pytest.mark.slow),
    ],
)
def test_kill_9_during_ingest_never_leaves_a_half_document(
    tmp_path: Path, trials: int, documents: int
) -> None:
    home = tmp_path / "home"
    files = _corpus(tmp_path / "docs", documents)
    app = CaseTrack(resolve_settings(home, MODELS, environ={}))
    app.create_case("Crash", language="pt")
    app.close()
    env = {**os.environ, "LANCEDB_LOG": "error"}

    # One full run in a scratch case measures how long an uninterrupted ingest takes.
    started = time.monotonic()
    scratch = tmp_path / "scratch"
    subprocess.run(
        [sys.executable, "-m", "casetrack", "--data-dir", str(scratch), "case", "create", "Crash"],
        check=True,
        env=env,
        capture_output=True,
    )
    subprocess.run(_ingest_cmd(scratch, files[0].parent), check=True, env=env, capture_output=True)
    full = time.monotonic() - started

    rng = random.Random(20261122)
    seen_counts = set()
    committed = 0
    for trial in range(trials):
        force = trial % 3 == 2 and committed > 0  # kill in the middle of replacing documents
        if not force and committed == len(files):
            app = CaseTrack(resolve_settings(home, MODELS, environ={}))
            app.delete_case("Crash")
            app.create_case("Crash", language="pt")
            app.close()
        cmd = _ingest_cmd(home, files[0].parent) + (["--force"] if force else [])
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, full * 0.95))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        committed = _check_consistent(home, files)
        seen_counts.add(committed)

    final = subprocess.run(
        _ingest_cmd(home, files[0].parent), env=env, capture_output=True, text=True, timeout=600
    )
    assert final.returncode == 0, final.stderr[-2000:]
    assert _check_consistent(home, files) == len(files)
    if trials >= 10:  # a few kills may all land before the first commit
        assert len(seen_counts) >= 2, f"kills never landed mid-batch: {seen_counts}"
