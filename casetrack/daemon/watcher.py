"""The daemon's folder watch (`casetrack case set NAME --watch FOLDER`): a consume folder per case.

A background thread looks at every watched folder of every active case every
`WATCH_INTERVAL_S` seconds (app/watching.py `FolderWatch`, the same looks as `casetrack
watch`); the new and changed files that have settled go to the job manager as one ingest job
(label "watch FOLDER"): progress, `jobs list`, get_job and resume after a crash apply, and the
job worker stays the case's one writer. A renamed or moved file (the bytes of a document the
case holds) is followed by the thread itself, as `casetrack watch` does: the document takes the
new name and path, nothing is ingested again (a small crash-safe write under the case's writer
lock; when a job holds the lock, the rename waits for the next look). It never removes documents.

One job per folder at a time: the folder is not looked at again until its job has finished
(its failed files are then not tried again until they change). Files already in an unfinished
ingest job of the case (a job resumed at start-up, an `ingest` a user started) are left to it.
A folder that cannot be read (gone, unplugged) is logged once and tried again at every look;
closed and archived cases are not watched.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from casetrack.app import CaseTrack
from casetrack.app.watching import WATCH_INTERVAL_S, FolderWatch, results_from_json
from casetrack.daemon.jobs import Job, JobManager
from casetrack.domain.cases import CaseStatus
from casetrack.errors import CaseBusyError, CaseTrackError
from casetrack.ingest.folder_sync import DEFAULT_SETTLE_S, SyncPlan
from casetrack.logsafe import safe_for_log
from casetrack.store.case_store import watched_in

log = logging.getLogger(__name__)

Submit = Callable[[str, list[Path], str], Job]  # (case id, files, label) -> the queued job


@dataclass
class _Watched:
    case_name: str
    watch: FolderWatch
    job_id: str | None = None  # the folder's unfinished ingest job
    plan: SyncPlan | None = None  # the plan that job came from


class FolderWatcher:
    def __init__(
        self,
        app: CaseTrack,
        jobs: JobManager,
        submit: Submit,
        interval: float = WATCH_INTERVAL_S,
        settle_s: float = DEFAULT_SETTLE_S,
    ) -> None:
        self.app = app
        self.jobs = jobs
        self.submit = submit
        self.interval = interval
        self.settle_s = settle_s
        self._watched: dict[tuple[str, str], _Watched] = {}
        self.count = 0  # folders watched at the last look (the daemon does not idle-exit while > 0)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        try:  # the count is known before the daemon's idle timer first asks; the looks are the thread's
            self._collect()
        except Exception:
            log.exception("reading the watched folders failed; trying again in %g s", self.interval)
        self._thread = threading.Thread(target=self._run, name="casetrack-folder-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.poll_safely()

    def poll_safely(self) -> None:
        try:
            self.poll()
        except Exception:  # the watch must outlive one failure (a registry being rebuilt, a bug)
            log.exception("folder watch failed; trying again in %g s", self.interval)

    def poll(self) -> None:
        """One look at every watched folder of every active case."""
        for (case_id, _), watched in self._collect().items():
            if self._stop.is_set():
                return
            self._look(case_id, watched)

    def _collect(self) -> dict[tuple[str, str], _Watched]:
        """The watched folders of the active cases now (their case.json; no store opened)."""
        current: dict[tuple[str, str], _Watched] = {}
        for record in self.app.registry.list():
            if record.status != CaseStatus.ACTIVE:
                continue
            for folder in watched_in(self.app.settings.case_dir(record.id)):
                key = (record.id, folder["path"])
                known = self._watched.get(key)
                if known is None or known.watch.recursive != folder["recursive"]:
                    known = _Watched(
                        record.name, FolderWatch(Path(folder["path"]), folder["recursive"], self.settle_s)
                    )
                    log.info(
                        "watching %s for case %s", safe_for_log(folder["path"]), safe_for_log(record.name)
                    )
                current[key] = known
        for key in self._watched.keys() - current.keys():
            log.info("no longer watching %s", safe_for_log(key[1]))
        self._watched = current
        self.count = len(current)
        return current

    def _look(self, case_id: str, w: _Watched) -> None:
        if w.job_id is not None and not self._job_finished(w):
            return
        folder = safe_for_log(str(w.watch.folder))
        try:
            plan = w.watch.look(self.app, case_id)
            if plan is not None:
                self._submit(case_id, w, plan)
        except CaseTrackError as e:
            if w.watch.failed(e.message):
                log.warning(
                    "watch of %s (case %s): %s %s (trying again every %g s)",
                    folder,
                    safe_for_log(w.case_name),
                    safe_for_log(e.message),
                    safe_for_log(e.hint or ""),
                    self.interval,
                )
            return
        if w.watch.recovered():
            log.info("watch of %s (case %s) works again", folder, safe_for_log(w.case_name))

    def _job_finished(self, w: _Watched) -> bool:
        """Whether the folder's job has finished (its failed files are then remembered)."""
        assert w.job_id is not None
        try:
            job = self.jobs.get(w.job_id)
        except CaseTrackError:  # its record is gone: look again
            job = None
        if job is not None and not job.finished:
            return False
        if job is not None and w.plan is not None:
            w.watch.done(w.plan, results_from_json(job.results))
            failed = [r for r in job.results if r.get("status") in ("error", "needs_ocr")]
            log.info(
                "watch job %s for case %s %s: %d file(s), %d failed or need OCR",
                job.id,
                safe_for_log(w.case_name),
                job.status,
                job.done,
                len(failed),
            )
        w.job_id, w.plan = None, None
        return True

    def _follow_renames(self, case_id: str, w: _Watched, plan: SyncPlan) -> None:
        """The documents whose file was renamed or moved take its new name and path (nothing is
        ingested again); when the case is being written, the next look tries again."""
        from casetrack.app.syncing import apply_moves

        try:
            done = apply_moves(self.app, case_id, plan, remove=False, wait=0.0)
        except CaseBusyError:
            w.watch.signature = None  # the folder is planned again at the next look
            log.info(
                "watch: %d renamed file(s) in %s wait for case %s to be free",
                len(plan.rename),
                safe_for_log(str(w.watch.folder)),
                safe_for_log(w.case_name),
            )
            return
        for old, new in done.renamed:
            log.info(
                "watch: %s renamed to %s in case %s (nothing ingested again)",
                safe_for_log(old),
                safe_for_log(new),
                safe_for_log(w.case_name),
            )

    def _submit(self, case_id: str, w: _Watched, plan: SyncPlan) -> None:
        for f in w.watch.new_waiting:
            log.info(
                "watch: %s is still being copied; read once unchanged for %g s",
                safe_for_log(f.path),
                self.settle_s,
            )
        if plan.rename:
            self._follow_renames(case_id, w, plan)
        busy = {
            p
            for job in self.jobs.active()
            if job.kind == "ingest" and job.case_id == case_id
            for p in job.paths
        }
        paths = [p for p in plan.to_ingest() if str(p) not in busy]
        if not paths:
            return
        job = self.submit(case_id, paths, f"watch {w.watch.folder}")
        w.job_id, w.plan = job.id, plan
        log.info(
            "watch: %d new or changed file(s) in %s: job %s for case %s",
            len(paths),
            safe_for_log(str(w.watch.folder)),
            job.id,
            safe_for_log(w.case_name),
        )
