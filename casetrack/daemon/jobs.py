"""Background ingest jobs: queued, run one at a time by one worker thread, persisted per file.

A job's record (`<data_dir>/jobs/<id>.json`, rewritten atomically after every file) holds the
files it was given and the result of each file done. When the daemon starts, jobs that were
queued or running (the daemon was stopped or killed) are resumed with the files not yet done;
a file that was mid-ingest is safe to redo (the case's journal rolled it back or finished it).
Passwords for encrypted PDFs are kept in memory only: a resumed job retries without them.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from casetrack import atomic_files
from casetrack.errors import CaseTrackError
from casetrack.logsafe import safe_for_log

log = logging.getLogger(__name__)

FINISHED = ("done", "failed", "cancelled")
LOCK_WAIT_SECONDS = 600.0  # an in-process CLI ingest may hold the case: wait for it


@dataclass
class Job:
    id: str
    case_id: str
    case_name: str
    paths: list[str]
    force: bool = False
    label: str = ""  # what the user asked for: a file, or a folder
    status: str = "queued"  # queued | running | done | failed | cancelled
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    current: str | None = None  # file being ingested
    stage: str | None = None  # e.g. "embed 12/40"
    results: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    hint: str | None = None
    resumed: int = 0  # how many times a daemon restart resumed it
    cancel_requested: bool = False
    # "ingest" (paths are files), or a models job (daemon/model_jobs.py): "download" (paths are
    # catalog model ids) or "import" (paths holds the folder); case_id/case_name are "" for those.
    kind: str = "ingest"
    options: dict[str, Any] = field(default_factory=dict)  # a models job's parameters
    fraction: float = 0.0  # how far the current item is (0-1), for progress between items
    # The file being ingested when the daemon stopped: the case's recovery may have finished it,
    # and then it comes back as a "duplicate" of itself, which it is not.
    interrupted: str | None = None

    @property
    def done(self) -> int:
        return len(self.results)

    @property
    def total(self) -> int:
        return len(self.paths)

    @property
    def progress_key(self) -> str:
        """Changes whenever a watcher has something new to report."""
        return f"{self.status}|{self.done}|{self.current}|{self.stage}|{self.fraction:.3f}"

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def remaining(self) -> list[str]:
        done = {r["path"] for r in self.results}
        return [p for p in self.paths if p not in done]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["done"] = self.done
        data["total"] = self.total
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


Listener = Callable[[Job], None]
# on_progress(current item, stage[, fraction of the current item done])
ProgressReport = Callable[..., None]
Runner = Callable[[Job, ProgressReport, Callable[[dict[str, Any]], None]], None]


class JobCancelled(BaseException):
    """Raised from a progress report to stop a job. A BaseException, like KeyboardInterrupt, so
    the per-file error handling of ingest cannot turn it into a failed file."""


class JobManager:
    """Owns the job records and the worker. `runner(job, on_progress, on_result)` does the work:
    it calls `on_progress(file_name, stage)` as it goes and `on_result(file_result_json)` after
    each file; raising CaseTrackError fails the job with that message."""

    def __init__(self, jobs_dir: Path, runner: Runner) -> None:
        self.dir = jobs_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self._runner = runner
        self._jobs: dict[str, Job] = {}
        self._passwords: dict[str, str] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._load()

    # -- persistence ----------------------------------------------------------------------------

    def _path(self, job_id: str) -> Path:
        return self.dir / f"{job_id}.json"

    def _save(self, job: Job) -> None:
        atomic_files.write_json(self._path(job.id), job.to_json())

    def _load(self) -> None:
        for path in sorted(self.dir.glob("*.json")):
            try:
                job = Job.from_json(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError) as e:
                log.warning(
                    "ignoring unreadable job record %s: %s", safe_for_log(path.name), safe_for_log(str(e))
                )
                continue
            self._jobs[job.id] = job

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> list[Job]:
        """Start the worker; resume unfinished jobs (oldest first). Returns the resumed jobs."""
        resumed = sorted((j for j in self._jobs.values() if not j.finished), key=lambda j: j.created_at)
        for job in resumed:
            job.status = "queued"
            job.resumed += 1
            job.current = job.stage = None
            job.interrupted = next(iter(job.remaining()), None)
            self._save(job)
            self._queue.put(job.id)
            log.info("resuming job %s (%d of %d files left)", job.id, len(job.remaining()), job.total)
        self._thread = threading.Thread(target=self._work, name="casetrack-jobs", daemon=True)
        self._thread.start()
        return resumed

    def stop(self, timeout: float = 5.0) -> None:
        """Stop taking jobs; the running one is interrupted at its next file and resumed later."""
        with self._lock:
            self._stopping = True
            for job in self._jobs.values():
                if job.status == "running":
                    job.cancel_requested = True  # checked at the next progress report; resumes
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    # -- API --------------------------------------------------------------------------------------

    def submit(
        self,
        case_id: str,
        case_name: str,
        paths: list[Path],
        force: bool = False,
        label: str = "",
        password: str | None = None,
    ) -> Job:
        job = Job(uuid.uuid4().hex[:10], case_id, case_name, [str(p) for p in paths], force, label)
        return self._enqueue(job, password)

    def submit_models(self, kind: str, items: list[str], label: str, options: dict[str, Any]) -> Job:
        """Queue a models job ("download": catalog ids; "import": one folder); see model_jobs.py."""
        return self._enqueue(
            Job(uuid.uuid4().hex[:10], "", "", items, label=label, kind=kind, options=options)
        )

    def _enqueue(self, job: Job, password: str | None = None) -> Job:
        with self._lock:
            self._jobs[job.id] = job
            self._save(job)
            if password:
                self._passwords[job.id] = password
        self._queue.put(job.id)
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id.strip())
            if job is not None:
                return Job.from_json(job.to_json())
        recent = ", ".join(j.id for j in self.recent()[:5]) or "none"
        raise CaseTrackError(
            f"No job with id '{job_id}'.", f"Recent jobs: {recent} (list them with get_job and no id)."
        )

    def recent(self, case_id: str | None = None) -> list[Job]:
        """Snapshots, newest first (the worker keeps changing the live records)."""
        with self._lock:
            jobs = [
                Job.from_json(j.to_json())
                for j in self._jobs.values()
                if case_id is None or j.case_id == case_id
            ]
        return sorted(jobs, key=lambda j: j.created_at, reverse=True)

    def active(self) -> list[Job]:
        with self._lock:
            return [Job.from_json(j.to_json()) for j in self._jobs.values() if not j.finished]

    def cancel(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise CaseTrackError(f"No job with id '{job_id}'.", "get_job lists recent jobs.")
            if not job.finished:
                job.cancel_requested = True
                if job.status == "queued":
                    self._finish(job, "cancelled")
            return Job.from_json(job.to_json())

    def wait(
        self, job_id: str, timeout: float, on_change: Listener | None = None, changed_from: str | None = None
    ) -> Job:
        """Block until the job finishes or `timeout` passes, calling `on_change` on progress.

        With `changed_from` (a `progress_key` the caller has reported), return as soon as the
        job's progress differs from it, so a follower sees every stage, however short."""
        deadline = time.monotonic() + timeout
        seen = ""
        with self._lock:
            while True:
                job = self._jobs[job_id]
                snapshot = Job.from_json(job.to_json())
                key = snapshot.progress_key
                if changed_from is not None and key != changed_from:
                    return snapshot
                if on_change is not None and key != seen:
                    seen = key
                    self._lock.release()
                    try:
                        on_change(snapshot)
                    finally:
                        self._lock.acquire()
                    continue
                left = deadline - time.monotonic()
                if snapshot.finished or left <= 0:
                    return snapshot
                self._changed.wait(min(left, 1.0))

    # -- worker -----------------------------------------------------------------------------------

    def forget_document(self, name: str, source_path: str | None) -> None:
        """A deleted document out of the finished jobs' records, in memory and on disk."""
        with self._lock:
            for job in self._jobs.values():
                if job.finished:
                    job.results = [
                        r for r in job.results if r.get("path") != source_path and r.get("name") != name
                    ]
                    job.paths = [p for p in job.paths if p != source_path]
            scrub_records(self.dir, name, source_path)

    def _finish(self, job: Job, status: str, error: str | None = None, hint: str | None = None) -> None:
        job.status = status
        job.error, job.hint = error, hint
        job.current = job.stage = None
        job.finished_at = time.time()
        self._passwords.pop(job.id, None)
        self._save(job)
        self._changed.notify_all()

    def _work(self) -> None:
        while True:
            job_id = self._queue.get()
            if job_id is None or self._stopping:
                return
            with self._lock:
                job = self._jobs.get(job_id)
                if job is None or job.finished:
                    continue
                job.status = "running"
                job.started_at = job.started_at or time.time()
                self._save(job)
                self._changed.notify_all()
            try:
                self._runner(job, self._progress(job), self._result(job))
            except JobCancelled:
                with self._lock:
                    if self._stopping:
                        self._requeue(job)
                    else:
                        self._finish(job, "cancelled")
                continue
            except Exception as e:  # the daemon outlives any job
                with self._lock:
                    if self._stopping:
                        # Stopped under it (the stores closed before its next progress report):
                        # not the job's failure; its done files are kept and it resumes.
                        log.info(
                            "job %s stopped with the daemon (%s): resumed at the next start",
                            job.id,
                            safe_for_log(str(e)),
                        )
                        self._requeue(job)
                    elif isinstance(e, CaseTrackError):
                        self._finish(job, "failed", e.message, e.hint)
                    else:
                        log.exception("job %s failed", job.id)
                        self._finish(
                            job,
                            "failed",
                            f"Internal error: {e}",
                            "See the daemon log: casetrack daemon status",
                        )
                continue
            with self._lock:
                self._finish(job, "done")

    def _requeue(self, job: Job) -> None:
        """The daemon is stopping: the job goes back to the queue, resumed at its next start."""
        job.status = "queued"
        job.cancel_requested = False
        job.current = job.stage = None
        self._save(job)

    def password(self, job_id: str) -> str | None:
        return self._passwords.get(job_id)

    def _progress(self, job: Job) -> ProgressReport:
        def report(current: str, stage: str | None, fraction: float = 0.0) -> None:
            with self._lock:
                if job.cancel_requested:
                    raise JobCancelled(job.id)
                job.current, job.stage, job.fraction = current, stage, fraction
                self._changed.notify_all()

        return report

    def _result(self, job: Job) -> Callable[[dict[str, Any]], None]:
        def record(result: dict[str, Any]) -> None:
            with self._lock:
                result = _recovered(job, result)
                job.results.append(result)
                job.fraction = 0.0  # the item is counted in `done` now
                self._save(job)
                self._changed.notify_all()

        return record


