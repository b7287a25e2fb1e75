from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from casetrack.domain.cases import CaseStatus
from casetrack.errors import CaseExistsError, CaseNotFoundError, CaseTrackError
from casetrack.store.registry import CaseRegistry


@pytest.fixture
def registry(tmp_path: Path) -> CaseRegistry:
    return CaseRegistry(tmp_path / "registry.sqlite", tmp_path / "cases")


def test_create_get_by_name_or_id(registry: CaseRegistry) -> None:
    rec = registry.create("Smith v. Jones", "civil", "en")
    assert registry.get("smith  v. JONES").id == rec.id
    assert registry.get(rec.id).name == "Smith v. Jones"
    assert registry.get(rec.id[:8]).id == rec.id
    assert registry.case_dir(rec.id).is_dir()


def test_duplicate_names_are_refused(registry: CaseRegistry) -> None:
    registry.create("Doe v. Corp")
    with pytest.raises(CaseExistsError):
        registry.create("doe v. corp")


def test_did_you_mean(registry: CaseRegistry) -> None:
    registry.create("Smith v. Jones")
    with pytest.raises(CaseNotFoundError, match="Did you mean 'Smith v. Jones'"):
        registry.get("Smith v Jone")


def test_miss_with_no_cases_says_how_to_create(registry: CaseRegistry) -> None:
    with pytest.raises(CaseNotFoundError) as e:
        registry.get("Anything")
    assert "casetrack case create" in (e.value.hint or "")


def test_bad_type_and_language(registry: CaseRegistry) -> None:
    with pytest.raises(CaseTrackError):
        registry.create("X", "maritime")
    with pytest.raises(CaseTrackError):
        registry.create("X", "civil", "fr")


def test_status_and_delete(registry: CaseRegistry) -> None:
    rec = registry.create("Archive me")
    registry.set_status(rec.id, CaseStatus.ARCHIVED)
    assert registry.list(include_archived=False) == []
    assert registry.list()[0].status == CaseStatus.ARCHIVED
    registry.delete(rec.id)
    assert not registry.case_dir(rec.id).exists()
    assert registry.list() == []


def test_removing_the_directory_removes_the_case(registry: CaseRegistry) -> None:
    rec = registry.create("Gone")
    shutil.rmtree(registry.case_dir(rec.id))
    assert registry.list() == []
    with pytest.raises(CaseNotFoundError):
        registry.get("Gone")


# -- a damaged or lost registry never hides a case (store/registry_rebuild.py) -------------------


def _reopen(tmp_path: Path) -> CaseRegistry:
    return CaseRegistry(tmp_path / "registry.sqlite", tmp_path / "cases")


def _with_case_json(registry: CaseRegistry, name: str, **fields: object) -> str:
    import json

    rec = registry.create(name, "civil", "pt")
    info = {**rec.to_json(), **fields}
    (registry.case_dir(rec.id) / "case.json").write_text(json.dumps(info))
    return rec.id


@pytest.mark.parametrize("fault", ["zeroed", "half", "deleted", "garbage"])
def test_a_damaged_registry_is_set_aside_and_rebuilt_from_the_case_folders(
    tmp_path: Path, fault: str
) -> None:
    registry = _reopen(tmp_path)
    first = _with_case_json(registry, "Smith v. Jones")
    second = _with_case_json(registry, "Doe v. Corp", status="closed")
    registry.close()
    path = tmp_path / "registry.sqlite"
    for extra in tmp_path.glob("registry.sqlite-*"):
        extra.unlink()
    if fault == "zeroed":
        path.write_bytes(b"\0" * path.stat().st_size)
    elif fault == "half":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif fault == "garbage":
        path.write_bytes(b"not a database at all" * 100)
    else:
        path.unlink()
    rebuilt = _reopen(tmp_path)
    by_id = {r.id: r for r in rebuilt.list()}
    assert set(by_id) == {first, second}
    assert (
        by_id[first].name == "Smith v. Jones"
        and by_id[first].language == "pt"
        and by_id[first].case_type == "civil"
    )
    assert by_id[second].status == CaseStatus.CLOSED
    assert any("added back" in line for line in rebuilt.rebuilt)
    if fault != "deleted":  # the damaged file is kept, renamed
        assert list(tmp_path.glob("registry.sqlite.damaged-*"))
        assert any("moved to registry.sqlite.damaged-" in line for line in rebuilt.rebuilt)


def test_a_case_folder_missing_from_an_intact_registry_is_adopted_with_defaults(tmp_path: Path) -> None:
    registry = _reopen(tmp_path)
    registry.create("Taken")
    restored = registry.cases_dir / "0123456789ab"
    restored.mkdir()
    (restored / "journal.sqlite").write_bytes(b"")  # a case's data, no case.json
    named = registry.cases_dir / "ba9876543210"
    named.mkdir()
    (named / "case.json").write_text('{"name": "Taken", "language": "xx"}')  # a clash and a bad language
    (registry.cases_dir / "not-a-case").mkdir()
    (registry.cases_dir / "abcdefabcdef").mkdir()  # empty: a create that crashed, nothing to adopt
    names = {r.id: r for r in registry.list()}
    assert (
        names["0123456789ab"].name == "Recovered case 0123456789ab" and names["0123456789ab"].language == "en"
    )
    assert names["ba9876543210"].name == "Taken (recovered ba9876543210)"
    assert "abcdefabcdef" not in names and len(names) == 3


def test_cases_that_cannot_be_seen_right_now_are_kept(tmp_path: Path) -> None:
    """`cases/` gone for a moment (a drive not mounted yet, a sync tool moving it): before, every
    registry row was pruned as a case deleted by hand."""
    registry = _reopen(tmp_path)
    rec = registry.create("Away")
    registry.cases_dir.rename(tmp_path / "elsewhere")
    try:
        assert [r.id for r in registry.list()] == [rec.id]
    finally:
        (tmp_path / "elsewhere").rename(registry.cases_dir)
    assert registry.get("Away").id == rec.id


def test_a_deleted_case_is_not_adopted_back(tmp_path: Path) -> None:
    registry = _reopen(tmp_path)
    rec = registry.create("Gone for good")
    (registry.case_dir(rec.id) / "case.json").write_text('{"name": "Gone for good"}')
    registry.delete(rec.id)
    assert registry.list() == [] and _reopen(tmp_path).list() == []


def test_a_registry_another_process_holds_locked_is_not_set_aside(tmp_path: Path) -> None:
    """ "database is locked" means healthy and busy: the error comes back, the file stays."""
    import sqlite3

    from casetrack.store.registry_rebuild import open_checked
    from casetrack.store.sqlite_util import is_busy

    assert is_busy(sqlite3.OperationalError("database is locked"))
    assert not is_busy(sqlite3.DatabaseError("file is not a database"))
    path = tmp_path / "registry.sqlite"
    path.write_bytes(b"")

    def locked(conn: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        open_checked(path, locked)
    assert path.exists() and not list(tmp_path.glob("*.damaged-*"))


@pytest.mark.slow
def test_a_journal_another_process_holds_locked_is_not_set_aside(tmp_path: Path) -> None:
    """A real lock: the open waits out SQLite's busy timeout (30 s), then fails; the file stays."""
    import sqlite3

    from casetrack.store.journal_repair import open_journal

    journal = tmp_path / "journal.sqlite"
    holder = sqlite3.connect(journal)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError):
            open_journal(journal)
    finally:
        holder.rollback()
        holder.close()
    assert not list(tmp_path.glob("journal.sqlite.damaged-*"))
