"""Ingest jobs in the daemon's service, in process: real ingest, records on disk, resume, cancel."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from casetrack.daemon.jobs import Job, JobManager
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
    interrupted = Job(
        "abc123",
        record.id,
        record.name,
        [str(p) for p in files],
        status="running",
        results=[{"path": str(files[0]), "name": files[0].name, "status": "ingested"}],
    )
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


def test_a_resumed_job_reports_the_file_recovery_finished_as_ingested(home: Path, tmp_path: Path) -> None:
    """Issue 30: the daemon was killed after the file's commit, before the job recorded it; the
    resumed job found it in the case and called it a "duplicate" of itself."""
    files = _notes(tmp_path / "in", 2)
    service = Service(settings_for(home))
    record = service.app.create_case("Lease")
    service.app.ingest("Lease", [files[0]])  # committed by the daemon that was then killed
    service.close()
    jobs = home / "jobs"
    jobs.mkdir(exist_ok=True)
    interrupted = Job("def456", record.id, record.name, [str(p) for p in files], status="running")
    (jobs / "def456.json").write_text(json.dumps(interrupted.to_json()))
    service = Service(settings_for(home))
    try:
        service.start()
        done = service.jobs.wait("def456", 120)
        assert [r["status"] for r in done.results] == ["ingested", "ingested"], done.results
        assert "finished when the case was next opened" in " ".join(done.results[0]["warnings"])
    finally:
        service.close()


def test_closed_cases_and_unknown_jobs_are_clear_errors(home: Path) -> None:
    service = Service(settings_for(home))
    try:
        service.app.create_case("Old")
        from casetrack.domain.cases import CaseStatus

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


def _lener(folder: Path, count: int) -> list[Path]:
    import shutil

    from tests.conftest import DATA, require

    folder.mkdir()
    small = sorted(
        require(DATA / "lener_br/raw_text").glob("*.txt"), key=lambda p: (p.stat().st_size, p.name)
    )
    for src in small[10 : 10 + count]:
        shutil.copy(src, folder / src.name)
    return sorted(folder.iterdir())


def _wait_running(service: Service, job_id: str) -> None:
    import time

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        job = service.jobs.get(job_id)
        if job.status == "running" and job.done >= 1 and job.current:
            return
        time.sleep(0.02)
    raise AssertionError("job never got going")


def test_cancelling_a_running_job_keeps_the_files_done_and_no_half_document(
    home: Path, tmp_path: Path
) -> None:
    files = _lener(tmp_path / "in", 5)
    service = Service(settings_for(home))
    service.start()
    try:
        service.app.create_case("Caso", language="pt")
        job = service.submit_ingest("Caso", files)
        _wait_running(service, job.id)
        service.jobs.cancel(job.id)
        done = service.jobs.wait(job.id, 120)
        assert done.status == "cancelled" and 1 <= done.done < len(files)
        assert {r["status"] for r in done.results} == {"ingested"}  # the interrupted file is not an "error"
        info = service.app.case_summary("Caso")
        assert info["in_progress"] == [] and info["document_count"] == done.done
    finally:
        service.close()


@pytest.mark.slow  # ~15 s: five whole judgments, ingested across a service restart
def test_stopping_the_service_mid_job_requeues_it_for_the_next_start(home: Path, tmp_path: Path) -> None:
    files = _lener(tmp_path / "in", 5)
    service = Service(settings_for(home))
    service.start()
    service.app.create_case("Caso", language="pt")
    job = service.submit_ingest("Caso", files)
    _wait_running(service, job.id)
    # The worker stops at its next progress report: a model load or a commit may come first, longer
    # than close()'s own 5 s on a slow machine.
    service.jobs.stop(timeout=120)
    service.close()
    record = json.loads((home / "jobs" / f"{job.id}.json").read_text())
    assert record["status"] == "queued" and 1 <= len(record["results"]) < len(files)

    service = Service(settings_for(home))
    try:
        assert [j.id for j in service.start()] == [job.id]
        done = service.jobs.wait(job.id, 180)
        assert done.status == "done" and [r["name"] for r in done.results] == [p.name for p in files]
        assert service.app.case_summary("Caso")["document_count"] == len(files)
    finally:
        service.close()


def test_a_follower_that_names_what_it_has_seen_is_woken_for_every_stage(home: Path, tmp_path: Path) -> None:
    files = _notes(tmp_path / "in", 2)
    service = Service(settings_for(home))
    service.start()
    try:
        service.app.create_case("Lease")
        job = service.submit_ingest("lease", files, label="in")
        keys, stages = [job.progress_key], []
        while not job.finished:  # as the MCP tools and `ingest --follow` do
            job = service.jobs.wait(job.id, 120, changed_from=keys[-1])
            assert job.finished or job.progress_key != keys[-1]  # returned on a change, not a timeout
            keys.append(job.progress_key)
            stages.append(job.stage or "")
        assert job.status == "done"
        assert any(s.startswith("embed") for s in stages) and any(s.startswith("parse") for s in stages), (
            stages
        )
    finally:
        service.close()


def test_a_job_the_stopping_daemon_breaks_resumes_and_a_real_failure_fails(tmp_path: Path) -> None:
    """The daemon gives a running job 5 s to reach its next progress report, then closes the
    stores under it: the error that follows is the stop's, not the job's, so it is resumed at
    the next start. The same error while the daemon runs fails the job."""
    started, release = threading.Event(), threading.Event()

    def runner(job: Job, on_progress: Any, on_result: Any) -> None:
        started.set()
        release.wait(30)
        raise ValueError("the case's table was closed")

    manager = JobManager(tmp_path / "jobs", runner)
    manager.start()
    job = manager.submit("c1", "Caso", [tmp_path / "a.txt"])
    assert started.wait(30)
    stopper = threading.Thread(target=manager.stop, kwargs={"timeout": 30})
    stopper.start()
    while not manager._stopping:
        time.sleep(0.01)
    release.set()
    stopper.join()
    record = json.loads((tmp_path / "jobs" / f"{job.id}.json").read_text())
    assert record["status"] == "queued"
    again = JobManager(tmp_path / "jobs", runner)
    assert [j.id for j in again.start()] == [job.id]  # resumed
    assert started.wait(30)
    release.set()
    deadline = time.monotonic() + 30
    while json.loads((tmp_path / "jobs" / f"{job.id}.json").read_text())["status"] != "failed":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    failed = json.loads((tmp_path / "jobs" / f"{job.id}.json").read_text())
    assert "Internal error" in failed["error"]
    again.stop()


def test_a_deleted_document_leaves_no_trace_in_the_job_records(tmp_path: Path) -> None:
    """Issue 30: after `documents delete` the file's name and path stayed in jobs/*.json."""
    from casetrack.daemon.jobs import FINISHED, scrub_records

    jobs = tmp_path / "jobs"
    jobs.mkdir()
    done = Job(
        "j1",
        "c1",
        "Lease",
        ["/docs/secret-memo.txt", "/docs/lease.txt"],
        status=sorted(FINISHED)[0],
        results=[
            {"path": "/docs/secret-memo.txt", "name": "secret-memo.txt", "status": "ingested"},
            {"path": "/docs/lease.txt", "name": "lease.txt", "status": "ingested"},
        ],
    )
    running = Job("j2", "c1", "Lease", ["/docs/secret-memo.txt"], status="running")
    for job in (done, running):
        (jobs / f"{job.id}.json").write_text(json.dumps(job.to_json()))
    assert scrub_records(jobs, "secret-memo.txt", "/docs/secret-memo.txt") == 1
    assert "secret-memo" not in (jobs / "j1.json").read_text()
    kept = json.loads((jobs / "j1.json").read_text())
    assert [r["name"] for r in kept["results"]] == ["lease.txt"] and kept["total"] == 1
    assert "secret-memo" in (jobs / "j2.json").read_text()  # a running job's record is its own
