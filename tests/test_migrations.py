"""The stored data's schema version and its migrations (casetrack/store/migrations), on a real case
written by CaseTrack before versions existed (tests/fixtures/case_v0, made by
tests/fixtures/make_case_v0.py): opened by today's code it is upgraded, answers every search,
get_chunk and verify_citation as the old code did, and is left alone the next time; rows from
before the columns existed get them; a kill mid-migration leaves a case that opens and migrates
again; a reader that cannot upgrade says what to wait for; a second migration is one entry."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.errors import CaseBusyError, CaseTrackError
from casetrack.store import migrations
from casetrack.store.bm25 import ANALYZER_FILE
from casetrack.store.lance_tables import CHUNKS, DOCUMENTS, META_JSON, LanceTables
from casetrack.store.lance_versions import manifest_version
from casetrack.store.lock import WriterLock
from casetrack.store.migrations import Migration, current_version
from casetrack.store.migrations.m1_complete_rows import line_numbers_from_range
from casetrack.store.near_duplicates import SIGNATURE_KEY
from tests.conftest import MODELS, REPO
from tests.fixtures.make_case_v0 import CASE, FIXTURE, answers

EXPECTED: dict[str, Any] = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))


def same_answers(now: dict[str, Any], then: dict[str, Any] = EXPECTED) -> bool:
    """The case answers as it did: every chunk found then and now has the same citation and source
    (which chunks come first may change with the search itself, not with the stored data), the same
    first-hit passages come back whole, and every quote gets the same verdict."""
    for query, hits in then["search"].items():
        found = {h["chunk_id"]: (h["chunk_citation"], h["source"]["document"]) for h in now["search"][query]}
        for h in hits:
            if h["chunk_id"] in found and found[h["chunk_id"]] != (
                h["chunk_citation"],
                h["source"]["document"],
            ):
                return False
        if not set(found) & {h["chunk_id"] for h in hits}:
            return False
        view, was = now["get_chunk"][query], then["get_chunk"][query]
        if view["chunk_id"] == was["chunk_id"] and view["text"] != was["text"]:
            return False
    return bool(now["verify"] == then["verify"])


# Columns a table written before 2026-11-25 lacked (transcripts, statutes, OCR line confidences).
OLD_CHUNK_COLUMNS = ("line_confidences", "bates", "section", "line_pages", "transcript")


def _copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE / "home", home)
    return home


def _case_dir(home: Path) -> Path:
    return next((home / "cases").iterdir())


def _app(home: Path) -> CaseTrack:
    return CaseTrack(resolve_settings(home, MODELS, environ={}))


def _case_json(home: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((_case_dir(home) / "case.json").read_text(encoding="utf-8"))
    return data


def _rows(home: Path, table: str) -> dict[str, dict[str, Any]]:
    """Every row of `table` (no embeddings), by chunk_id or doc_id."""
    t = LanceTables(_case_dir(home) / "lance").table(table)
    assert t is not None
    key = "chunk_id" if table == CHUNKS else "doc_id"
    names = [n for n in t.schema.names if not n.startswith(("vector", "sparse", "li_"))]
    return {r[key]: r for r in t.search().select(names).limit(1000).to_arrow().to_pylist()}


def _without_signatures(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Document rows as migration 1 left them: migration 2's signature taken out of their metadata."""
    out = {}
    for doc_id, row in rows.items():
        meta = json.loads(row[META_JSON]) if row.get(META_JSON) else None
        if meta is not None:
            meta.pop(SIGNATURE_KEY, None)
        out[doc_id] = {**row, META_JSON: json.dumps(meta) if meta is not None else None}
    return out


def _versions(home: Path) -> dict[str, int]:
    lance = LanceTables(_case_dir(home) / "lance")
    return {name: int(lance.table(name).version) for name in (CHUNKS, DOCUMENTS)}  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    """The fixture's rows as the old code wrote them (read without opening the case)."""
    home = _copy(tmp_path_factory.mktemp("original"))
    return {CHUNKS: _rows(home, CHUNKS), DOCUMENTS: _rows(home, DOCUMENTS)}


def _make_older(home: Path) -> None:
    """Make the fixture look like a case from before 2026-11-24: chunk rows without line
    numbers, tables without the later columns, no analyzer record in the keyword index."""
    lance = LanceTables(_case_dir(home) / "lance")
    chunks = lance.table(CHUNKS)
    assert chunks is not None
    rows = chunks.search().limit(1000).to_arrow()
    i = rows.schema.get_field_index("line_numbers")
    rows = rows.set_column(i, rows.schema.field(i), pa.nulls(rows.num_rows, rows.schema.field(i).type))
    chunks.merge_insert("chunk_id").when_matched_update_all().execute(rows)
    chunks.drop_columns(list(OLD_CHUNK_COLUMNS))
    documents = lance.table(DOCUMENTS)
    assert documents is not None
    documents.drop_columns([META_JSON])
    (_case_dir(home) / "bm25" / ANALYZER_FILE).unlink()


