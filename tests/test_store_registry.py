from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from casetrack.errors import CaseExistsError, CaseNotFoundError, CaseTrackError
from casetrack.store.registry import CaseRegistry, CaseStatus


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
