"""What the daemon owns: one application core (registry, stores, encoder pool) and the job queue.

MCP sessions and CLI requests call into one `Service`; searches run concurrently on worker
threads, ingests run one at a time on the job worker, so each case has exactly one writer.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from casetrack import __version__
from casetrack.app import CaseTrack
from casetrack.config import Settings
from casetrack.daemon.jobs import LOCK_WAIT_SECONDS, Job, JobManager
from casetrack.daemon.watcher import FolderWatcher
from casetrack.embed.pool import EncoderPool
from casetrack.logsafe import safe_for_log
from casetrack.store.registry import CaseRecord

log = logging.getLogger(__name__)


def rss_mb() -> float:
    import psutil

    return float(psutil.Process(os.getpid()).memory_info().rss) / 2**20


def give_memory_back() -> None:
    """After models are unloaded: collect the cycles that still hold their sessions, then ask
    glibc to return freed heap pages to the system (it keeps them otherwise: ~150 MB after a
    search). malloc_trim exists on glibc only; elsewhere (macOS, Windows, musl) the allocator
    returns large blocks on its own."""
    gc.collect()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc
            pass


class Service:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = CaseTrack(settings, isolate_parsing=True)
        self.jobs = JobManager(settings.data_dir / "jobs", self._run_job)
        self.started_at = time.time()
        self.connections = 0
        self.sessions_total = 0
        self.connections_shed: dict[
            str, int
        ] = {}  # refused / dropped (daemon/admission.py), set by the server
        self.model_idle_s = settings.model_idle_minutes * 60
        self.models_unloaded: list[tuple[float, list[str]]] = []  # (time, names) of each idle unload
        self._idle_stop = threading.Event()
        self._idle_thread: threading.Thread | None = None
        self.watcher = FolderWatcher(
            self.app, self.jobs, lambda case, paths, label: self.submit_ingest(case, paths, label=label)
        )

    def start(self) -> list[Job]:
        self.startup_check()
        resumed = self.jobs.start()
        self.watcher.start()  # after the jobs: files of a resumed job are left to it
        if self.model_idle_s > 0:
            self._idle_thread = threading.Thread(
                target=self._watch_models, name="casetrack-model-idle", daemon=True
            )
            self._idle_thread.start()
        return resumed

    # -- idle models ------------------------------------------------------------------------------

    def _watch_models(self) -> None:
        # Checked a few times per idle period, at most once a minute: a model goes at most a
        # quarter of the period late, and an idle daemon wakes up rarely.
        period = min(60.0, max(0.5, self.model_idle_s / 4))
        while not self._idle_stop.wait(period):
            try:
                self.unload_idle_models()
            except Exception:  # the timer must outlive one failure
                log.exception("unloading idle models failed")

    def unload_idle_models(self, now: float | None = None) -> list[str]:
        """Unload the models no search or ingest has used for `model_idle_s` and give their memory
        back. Not while a job runs: an ingest holds its encoders between uses."""
        pool = self.app.loaded_pool
        if not isinstance(pool, EncoderPool) or self.jobs.active():
            return []
        names = pool.unload_idle(self.model_idle_s, now)
        if names:
            before = rss_mb()
            give_memory_back()
            self.models_unloaded.append((time.time(), names))
            log.info(
                "unloaded idle models %s after %.0f s unused: RSS %.0f -> %.0f MB",
                ", ".join(names),
                self.model_idle_s,
                before,
                rss_mb(),
            )
        return names

    def startup_check(self) -> list[str]:
        """Cheap checks of every case before serving (counts, not reads: ~ms per case): the
        registry was readable (or rebuilt from the case folders), each case's stores open and
        their document and chunk counts agree with the journal. What is safe is repaired now (the
        case's recovery, as on any open); what is not is logged with the command that repairs it."""
        from casetrack.store.store_errors import store_error

        started = time.perf_counter()
        lines = list(self.app.registry.rebuilt)
        records = self.app.registry.list()
        for record in records:
            try:
                store = self.app.open_case(record.id, recover=False)
                try:
                    if store.needs_recovery() and store.lock.try_acquire():
                        lines += [f"case {record.name}: {line}" for line in store.recover()]
                finally:
                    store.close()
            except Exception as exc:  # one damaged case must not keep the others from being served
                translated = store_error(record.name, exc)
                if translated is None:
                    log.exception("start-up check of case %s failed", safe_for_log(record.name))
                    continue
                lines.append(f"{translated.message} {translated.hint}")
        ms = (time.perf_counter() - started) * 1000
        for line in lines:
            log.warning("start-up check: %s", safe_for_log(line))
        log.info(
            "start-up check: %d case(s) in %.0f ms (%.1f ms per case)",
            len(records),
            ms,
            ms / max(len(records), 1),
        )
        return lines

    def watching(self) -> int:
        """How many folders the daemon watches (`case set --watch`): a daemon that watches any
        does not exit when idle (server.py), since files landing there are its work."""
        return self.watcher.count

    def close(self) -> None:
        self._idle_stop.set()
        self.watcher.stop()
        self.jobs.stop()
        self.app.close()

    # -- jobs -------------------------------------------------------------------------------------

    def submit_ingest(
        self, case: str, paths: list[Path], force: bool = False, label: str = "", password: str | None = None
    ) -> Job:
        record = self.writable_case(case)
        return self.jobs.submit(record.id, record.name, paths, force, label, password)

    def writable_case(self, case: str) -> CaseRecord:
        record = self.app.registry.get(case)
        record.require_writable()
        return record

    def submit_models(self, kind: str, items: list[str], label: str, options: dict[str, Any]) -> Job:
        """A models job (download_models / import_models): daemon/model_jobs.py runs it."""
        return self.jobs.submit_models(kind, items, label, options)

    def _run_job(self, job: Job, on_progress: Any, on_result: Any) -> None:
        if job.kind != "ingest":
            from casetrack.daemon.model_jobs import run_models_job

            self.settings = run_models_job(self.app, job, on_progress, on_result)
            return
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
            "model_idle_minutes": self.settings.model_idle_minutes,
            "connections": self.connections,
            "sessions_total": self.sessions_total,
            "connections_shed": dict(self.connections_shed),
            "model_loads": pool.load_count if pool is not None else 0,
            "loaded_models": pool.loaded_models() if pool is not None else [],
            "jobs_active": [j.to_json() for j in self.jobs.active()],
            "watched_folders": self.watching(),
        }