# -- the fixture ---------------------------------------------------------------------------------


def test_a_case_from_before_versions_is_upgraded_and_answers_as_before(
    tmp_path: Path, original: dict[str, dict[str, dict[str, Any]]]
) -> None:
    home = _copy(tmp_path)
    assert migrations.VERSION_KEY not in _case_json(home)
    app = _app(home)
    try:
        assert same_answers(answers(app))  # the first read upgrades it (no writer holds its lock)
        assert _case_json(home)[migrations.VERSION_KEY] == current_version() == 2
        assert app.case_summary(CASE)["schema_version"] == 2
    finally:
        app.close()
    assert _rows(home, CHUNKS) == original[CHUNKS]  # nothing was missing: no row changed
    # migration 2 adds each document's near-duplicate signature to its metadata, and nothing else
    # (the fixture's three documents are no near-copies of each other)
    assert _without_signatures(_rows(home, DOCUMENTS)) == original[DOCUMENTS]
    assert all(json.loads(r[META_JSON])[SIGNATURE_KEY] for r in _rows(home, DOCUMENTS).values())
    # Opened again, with its writer lock: nothing to do, nothing written.
    before, stamp = _versions(home), (_case_dir(home) / "case.json").stat().st_mtime_ns
    app = _app(home)
    try:
        store = app.open_case(CASE)
        try:
            assert not store.needs_recovery()
            store.lock.acquire()
            assert store.recover() == []
        finally:
            store.close()
        assert same_answers(answers(app))
    finally:
        app.close()
    assert _versions(home) == before and (_case_dir(home) / "case.json").stat().st_mtime_ns == stamp


def test_rows_written_before_the_columns_existed_get_them(
    tmp_path: Path, original: dict[str, dict[str, dict[str, Any]]]
) -> None:
    home = _copy(tmp_path)
    _make_older(home)
    older = _rows(home, CHUNKS)
    assert all(r["line_numbers"] is None and "bates" not in r for r in older.values())
    app = _app(home)
    try:
        with app.writing(CASE) as store:
            assert store.schema_version() == 2
        assert same_answers(answers(app))
    finally:
        app.close()
    chunks, documents = _rows(home, CHUNKS), _rows(home, DOCUMENTS)
    for chunk_id, row in chunks.items():
        was = original[CHUNKS][chunk_id]
        assert row["line_numbers"] == line_numbers_from_range(row["text"], row["line_start"], row["line_end"])
        # Here the count is exact: a PDF, a DOCX and a .txt with one blank line between paragraphs.
        assert row["line_numbers"] == was["line_numbers"]
        assert all(row[c] is None for c in OLD_CHUNK_COLUMNS)  # nothing was known of them then
    assert {d: r[META_JSON] for d, r in _without_signatures(documents).items()} == {
        d: r[META_JSON] for d, r in original[DOCUMENTS].items()
    }
    record = json.loads((_case_dir(home) / "bm25" / ANALYZER_FILE).read_text(encoding="utf-8"))
    assert record["language"] == "pt" and record["analyzer"]


def test_line_numbers_of_a_txt_skip_its_blank_lines() -> None:
    text = "first\nsecond\n\nthird\n\nfourth"  # a .txt numbers its blank lines 3 and 5
    assert line_numbers_from_range(text, 1, 6) == [1, 2, 4, 6]
    assert line_numbers_from_range(text, 3, 6) == [3, 4, 5, 6]  # a PDF page's: consecutive
    assert line_numbers_from_range(text, 0, 0) == [] and line_numbers_from_range("", 1, 1) == []
    # Uneven blank runs (lines 3 and 5-6 blank) cannot be told apart from the first and last
    # numbers: the skipped numbers are spread evenly, as verification spread them.
    assert line_numbers_from_range("first\nsecond\n\nthird\n\n\nfourth", 1, 7) == [1, 2, 5, 7]


# -- crash safety, readers, newer cases ----------------------------------------------------------

_KILLED = """
import os, sys
from pathlib import Path
from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.store.migrations import m1_complete_rows

def killed(store):
    os._exit(9)  # kill -9 after the line numbers, before the document metadata and the version

m1_complete_rows._fill_meta_json = killed
app = CaseTrack(resolve_settings(Path(sys.argv[1]), Path(sys.argv[2]), environ={}))
with app.writing(sys.argv[3]):
    pass
"""


