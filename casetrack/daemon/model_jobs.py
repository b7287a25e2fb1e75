"""The daemon's models jobs (MCP `download_models` / `import_models`), run on the job worker.

A download runs `casetrack models download --progress-json` in a child process: the one process
that may reach the network, with HF_HUB_OFFLINE lifted for it alone (as the CLI's own `models
download` runs). The daemon stays offline and never imports huggingface-hub. The child reports
progress and each model's outcome as JSON lines; cancelling the job or stopping the daemon ends
the child, and the next run (a resumed job, or the tool called again) continues from the bytes
it kept (embed/hub.py). An import copies from a folder in-process (no network). After either,
the models rule is applied again and the encoder pool rescans, so search uses the new models
without a restart.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from casetrack.app import CaseTrack
from casetrack.config import Settings
from casetrack.daemon.jobs import Job, ProgressReport
from casetrack.errors import CaseTrackError
from casetrack.logsafe import safe_for_log

log = logging.getLogger(__name__)

DOWNLOAD, IMPORT = "download", "import"
KINDS = (DOWNLOAD, IMPORT)
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")  # what privacy.keep_local sets, and its alias
# Given to the child as flags from the daemon's own settings; the environment must not contradict them.
FOLDER_VARIABLES = ("CASETRACK_HOME", "CASETRACK_MODELS_DIR", "CASETRACK_MODEL_CATALOG")
POLL_SECONDS = 0.5  # how often a silent child is checked for a cancel
STOP_SECONDS = 10.0


def run_models_job(app: CaseTrack, job: Job, on_progress: ProgressReport, on_result: Any) -> Settings:
    """Run a models job; returns the settings after it (the models rule applied again)."""
    try:
        if job.kind == DOWNLOAD:
            _download(app.settings, job, on_progress, on_result)
        elif job.kind == IMPORT:
            _import(app.settings, job, on_progress, on_result)
        else:
            raise CaseTrackError(
                f"Unknown job kind {job.kind!r}.", "Start it again with download_models or import_models."
            )
    finally:
        refresh_models(app)
    return app.settings


def refresh_models(app: CaseTrack) -> None:
    """Apply the models rule again and make the pool rescan: models just installed are used by
    the next search. A folder earlier in the rule may hold models now (the carry-over)."""
    settings = app.settings.models_rescanned()
    if settings.models_dir != app.settings.models_dir:
        log.info("models folder is now %s", safe_for_log(str(settings.models_dir)))
    app.settings = settings
    pool = app.loaded_pool
    if pool is not None:
        pool.rescan(settings.models_dir)


def download_command(settings: Settings, job: Job) -> list[str]:
    """The child's command line: the same data and models folders as the daemon."""
    cmd = [sys.executable, "-m", "casetrack", "--data-dir", str(settings.data_dir)]
    if settings.models_choice is not None:
        cmd += ["--models-dir", str(settings.models_choice)]
    cmd += ["models", "download", "--progress-json"]
    if settings.model_catalog is not None:
        cmd += ["--catalog", str(settings.model_catalog)]
    if job.options.get("allow_unpinned"):
        cmd.append("--allow-unpinned")
    for model in job.remaining():
        cmd += ["--model", model]
    return cmd


def child_environment(environ: dict[str, str]) -> dict[str, str]:
    """The daemon's environment without the offline switch, for the download child only (and
    without the folder variables: the command line carries the daemon's own choices)."""
    return {k: v for k, v in environ.items() if k not in OFFLINE_VARIABLES + FOLDER_VARIABLES}


def _download(settings: Settings, job: Job, on_progress: ProgressReport, on_result: Any) -> None:
    settings.logs_dir.mkdir(parents=True, exist_ok=True)
    with open(settings.logs_dir / "models-download.log", "ab") as err:
        proc = subprocess.Popen(
            download_command(settings, job),
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=child_environment(dict(os.environ)),
        )
    follower = _Follower(job, on_progress, on_result)
    lines: queue.Queue[bytes | None] = queue.Queue()
    assert proc.stdout is not None
    threading.Thread(
        target=_pump, args=(proc.stdout, lines), name="casetrack-download-out", daemon=True
    ).start()
    try:
        while (line := _next_line(lines, follower)) is not None:
            follower.read(line)
    except BaseException:  # cancelled, or the daemon is stopping: the child's partial files stay
        _stop(proc)
        raise
    code = proc.wait()
    follower.finish(code, settings.logs_dir / "models-download.log")


