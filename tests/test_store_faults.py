"""Faults in derived files never brick a case: a zeroed, emptied or missing keyword-index meta
file is rebuilt from LanceDB's stored text by the next command, which works and says nothing
is lost (issue 14). Real tantivy, LanceDB and models, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli_runner import run

DOCS = {
    "lease.txt": "The tenant shall pay rent monthly.\n\nEither party may terminate with sixty days written notice.\n",
    "policy.txt": "Employees accrue vacation days each month.\n\nUnused vacation expires at year end.\n",
}


@pytest.fixture
def case(tmp_path: Path) -> str:
    for name, text in DOCS.items():
        (tmp_path / name).write_text(text)
    run("case", "create", "Faults")
    run("ingest", "--case", "Faults", *(str(tmp_path / n) for n in DOCS))
    return "Faults"


@pytest.mark.parametrize("fault", ["zeroed", "emptied", "deleted"])
def test_a_damaged_keyword_index_is_rebuilt_by_the_next_command(home: Path, case: str, fault: str) -> None:
    (meta,) = list(home.glob("cases/*/bm25/meta.json"))
    if fault == "zeroed":
        meta.write_bytes(b"\0" * meta.stat().st_size)
    elif fault == "emptied":
        meta.write_bytes(b"")
    else:
        meta.unlink()
    info = json.loads(run("case", "info", case, "--json").stdout)
    assert info["document_count"] == 2
    out = json.loads(run("search", "--case", case, "vacation expires year end", "--json").stdout)
    assert "bm25" in out["stages_used"] and out["results"][0]["source"]["document"] == "policy.txt"
    from casetrack.store.bm25 import Bm25Index

    (index_dir,) = list(home.glob("cases/*/bm25"))
    assert Bm25Index(index_dir, "en").total() == sum(1 for _ in DOCS)  # one chunk each, all back
    run("case", "delete", case, "--yes")


@pytest.mark.parametrize("fault", ["zeroed", "deleted"])
def test_a_lost_journal_costs_no_document(home: Path, case: str, fault: str, tmp_path: Path) -> None:
    """Before: the next ingest treated every stored chunk as an orphan and deleted it (82 chunks /
    6 documents -> 1 / 1). Now the journal is rebuilt from LanceDB and nothing is lost."""
    (journal,) = list(home.glob("cases/*/journal.sqlite"))
    if fault == "zeroed":
        journal.write_bytes(b"\0" * journal.stat().st_size)
    else:
        journal.unlink()
        for extra in journal.parent.glob("journal.sqlite-*"):
            extra.unlink()
    (tmp_path / "new.txt").write_text("The hearing is set for the third of June.\n")
    run("ingest", "--case", case, str(tmp_path / "new.txt"))
    info = json.loads(run("case", "info", case, "--json").stdout)
    assert {d["name"] for d in info["documents"]} == {*DOCS, "new.txt"}
    out = json.loads(
        run("search", "--case", case, "terminate with sixty days written notice", "--json").stdout
    )
    assert out["results"][0]["source"]["document"] == "lease.txt"
    if fault == "zeroed":
        assert list(journal.parent.glob("journal.sqlite.damaged-*"))  # kept for diagnosis


def test_a_torn_newest_lancedb_version_falls_back_and_says_what_was_lost(
    home: Path, case: str, tmp_path: Path
) -> None:
    """Before: every command failed with a raw Rust error ("does not have sufficient data"), and
    a journal ahead of LanceDB left the last document listed but unsearchable, its re-ingest
    refused as a duplicate."""
    last = tmp_path / "last.txt"
    last.write_text("The arbitration clause names Geneva as the seat of arbitration.\n")
    run("ingest", "--case", case, str(last))
    versions = list(home.glob("cases/*/lance/chunks.lance/_versions/*.manifest"))
    newest = max(versions, key=lambda p: 2**64 - 1 - int(p.stem) if int(p.stem) > 2**63 else int(p.stem))
    newest.write_bytes(newest.read_bytes()[:10])
    last.unlink()  # its original is gone too: only the case's copy of the manifest can save it
    info = json.loads(run("case", "info", case, "--json").stdout)
    assert {d["name"] for d in info["documents"]} == {*DOCS, "last.txt"}  # nothing lost
    out = json.loads(run("search", "--case", case, "vacation expires year end", "--json").stdout)
    assert out["results"][0]["source"]["document"] == "policy.txt"
    hits = json.loads(run("search", "--case", case, "seat of arbitration Geneva", "--json").stdout)["results"]
    assert hits[0]["source"]["document"] == "last.txt"
    assert list(newest.parent.glob("*.damaged"))  # set aside, not deleted
    assert json.loads(run("case", "check", case, "--json").stdout)["healthy"]


def _one_version_case(tmp_path: Path) -> str:
    """A case after a delete: each LanceDB table keeps exactly one manifest (store/purge.py)."""
    for name, text in {**DOCS, "gone.txt": "A withdrawn exhibit about Zanzibar clavichords.\n"}.items():
        (tmp_path / name).write_text(text)
    run("case", "create", "One")
    run("ingest", "--case", "One", *(str(tmp_path / n) for n in [*DOCS, "gone.txt"]))
    run("documents", "delete", "--case", "One", "gone.txt", "--yes")
    return "One"


def _no_traceback(result: Result) -> str:
    text = result.output + (result.stderr or "")
    assert result.exception is None or isinstance(result.exception, SystemExit), text
    for raw in ("Traceback", "was not found", "Invalid range", "lance error", "panicked"):
        assert raw not in text, text
    return text


# ~6 s each: an ingest of three files and a delete, then five commands
@pytest.mark.slow
@pytest.mark.parametrize("fault", ["zeroed manifest", "cut manifest", "_versions deleted", "table deleted"])
def test_a_case_with_one_lancedb_version_survives_the_loss_of_its_manifest(
    home: Path, tmp_path: Path, fault: str
) -> None:
    """Before: search, `case check` and `--repair` all crashed with a raw traceback ("Table
    'chunks' was not found", "Invalid range 0..0") and every document was unreadable, though
    its data file was intact."""
    import shutil

    case = _one_version_case(tmp_path)
    (table,) = list(home.glob("cases/*/lance/chunks.lance"))
    (manifest,) = list((table / "_versions").glob("*.manifest"))
    if fault == "zeroed manifest":
        manifest.write_bytes(b"\0" * manifest.stat().st_size)
    elif fault == "cut manifest":
        manifest.write_bytes(manifest.read_bytes()[: manifest.stat().st_size // 2])
    elif fault == "_versions deleted":
        shutil.rmtree(manifest.parent)
    else:
        shutil.rmtree(table)
    if fault != "table deleted":  # the data file is intact: nothing may need the originals
        for name in DOCS:
            (tmp_path / name).unlink()
    searched = run("search", "--case", case, "vacation expires year end", "--json", ok=False)
    text = _no_traceback(searched)
    if searched.exit_code:
        assert f'casetrack case check "{case}" --repair' in text
    _no_traceback(run("case", "check", case, ok=False))
    repaired = run("case", "check", case, "--repair", "--json", ok=False)
    _no_traceback(repaired)
    assert json.loads(repaired.stdout)["healthy"], repaired.output
    info = json.loads(run("case", "info", case, "--json").stdout)
    assert {d["name"] for d in info["documents"]} == set(DOCS)
    out = json.loads(run("search", "--case", case, "vacation expires year end", "--json").stdout)
    assert out["results"][0]["source"]["document"] == "policy.txt"
    for path in (home / "cases").rglob("*"):  # the deleted document's text came back nowhere
        assert not path.is_file() or b"Zanzibar" not in path.read_bytes(), path


def test_a_table_no_version_of_which_opens_is_set_aside_and_named(
    home: Path, case: str, tmp_path: Path
) -> None:
    """A case from before the manifest copies (none kept) whose `_versions/` folder is gone:
    a clear message, then the repair sets the table aside and ingests every document again
    from its original file."""
    import shutil

    shutil.rmtree(next(home.glob("cases/*/lance_manifests")))
    shutil.rmtree(next(home.glob("cases/*/lance/chunks.lance/_versions")))
    searched = run("search", "--case", case, "vacation", "--json", ok=False)
    text = _no_traceback(searched)
    assert searched.exit_code == 1 and f'casetrack case check "{case}" --repair' in text
    checked = run("case", "check", case, ok=False)
    assert checked.exit_code == 3 and "none of its versions can be read" in _no_traceback(checked)
    repaired = run("case", "check", case, "--repair", "--json", ok=False)
    report = json.loads(repaired.stdout)
    assert report["healthy"], report
    assert sum("again from its unchanged original file" in line for line in report["repaired"]) == 2
    assert list(home.glob("cases/*/lance/chunks.lance.damaged-*"))
    # a delete takes the document out of what the repair set aside too (issue 30): its text is
    # in the set-aside table folder
    run("documents", "delete", "--case", case, "policy.txt", "--yes")
    assert not list(home.glob("cases/*/lance/chunks.lance.damaged-*"))
    for path in (home / "cases").rglob("*"):
        assert not path.is_file() or b"vacation" not in path.read_bytes(), path


# ~8 s: two ingests, a lost data file, a repair and a search
@pytest.mark.slow
def test_a_search_of_a_case_that_lost_a_document_says_so_in_its_warnings(home: Path, tmp_path: Path) -> None:
    """Before: `warnings` was empty, so a script or Claude took the partial results as whole."""
    run("case", "create", "Partial")
    for name, text in DOCS.items():  # one commit each: lease.txt's rows in a data file of their own
        (tmp_path / name).write_text(text)
        run("ingest", "--case", "Partial", str(tmp_path / name))
    (first, *_) = sorted(
        home.glob("cases/*/lance/chunks.lance/data/*.lance"), key=lambda p: p.stat().st_mtime
    )
    first.unlink()  # lease.txt's only data file
    (tmp_path / "lease.txt").unlink()  # and its original is gone: the repair can only name it
    report = json.loads(run("case", "check", "Partial", "--repair", "--json", ok=False).stdout)
    assert any(line.startswith("lost lease.txt") for line in report["repaired"]), report
    out = json.loads(run("search", "--case", "Partial", "vacation expires year end", "--json").stdout)
    assert out["results"][0]["source"]["document"] == "policy.txt"
    assert any("lease.txt" in w and "incomplete" in w for w in out["warnings"]), out["warnings"]


def test_case_check_finds_and_repairs(home: Path, case: str) -> None:
    healthy = json.loads(run("case", "check", case, "--json").stdout)
    assert healthy["healthy"] and healthy["documents"] == 2 and healthy["problems"] == []
    (meta,) = list(home.glob("cases/*/bm25/meta.json"))
    meta.write_bytes(b"")
    found = run("case", "check", case, ok=False)
    assert found.exit_code == 3 and "keyword index" in found.output and "--repair" in found.output
    fixed = json.loads(run("case", "check", case, "--repair", "--json").stdout)
    assert fixed["healthy"] and any("keyword index" in line for line in fixed["repaired"])


def test_a_store_that_cannot_be_written_is_blamed_not_the_file(home: Path, case: str, tmp_path: Path) -> None:
    import shutil

    (data,) = list(home.glob("cases/*/lance/chunks.lance/data"))
    shutil.rmtree(data)
    data.write_text("not a folder")  # LanceDB cannot write its next data file
    new = tmp_path / "new.txt"
    new.write_text("The hearing is set for the third of June.\n")
    failed = run("ingest", "--case", case, str(new), "--json", ok=False)
    assert failed.exit_code == 1 and "LanceDB store" in failed.stderr and "files are fine" in failed.stderr
    assert (
        "may be damaged" not in failed.stderr
        and "case check" in failed.stderr
        and "Traceback" not in failed.stderr
    )


def test_a_table_with_a_lost_data_file_keeps_every_row_it_can_read(tmp_path: Path) -> None:
    """store/lance_salvage.py on a bare LanceDB table: one data file (one commit's rows) deleted,
    another zeroed; the rows of the other files are rewritten as a new version, the lost counted."""
    import lancedb
    import pyarrow as pa

    from casetrack.store.lance_salvage import rewrite_readable, unreadable

    db = lancedb.connect(str(tmp_path / "lance"))
    table = db.create_table("chunks", data=pa.table({"doc_id": ["a"] * 3, "n": [0, 1, 2]}))
    for doc, rows in (("b", 2), ("c", 4), ("d", 1)):
        table.add(pa.table({"doc_id": [doc] * rows, "n": list(range(rows))}))
    data = sorted((tmp_path / "lance/chunks.lance/data").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    data[1].unlink()  # b's rows
    data[2].write_bytes(b"\0" * data[2].stat().st_size)  # c's rows
    table = lancedb.connect(str(tmp_path / "lance")).open_table("chunks")
    assert unreadable(table) == "a data file is missing"
    fresh, kept, lost = rewrite_readable(db, "chunks", table)
    assert (kept, lost) == (4, 6)
    assert sorted(fresh.to_arrow().column("doc_id").to_pylist()) == ["a", "a", "a", "d"]
    assert unreadable(fresh) is None and data[1].parent.exists() and data[2].exists()  # nothing deleted


def test_the_daemon_start_up_check_rebuilds_a_zeroed_registry(tmp_path: Path) -> None:
    from casetrack.config import resolve_settings
    from casetrack.daemon.service import Service
    from tests.conftest import MODELS

    settings = resolve_settings(tmp_path / "data", MODELS, environ={})
    service = Service(settings)
    service.app.create_case("Kept")
    service.app.open_case("Kept").close()  # writes its case.json
    service.close()
    registry = settings.registry_path
    registry.write_bytes(b"\0" * registry.stat().st_size)
    for extra in registry.parent.glob("registry.sqlite-*"):
        extra.unlink()
    service = Service(settings)
    try:
        lines = service.startup_check()
        assert any("moved to registry.sqlite.damaged-" in line for line in lines)
        assert any("'Kept'" in line and "added back" in line for line in lines)
        assert [r.name for r in service.app.registry.list()] == ["Kept"]
    finally:
        service.close()
