"""Ingest with the pool: every embedding stored, missing and swapped models reported, re-embed.

Real models, real LanceDB and tantivy, on short real-world-style texts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from casetrack.app import CaseTrack
from casetrack.chunk.windows import unpack_windows
from casetrack.config import resolve_settings
from casetrack.embed.token_codec import DEFAULT_CODEC, decode_tokens
from casetrack.errors import CaseTrackError
from casetrack.store import lance_tables as lt
from tests.conftest import MODELS

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}")

LEASE = (
    "The tenant shall pay rent monthly.\n\nEither party may terminate this lease with sixty days written notice. "
    "Notice must be delivered by certified mail.\n\nThe landlord keeps the security deposit for repairs."
)
POLICY = "Employees accrue vacation days each month.\n\nUnused vacation expires at year end."


def pack_subset(root: Path, *names: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        (root / name).symlink_to(MODELS / name, target_is_directory=True)
    return root


def make_app(home: Path, models: Path, mode: str = "standard") -> CaseTrack:
    return CaseTrack(resolve_settings(home, models, environ={}, memory_mode=mode))


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    (tmp_path / "lease.txt").write_text(LEASE)
    (tmp_path / "policy.txt").write_text(POLICY)
    return [tmp_path / "lease.txt", tmp_path / "policy.txt"]


def chunk_table(app: CaseTrack, case: str) -> dict[str, list[Any]]:  # Arrow's Python values
    store = app.open_case(case)
    try:
        table = store.lance.table(lt.CHUNKS)
        assert table is not None
        return table.to_arrow().to_pydict()  # type: ignore[no-any-return]
    finally:
        store.close()


def test_every_chunk_gets_every_installed_embedding(tmp_path: Path, files: list[Path]) -> None:
    app = make_app(tmp_path / "home", MODELS)
    app.create_case("Lease")
    results = app.ingest("Lease", files)
    assert [r.status for r in results] == ["ingested", "ingested"] and not any(r.warnings for r in results)
    rows = chunk_table(app, "Lease")
    n = len(rows["chunk_id"])
    assert n == 2
    for column in (
        "vector",
        lt.E7_VECTOR,
        lt.SPARSE_IDS,
        lt.SPARSE_VALUES,
        lt.LATE_VECTORS,
        lt.LATE_COUNT,
        lt.WINDOW_VECTORS,
    ):
        assert all(v is not None for v in rows[column]), column
    # The lease has four sentences: two windows of E1 vectors; the two-sentence policy has none.
    windows = {
        text[:9]: unpack_windows(blob, 384)
        for text, blob in zip(rows["text"], rows[lt.WINDOW_VECTORS], strict=True)
    }
    assert windows["The tenan"].shape == (2, 384) and windows["Employees"].shape == (0, 384)
    assert np.allclose(np.linalg.norm(windows["The tenan"], axis=1), 1.0, atol=1e-2)
    assert all(
        len(ids) == len(vals) > 0
        for ids, vals in zip(rows[lt.SPARSE_IDS], rows[lt.SPARSE_VALUES], strict=True)
    )
    for blob, count in zip(rows[lt.LATE_VECTORS], rows[lt.LATE_COUNT], strict=True):
        tokens = decode_tokens(blob, count, 384, DEFAULT_CODEC)
        assert tokens.shape == (count, 384) and count > 5
    models = app.status("Lease")["case"]["models"]
    assert set(models) == {"E1", "E6", "E7", "E12"}
    assert models["E12"]["codec"] == DEFAULT_CODEC


@pytest.mark.slow  # ~6 s: its own ingest in the constrained tier
def test_constrained_mode_searches_with_bm25_and_e1_and_says_what_it_skipped(
    tmp_path: Path, files: list[Path]
) -> None:
    app = make_app(tmp_path / "home", MODELS, "constrained")
    app.create_case("Lease")
    app.ingest("Lease", files)
    response = app.search("Lease", "how can the agreement be cancelled", top_k=2)
    # echo: the termination clause's usual words join a question that asks for it by purpose
    assert response.stages_used == ["bm25", "dense", "dense_windows", "rrf", "boost", "echo"]
    assert response.hits[0].provenance.document == "lease.txt"
    assert set(response.stages_skipped) == {"E6", "E7", "E12"}
    assert all("constrained" in why for why in response.stages_skipped.values())
    # Transient models were unloaded after ingest; only E1 stays resident.
    assert app.pool.loaded_models() == ["multilingual-e5-small-enpt"]

    # The same through the CLI flag, as a user would run it.
    home = tmp_path / "home"
    cmd = [
        sys.executable,
        "-m",
        "casetrack",
        "--data-dir",
        str(home),
        "--models-dir",
        str(MODELS),
        "--memory-mode",
        "constrained",
        "search",
        "--case",
        "Lease",
        "terminate lease",
        "--json",
    ]
    out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    assert out["stages_used"] == ["bm25", "dense", "dense_windows", "rrf", "boost"]
    assert sorted(out["stages_skipped"]) == ["E12", "E6", "E7"]
    assert out["results"][0]["source"]["document"] == "lease.txt"


def test_missing_models_warn_then_reembed_fills_the_gaps(tmp_path: Path, files: list[Path]) -> None:
    only_e1 = pack_subset(tmp_path / "e1-only", "multilingual-e5-small-enpt")
    app = make_app(tmp_path / "home", only_e1)
    app.create_case("Lease")
    results = app.ingest("Lease", files)
    assert all(r.status == "ingested" for r in results)
    warnings = " ".join(results[0].warnings)
    for slot in ("E6", "E7", "E12"):
        assert f"casetrack models download --slot {slot}" in warnings
    assert 'casetrack reembed --case "Lease"' in warnings
    status = app.status("Lease")["case"]
    assert status["chunks_missing"] == {"E1": 0, "E7": 2, "E6": 2, "E12": 2}
    assert "not installed" in status["search_skips"]["E12"]

    # The models arrive; re-embedding fills only what is missing, keeping text and E1.
    full = make_app(tmp_path / "home", MODELS)
    before = chunk_table(full, "Lease")
    report = full.reembed("Lease")
    assert sorted(report.reembedded[0]["slots"]) == ["E12", "E6", "E7"]
    after = chunk_table(full, "Lease")
    assert sorted(after["text"]) == sorted(before["text"])
    assert full.status("Lease")["case"]["chunks_missing"] == {"E1": 0, "E7": 0, "E6": 0, "E12": 0}
    assert full.reembed("Lease").up_to_date == 2  # nothing left to do
    assert full.search("Lease", "vacation expiry").hits[0].provenance.document == "policy.txt"


def test_a_swapped_model_is_refused_at_ingest_skipped_in_search_and_fixed_by_reembed(
    tmp_path: Path, files: list[Path]
) -> None:
    app = make_app(tmp_path / "home", MODELS)
    app.create_case("Lease")
    app.ingest("Lease", files[:1])

    # Same weights under another name: a different fingerprint, as after a model upgrade.
    swapped = pack_subset(tmp_path / "swapped", "all-MiniLM-L6-v2", "splade-tiny", "colbert-standin-minilm")
    e5 = swapped / "e5-upgraded"
    shutil.copytree(MODELS / "multilingual-e5-small-enpt", e5)
    meta = json.loads((e5 / "model.json").read_text())
    (e5 / "model.json").write_text(json.dumps({**meta, "name": "e5-upgraded"}))
    other = make_app(tmp_path / "home", swapped)

    with pytest.raises(CaseTrackError) as err:
        other.ingest("Lease", files[1:])
    assert err.value.hint == 'casetrack reembed --case "Lease"'
    response = other.search("Lease", "terminate the lease")
    assert "dense" not in response.stages_used and "E1" in response.stages_skipped
    assert response.hits and response.hits[0].provenance.document == "lease.txt"  # BM25 still answers

    report = other.reembed("Lease")
    assert report.reembedded[0]["slots"] == ["E1"]
    assert other.status("Lease")["case"]["mismatched"] == {}
    assert other.search("Lease", "terminate the lease").stages_used == [
        "bm25",
        "dense",
        "dense_windows",
        "sparse",
        "e7",
        "rrf",
        "boost",
    ]
    assert [r.status for r in other.ingest("Lease", files[1:])] == ["ingested"]


def test_a_case_from_before_passage_windows_searches_and_says_reembed_adds_them(
    tmp_path: Path, files: list[Path]
) -> None:
    app = make_app(tmp_path / "home", MODELS)
    app.create_case("Lease")
    app.ingest("Lease", files)
    store = app.open_case("Lease")
    try:
        table = store.lance.table(lt.CHUNKS)
        assert table is not None
        table.drop_columns([lt.WINDOW_VECTORS])  # as a case ingested before windows existed
    finally:
        store.close()
    old = make_app(tmp_path / "home", MODELS)
    response = old.search("Lease", "terminate the lease")
    assert "dense_windows" not in response.stages_used and "dense" in response.stages_used
    assert 'casetrack reembed --case "Lease"' in response.stages_skipped["dense_windows"]
    assert old.status("Lease")["case"]["windows_missing"] == 2
    assert response.hits[0].provenance.document == "lease.txt"

    report = old.reembed("Lease")
    assert sorted(s for r in report.reembedded for s in r["slots"]) == ["E1", "E1"]
    again = old.search("Lease", "terminate the lease")
    assert "dense_windows" in again.stages_used and "dense_windows" not in again.stages_skipped
    assert old.reembed("Lease").up_to_date == 2
    assert old.status("Lease")["case"]["windows_missing"] == 0


@pytest.mark.slow  # ~6 s: a case ingested, then re-embedded whole
def test_reembed_leaves_the_case_compacted(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home", MODELS)
    app.create_case("Many")
    paths = []
    for i in range(lt.MAX_SMALL_FRAGMENTS + 2):
        path = tmp_path / f"note-{i}.txt"
        path.write_text(
            f"Memo {i}. The deposit of ${i},000 is due. Notice goes to the landlord. Keys are returned."
        )
        paths.append(path)
    assert all(r.status == "ingested" for r in app.ingest("Many", paths))
    store = app.open_case("Many")
    try:
        table = store.lance.table(lt.CHUNKS)
        assert table is not None
        table.drop_columns([lt.WINDOW_VECTORS])
    finally:
        store.close()
    report = app.reembed("Many")
    assert len(report.reembedded) == len(paths)  # one commit (one fragment) per document
    store = app.open_case("Many")
    try:
        table = store.lance.table(lt.CHUNKS)
        assert table is not None
        assert table.stats()["fragment_stats"]["num_small_fragments"] <= lt.MAX_SMALL_FRAGMENTS
    finally:
        store.close()