def _pump(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    try:
        for line in stream:
            lines.put(line)
    finally:
        lines.put(None)


def _next_line(lines: queue.Queue[bytes | None], follower: _Follower) -> bytes | None:
    while True:
        try:
            return lines.get(timeout=POLL_SECONDS)
        except queue.Empty:
            follower.heartbeat()  # a cancel is noticed here even while the child is silent


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class _Follower:
    """Turns the child's JSON lines into the job's progress and per-model results."""

    def __init__(self, job: Job, on_progress: ProgressReport, on_result: Any) -> None:
        self.job, self.on_progress, self.on_result = job, on_progress, on_result
        self.current, self.stage, self.fraction = (
            job.remaining()[0] if job.remaining() else "",
            "starting",
            0.0,
        )
        self.carried: list[str] = []
        self.failures: list[dict[str, Any]] = []
        self.recorded = 0
        self.summary: dict[str, Any] = {}

    def heartbeat(self) -> None:
        self.on_progress(self.current, self.stage, self.fraction)

    def read(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            log.info("download child: %s", safe_for_log(line.decode("utf-8", "replace").strip()))
            return
        if not isinstance(event, dict):
            return
        kind = event.get("event")
        if kind == "progress":
            done, total = int(event.get("done") or 0), event.get("total")
            size = f" of {total / 1e6:.1f} MB" if total else ""
            self.current, self.stage = str(event.get("model")), f"{event.get('file')}: {done / 1e6:.1f}{size}"
            self.fraction = float(event.get("fraction") or 0.0)
            self.heartbeat()
        elif kind == "carried":
            self.carried = [str(m) for m in event.get("models") or []]
        elif kind == "model":
            self._model(event)
        elif kind is None:
            self.summary = event  # the closing report (`--json` shape)

    def _model(self, event: dict[str, Any]) -> None:
        model = str(event.get("model"))
        if event.get("error"):
            record = {
                "path": model,
                "name": model,
                "status": "failed",
                "error": event["error"],
                "hint": event.get("tool_hint") or event.get("hint"),
                "cli_hint": event.get("hint"),
            }
            self.failures.append(record)
        else:
            result = dict(event.get("result") or {})
            status = (
                "already installed"
                if result.get("already_installed")
                else ("replaced" if result.get("replaced") else "installed")
            )
            record = {**result, "path": model, "status": status}
        if self.carried:  # said once, on the first model of this run
            record["carried"], self.carried = self.carried, []
        self.on_result(record)
        self.recorded += 1
        self.current, self.stage, self.fraction = model, record["status"], 0.0  # counted in `done` now

    def finish(self, code: int, log_path: Path) -> None:
        """Fail the job when nothing was installed; a partial success is a finished job whose
        results name each failure."""
        warnings = [str(w) for w in self.summary.get("warnings") or []]
        for warning in warnings:
            log.warning("models download: %s", safe_for_log(warning))
        if self.recorded < len(self.job.remaining()) and code != 0 and not self.failures:
            raise CaseTrackError(
                f"The model download stopped unexpectedly (exit code {code}).",
                f"Its log is {log_path}. Call download_models again: it continues where it stopped.",
            )
        if self.failures and self.recorded == len(self.failures):
            first = self.failures[0]
            raise CaseTrackError(str(first["error"]), first.get("hint"))


def _import(settings: Settings, job: Job, on_progress: ProgressReport, on_result: Any) -> None:
    """One result for the folder, listing every model installed from it (all or nothing)."""
    from casetrack.embed.importing import carry_over, import_models, shadowed_warning

    folder = Path(job.paths[0])
    on_progress(folder.name, "copying and checking", 0.0)
    carried = carry_over(settings.models_location)
    results = import_models(folder, settings.models_target, job.options.get("model_id"))
    warnings = [w for r in results for w in r.warnings]
    if (shadowed := shadowed_warning(settings.models_location)) is not None:
        warnings.append(shadowed)
    on_result(
        {
            "path": str(folder),
            "name": folder.name,
            "status": "installed",
            "warnings": warnings,
            "models": [r.to_json() for r in results],
            "carried": [r.name for r in carried],
        }
    )