def test_a_kill_mid_migration_leaves_a_case_that_opens_and_migrates_again(
    tmp_path: Path, original: dict[str, dict[str, dict[str, Any]]]
) -> None:
    home = _copy(tmp_path)
    _make_older(home)
    done = subprocess.run(
        [sys.executable, "-c", _KILLED, str(home), str(MODELS), CASE], cwd=REPO, check=False, timeout=120
    )
    assert done.returncode == 9
    assert migrations.VERSION_KEY not in _case_json(home)  # the version is written last
    half = _rows(home, CHUNKS)
    assert all(r["line_numbers"] is not None for r in half.values())  # the first step was done
    assert all(r[META_JSON] is None for r in _rows(home, DOCUMENTS).values())
    app = _app(home)
    try:
        assert same_answers(answers(app))
        assert app.check_case(CASE)["healthy"]
    finally:
        app.close()
    assert _case_json(home)[migrations.VERSION_KEY] == 2
    assert {d: r[META_JSON] for d, r in _without_signatures(_rows(home, DOCUMENTS)).items()} == {
        d: r[META_JSON] for d, r in original[DOCUMENTS].items()
    }


def test_a_reader_that_cannot_upgrade_says_what_to_wait_for(tmp_path: Path) -> None:
    home = _copy(tmp_path)
    other = WriterLock(_case_dir(home) / "writer.lock", CASE)  # another process writing the case
    assert other.try_acquire()
    app = _app(home)
    try:
        with pytest.raises(CaseBusyError) as err:
            app.search(CASE, "multa por atraso")
        assert "older format" in err.value.message and f"(pid {os.getpid()})" in err.value.message
        assert err.value.hint and f'casetrack case check "{CASE}" --repair' in err.value.hint
        report = app.check_case(CASE)  # read-only: says the case is behind
        assert any("stored data: version 0" in p for p in report["problems"])
        other.release()
        assert same_answers(answers(app))
        assert app.check_case(CASE)["healthy"]
    finally:
        other.release()
        app.close()


def test_a_new_case_is_written_at_the_current_version(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = _app(tmp_path / "home")
    try:
        record = app.create_case("Novo")
        assert app.case_summary("Novo")["schema_version"] == current_version()
        case_json = json.loads((app.registry.case_dir(record.id) / "case.json").read_text(encoding="utf-8"))
        assert case_json[migrations.VERSION_KEY] == current_version()
    finally:
        app.close()
    assert "upgraded" not in caplog.text


# -- the next migration --------------------------------------------------------------------------


def _fill_reviewed(store: Any) -> list[str]:
    table = store.lance.table(CHUNKS)
    n = int(table.count_rows("reviewed IS NULL"))
    if n:
        table.update(where="reviewed IS NULL", values={"reviewed": False})
    return [f"{n} chunks not reviewed yet"] if n else []


TOY = Migration(
    3, "a review flag", columns={CHUNKS: (pa.field("reviewed", pa.bool_()),)}, fill=_fill_reviewed
)


def test_a_second_migration_is_one_entry_and_an_older_casetrack_leaves_its_cases_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _copy(tmp_path)
    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, TOY))
    app = _app(home)
    try:
        with app.writing(CASE) as store:
            assert store.schema_version() == 3  # 0 -> 1 -> 2 -> 3 in one open
        assert same_answers(answers(app))
    finally:
        app.close()
    assert {r["reviewed"] for r in _rows(home, CHUNKS).values()} == {False}
    monkeypatch.undo()  # this CaseTrack again, which knows version 2 only
    app = _app(home)
    try:
        assert same_answers(answers(app))  # reading a newer case works
        with pytest.raises(CaseTrackError, match="newer CaseTrack") as err, app.writing(CASE):
            pass
        assert err.value.hint and "casetrack update" in err.value.hint
    finally:
        app.close()


def test_rows_back_from_an_older_lancedb_version_are_migrated_again(tmp_path: Path) -> None:
    home = _copy(tmp_path)
    _make_older(home)
    app = _app(home)
    try:
        with app.writing(CASE) as store:
            assert store.schema_version() == 2
    finally:
        app.close()
    # The newest chunks version (the migration's) is torn: the table opens at the one before,
    # whose rows have no line numbers, while case.json says version 2.
    versions = _case_dir(home) / "lance" / f"{CHUNKS}.lance" / "_versions"
    newest = max(versions.glob("*.manifest"), key=manifest_version)
    newest.write_bytes(b"\0" * newest.stat().st_size)
    app = _app(home)
    try:
        assert same_answers(answers(app))
    finally:
        app.close()
    assert all(r["line_numbers"] for r in _rows(home, CHUNKS).values())
