"""What the daemon owns: one application core (registry, stores, encoder pool) and the job queue.

MCP sessions and CLI requests call into one `Service`; searches run concurrently on worker
threads, ingests run one at a time on the job worker, so each case has exactly one writer.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from casetrack import __version__
from casetrack.app import CaseTrack
from casetrack.config import Settings
from casetrack.daemon.jobs import LOCK_WAIT_SECONDS, Job, JobManager
from casetrack.store.registry import CaseRecord

log = logging.getLogger(__name__)


class Service:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = CaseTrack(settings, isolate_parsing=True)
        self.jobs = JobManager(settings.data_dir / "jobs", self._run_job)
        self.started_at = time.time()
        self.connections = 0
        self.sessions_total = 0

    def start(self) -> list[Job]:
        return self.jobs.start()

    def close(self) -> None:
        self.jobs.stop()
        self.app.close()

    # -- jobs -------------------------------------------------------------------------------------

    def submit_ingest(self, case: str, paths: list[Path], force: bool = False, label: str = "",
                      password: str | None = None) -> Job:
        record = self.writable_case(case)
        return self.jobs.submit(record.id, record.name, paths, force, label, password)

    def writable_case(self, case: str) -> CaseRecord:
        record = self.app.registry.get(case)
        record.require_writable()
        return record

    def _run_job(self, job: Job, on_progress: Any, on_result: Any) -> None:
        current = {"name": ""}

        def on_file(index: int, total: int, path: Path) -> None:
            current["name"] = path.name
            on_progress(path.name, f"file {job.done + 1} of {job.total}")

        def on_stage(stage: str, done: int, total: int) -> None:
            label = "updating search indexes" if stage == "index" else f"{stage} {done}/{total}"
            on_progress(current["name"], label)

        paths = [Path(p) for p in job.remaining()]
        self.app.ingest(
            job.case_id,
            paths,
            force=job.force,
            password=self.jobs.password(job.id),
            on_file=on_file,
            progress=on_stage,
            on_result=lambda r: on_result(r.to_json()),
            wait=LOCK_WAIT_SECONDS,
        )

    # -- status -----------------------------------------------------------------------------------

    def daemon_status(self) -> dict[str, Any]:
        import psutil

        proc = psutil.Process(os.getpid())
        pool = self.app.loaded_pool
        return {
            "pid": os.getpid(),
            "version": __version__,
            "data_dir": str(self.settings.data_dir),
            "uptime_s": round(time.time() - self.started_at, 1),
            "rss_mb": round(proc.memory_info().rss / 2**20, 1),
            "connections": self.connections,
            "sessions_total": self.sessions_total,
            "model_loads": pool.load_count if pool is not None else 0,
            "loaded_models": pool.loaded_models() if pool is not None else [],
            "jobs_active": [j.to_json() for j in self.jobs.active()],
        }
