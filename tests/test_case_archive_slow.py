"""Portable cases with real documents and real models (slow tier).

A case built from real files is exported and imported as a copy in the same data directory, into
a fresh data directory, without its sources, as a case folder copied by hand, and under other
models; the same searches give byte-identical JSON (the case's own name and the timings aside),
a tampered archive is refused before anything is written, an import killed midway leaves no half
case.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from casetrack.app import CaseTrack
from casetrack.app.portable import export_case, import_case
from casetrack.config import resolve_settings
from casetrack.domain import SearchResponse
from casetrack.search.ranking.output import response_json
from casetrack.store.case_archive import ArchiveError
from tests.cli_runner import run
from tests.conftest import DATA, MODELS, require

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}"),
]

FILES = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF",
    DATA / "legal_docs_us_courts/missouri.pdf",
    DATA / "legal_docs_us_courts/word-docx.docx",
)
QUERIES = (
    "How much notice is needed to terminate the hosting agreement?",
    "service level credits for downtime",
    "the court affirmed the judgment",
    '"Premium Managed Hosting"',
)
CLI_ENV = {"CASETRACK_CLI_DAEMON": "never"}


@dataclass
class Source:
    root: Path
    home: Path
    client: Path
    app: CaseTrack
    archive: Path


def make_app(home: Path, models: Path = MODELS) -> CaseTrack:
    return CaseTrack(resolve_settings(home, models, environ={}))


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("portable")
    client = root / "client"
    client.mkdir()
    for path in FILES:
        shutil.copy(require(path), client / path.name)
    app = make_app(root / "home")
    app.create_case("Hosting")
    results = app.ingest("Hosting", sorted(client.iterdir()))
    assert [r.status for r in results] == ["ingested"] * 3, results
    archive = root / "hosting.ctcase"
    report = export_case(app, "Hosting", archive)
    assert report.sources == 3 and report.documents == 3 and not report.warnings, report
    yield Source(root, root / "home", client, app, archive)
    app.close()


def canonical(response: SearchResponse) -> str:
    """The search's --json, less what differs by design: the case's name and the timings."""
    out = {k: v for k, v in response_json(response).items() if k not in ("case", "timings_ms")}
    assert out["results"], "the query found nothing: the comparison would prove nothing"
    return json.dumps(out, ensure_ascii=False, sort_keys=True)


def same_searches(a: CaseTrack, case_a: str, b: CaseTrack, case_b: str) -> None:
    for query in QUERIES:
        assert canonical(b.search(case_b, query)) == canonical(a.search(case_a, query)), query
    by_doc = [
        canonical(app.search(case, QUERIES[0], per_document=True)) for app, case in ((a, case_a), (b, case_b))
    ]
    assert by_doc[0] == by_doc[1]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_round_trip_same_and_fresh_data_directory_gives_byte_identical_searches(source: Source) -> None:
    app = source.app
    started = time.monotonic()
    copy = import_case(app, source.archive, "Hosting copy")
    seconds = time.monotonic() - started
    assert copy.documents == 3 and copy.sources == 3 and not copy.models_differed and not copy.reembedded
    same_searches(app, "Hosting", app, "Hosting copy")

    fresh = make_app(source.root / "fresh")
    try:
        moved = import_case(fresh, source.archive)
        assert moved.case["name"] == "Hosting" and moved.case["id"] != app.registry.get("Hosting").id
        same_searches(app, "Hosting", fresh, "Hosting")
        # The imported originals: in the new case's folder, private, unchanged, what documents point at.
        for doc in fresh.case_summary("Hosting")["documents"]:
            assert doc["source_path"] is not None
            path = Path(doc["source_path"])
            assert path.is_relative_to(fresh.registry.case_dir(moved.case["id"]) / "sources")
            assert stat.S_IMODE(path.stat().st_mode) == 0o600 and sha256(path) == doc["sha256"]
        # A second export of the imported case carries those originals on.
        again = export_case(fresh, "Hosting", source.root / "again.ctcase")
        assert again.sources == 3 and not again.warnings
    finally:
        fresh.close()
    print(f"\nimport of {source.archive.stat().st_size / 1e6:.1f} MB archive: {seconds:.2f} s")

    # The CLI's own --json, byte for byte (less the case name and timings).
    base = ("--data-dir", str(source.home), "--models-dir", str(MODELS))
    outs = []
    for case in ("Hosting", "Hosting copy"):
        out = json.loads(run(*base, "search", "--case", case, QUERIES[0], "--json", env=CLI_ENV).stdout)
        outs.append(
            json.dumps({k: v for k, v in out.items() if k not in ("case", "timings_ms")}, sort_keys=True)
        )
    assert outs[0] == outs[1] and '"results": [{' in outs[0]


def _tree(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if not p.name.endswith(("-wal", "-shm")))


def test_a_tampered_archive_is_refused_before_anything_is_written(source: Source, tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    app.registry.list()
    before = _tree(tmp_path / "home")
    with zipfile.ZipFile(source.archive) as zf:
        lance = max((i for i in zf.infolist() if i.filename.endswith(".lance")), key=lambda i: i.file_size)
        pdf = next(
            i for i in zf.infolist() if i.filename.startswith("sources/") and i.filename.endswith(".pdf")
        )
    for member in (lance, pdf):  # stored members: one byte flipped in the middle of the file's data
        raw = bytearray(source.archive.read_bytes())
        raw[
            member.header_offset
            + 30
            + len(member.filename.encode())
            + len(member.extra)
            + member.file_size // 2
        ] ^= 1
        bad = tmp_path / "bad.ctcase"
        bad.write_bytes(bytes(raw))
        with pytest.raises(ArchiveError) as err:
            import_case(app, bad)
        assert member.filename in err.value.message and "Nothing was imported" in err.value.message
        assert _tree(tmp_path / "home") == before and app.registry.list() == []
    truncated = tmp_path / "truncated.ctcase"
    truncated.write_bytes(source.archive.read_bytes()[:-5000])
    with pytest.raises(ArchiveError, match="cut short"):
        import_case(app, truncated)
    assert _tree(tmp_path / "home") == before and app.registry.list() == []


def test_without_sources_and_with_a_missing_source(source: Source) -> None:
    app = source.app
    bare = source.root / "bare.ctcase"
    report = export_case(app, "Hosting", bare, include_sources=False)
    assert report.sources == 0 and report.bytes < source.archive.stat().st_size
    with zipfile.ZipFile(bare) as zf:
        assert not [n for n in zf.namelist() if n.startswith("sources/")]
    fresh = make_app(source.root / "bare-home")
    try:
        imported = import_case(fresh, bare)
        assert imported.sources == 0 and any("no original files" in w for w in imported.warnings)
        same_searches(app, "Hosting", fresh, "Hosting")
        paths = {d["name"]: d["source_path"] for d in fresh.case_summary("Hosting")["documents"]}
        assert paths == {d["name"]: d["source_path"] for d in app.case_summary("Hosting")["documents"]}
    finally:
        fresh.close()

    gone = source.client / "missouri.pdf"
    gone.rename(source.root / "moved.pdf")
    try:
        partial = export_case(app, "Hosting", source.root / "partial.ctcase")
    finally:
        (source.root / "moved.pdf").rename(gone)
    assert partial.sources == 2 and len(partial.warnings) == 1 and "missouri.pdf" in partial.warnings[0]
    other = import_case(app, source.root / "partial.ctcase", "Hosting partial")
    assert other.sources == 2 and any("missouri.pdf" in w for w in other.warnings)


def test_a_case_folder_copied_by_hand(source: Source) -> None:
    folder = source.root / "usb" / "case-folder"
    shutil.copytree(source.app.registry.case_dir(source.app.registry.get("Hosting").id), folder)
    home = source.root / "usb-home"
    base = ("--data-dir", str(home), "--models-dir", str(MODELS))
    out = json.loads(
        run(*base, "case", "import", str(folder), "--as", "From USB", "--json", env=CLI_ENV).stdout
    )
    assert out["kind"] == "folder" and out["case"]["name"] == "From USB" and out["documents"] == 3
    here = make_app(home)
    try:
        same_searches(source.app, "Hosting", here, "From USB")
    finally:
        here.close()


def swapped_models(root: Path) -> Path:
    """The same models, E1 under another name: another fingerprint, as after a model upgrade."""
    models = root / "swapped"
    models.mkdir(exist_ok=True)
    for name in ("all-MiniLM-L6-v2", "splade-tiny", "colbert-standin-minilm"):
        if not (models / name).exists():
            (models / name).symlink_to(MODELS / name, target_is_directory=True)
    e5 = models / "e5-upgraded"
    if not e5.exists():
        shutil.copytree(MODELS / "multilingual-e5-small-enpt", e5)
        meta = json.loads((e5 / "model.json").read_text())
        (e5 / "model.json").write_text(json.dumps({**meta, "name": "e5-upgraded"}))
    return models


def test_other_models_are_re_embedded_on_import(source: Source) -> None:
    other = make_app(source.root / "upgraded", swapped_models(source.root))
    try:
        report = import_case(other, source.archive)
        assert set(report.models_differed) == {"E1"}
        assert sorted(r["document"] for r in report.reembedded) == sorted(p.name for p in FILES)
        assert all(r["slots"] == ["E1"] for r in report.reembedded)
        assert other.status("Hosting")["case"]["mismatched"] == {}
        response = other.search("Hosting", QUERIES[0])
        assert "dense" in response.stages_used and "E1" not in response.stages_skipped
        assert response.hits[0].provenance.document == FILES[0].name
    finally:
        other.close()


def test_an_import_killed_midway_leaves_no_half_case(source: Source) -> None:
    home = source.root / "killed"
    models = swapped_models(source.root)  # the re-embed keeps the import busy long enough to be killed
    cmd = [
        sys.executable,
        "-m",
        "casetrack",
        "--data-dir",
        str(home),
        "--models-dir",
        str(models),
        "case",
        "import",
        str(source.archive),
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **CLI_ENV}
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        temps = list((home / "cases").glob(".import-*/lance")) if (home / "cases").is_dir() else []
        if temps:
            time.sleep(0.3)
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    app = make_app(home, models)
    try:
        cases = app.registry.list()
        assert len(cases) <= 1
        if cases:  # killed after the rename: then it is the whole case
            assert app.case_summary(cases[0].id)["document_count"] == 3
        report = import_case(app, source.archive, "After the kill")
        assert report.documents == 3
        assert not list((home / "cases").glob(".import-*"))  # the leftover was removed
    finally:
        app.close()


def test_mcp_import_then_search(source: Source, tmp_path: Path) -> None:
    import anyio
    from mcp import Client

    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server

    settings = resolve_settings(
        tmp_path / "home", MODELS, environ={}, allowed_roots=[source.root], home_dir=source.root
    )

    async def calls() -> tuple[Any, Any]:
        service = Service(settings)
        try:
            async with Client(build_server(service, SessionState())) as client:
                imported = await client.call_tool("import_case", {"source_path": str(source.archive)})
                found = await client.call_tool("search_case", {"query": QUERIES[0]})
                return imported, found
        finally:
            service.close()

    imported, found = anyio.run(calls)
    assert not imported.is_error, imported.content[0].text
    assert imported.structured_content["documents"] == 3
    want = response_json(source.app.search("Hosting", QUERIES[0]))["results"]
    assert not found.is_error and found.structured_content["results"] == want