def _recovered(job: Job, result: dict[str, Any]) -> dict[str, Any]:
    """The result of the file a stopped daemon was ingesting: when the case's recovery finished
    its ingest, the resumed job finds it in the case under its own name: ingested, not a duplicate."""
    if job.interrupted is None or result.get("path") != job.interrupted:
        return result
    job.interrupted = None
    if result.get("status") != "duplicate" or result.get("duplicate_of") != result.get("name"):
        return result
    note = "its ingest was finished when the case was next opened, after the daemon stopped"
    return {
        **result,
        "status": "ingested",
        "duplicate_of": None,
        "warnings": [*result.get("warnings", []), note],
    }


def scrub_records(jobs_dir: Path, name: str, source_path: str | None) -> int:
    """A deleted document out of every finished job's record on disk (its file's path and name in
    `paths` and `results`): a delete leaves nothing of the document behind. Returns the records
    rewritten. Running jobs are left alone (their record is rewritten after each file)."""
    rewritten = 0
    for path in sorted(jobs_dir.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("status") not in FINISHED:
            continue

        def mentions(value: Any) -> bool:
            if isinstance(value, dict):
                return bool(value.get("path") == source_path or value.get("name") == name)
            return bool(value == source_path)

        results = [r for r in data.get("results", []) if not mentions(r)]
        paths = [p for p in data.get("paths", []) if not mentions(p)]
        if len(results) == len(data.get("results", [])) and len(paths) == len(data.get("paths", [])):
            continue
        data.update(results=results, paths=paths, done=len(results), total=len(paths))
        atomic_files.write_json(path, data)
        rewritten += 1
    return rewritten
