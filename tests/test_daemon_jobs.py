"""Ingest jobs in the daemon's service, in process: real ingest, records on disk, resume, cancel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casetrack.daemon.jobs import Job
from casetrack.daemon.service import Service
from casetrack.errors import CaseTrackError
from tests.daemon_util import settings_for


def _notes(folder: Path, count: int) -> list[Path]:
    folder.mkdir()
    paths = []
    for i in range(count):
        path = folder / f"note{i}.txt"
        path.write_text(f"Memorandum {i}. The lease of unit {i} ends on 31 March 2025; rent is ${1000 + i}.")
        paths.append(path)
    return paths


def test_a_job_ingests_records_each_file_and_reports(home: Path, tmp_path: Path) -> None:
    files = _notes(tmp_path / "in", 3) + [tmp_path / "missing.pdf"]
    service = Service(settings_for(home))
    service.start()
    try:
        service.app.create_case("Lease")
        job = service.submit_ingest("lease", files, label="in")
        seen: list[str] = []
        done = service.jobs.wait(job.id, 120, on_change=lambda j: seen.append(f"{j.status}:{j.done}"))
        assert done.status == "done" and [r["status"] for r in done.results] == ["ingested"] * 3 + ["error"]
        assert "missing.pdf" in done.results[3]["path"] and done.results[3]["error"]
        assert seen[0].startswith(("queued", "running")) and seen[-1] == "done:4"
        record = json.loads((home / "jobs" / f"{job.id}.json").read_text())
        assert record["status"] == "done" and len(record["results"]) == 4
        assert [j.id for j in service.jobs.recent()] == [job.id]
    finally:
        service.close()


def test_unfinished_jobs_resume_with_the_files_not_done(home: Path, tmp_path: Path) -> None:
    files = _notes(tmp_path / "in", 3)
    service = Service(settings_for(home))
    record = service.app.create_case("Lease")
    service.close()
    # What a daemon killed after the first file leaves on disk.
    jobs = home / "jobs"
    jobs.mkdir(exist_ok=True)
    interrupted = Job("abc123", record.id, record.name, [str(p) for p in files], status="running",
                      results=[{"path": str(files[0]), "name": files[0].name, "status": "ingested"}])
    (jobs / "abc123.json").write_text(json.dumps(interrupted.to_json()))

    service = Service(settings_for(home))
    try:
        resumed = service.start()
        assert [j.id for j in resumed] == ["abc123"]
        done = service.jobs.wait("abc123", 120)
        assert done.status == "done" and done.resumed == 1
        assert [r["name"] for r in done.results] == [p.name for p in files]
        docs = service.app.list_documents("Lease", "name")
        assert [d["name"] for d in docs] == ["note1.txt", "note2.txt"]  # note0 was "done" in the record
    finally:
        service.close()


def test_closed_cases_and_unknown_jobs_are_clear_errors(home: Path) -> None:
    service = Service(settings_for(home))
    try:
        service.app.create_case("Old")
        from casetrack.store.registry import CaseStatus

        service.app.set_status("Old", CaseStatus.CLOSED)
        with pytest.raises(CaseTrackError, match="closed"):
            service.submit_ingest("Old", [])
        with pytest.raises(CaseTrackError, match="No job"):
            service.jobs.get("nope")
    finally:
        service.close()


def test_a_queued_job_can_be_cancelled(home: Path, tmp_path: Path) -> None:
    files = _notes(tmp_path / "in", 1)
    service = Service(settings_for(home))  # not started: jobs stay queued
    try:
        service.app.create_case("Lease")
        job = service.submit_ingest("Lease", files)
        assert service.jobs.cancel(job.id).status == "cancelled"
        service.start()
        assert service.jobs.wait(job.id, 1).status == "cancelled"
        assert service.app.list_documents("Lease") == []
    finally:
        service.close()
