"""Finding, starting and stopping the daemon, and calling it from the CLI.

`ensure_daemon` is what `casetrack serve` does first: ping the data directory's daemon; if it
is a different version, stop it; if none answers, start one detached and wait until it listens.
Two clients starting a daemon at once is safe: the second daemon finds the lock held and exits,
and both clients reach the first.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casetrack import __version__
from casetrack.config import ENV_MODEL_IDLE, Settings, model_idle_minutes
from casetrack.daemon.endpoint import (
    DaemonUnavailable,
    RuntimePaths,
    connect,
    read_line,
)
from casetrack.errors import CaseTrackError

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 2.0
READ_TIMEOUT_S = 600.0  # a first search of a large case loads models and opens indexes: seconds, not minutes


def _control(settings: Settings, op: str, timeout: float = 5.0) -> dict[str, Any] | None:
    """Send a control op (any daemon version answers it). None when no daemon answers."""
    try:
        sock, _ = connect(settings, "control", timeout)
    except DaemonUnavailable:
        return None
    try:
        with sock:
            sock.sendall((json.dumps({"op": op}) + "\n").encode())
            answer = json.loads(read_line(sock) or b"{}")
            return dict(answer.get("result") or {})
    except (OSError, ValueError):
        return None


def ping(settings: Settings) -> dict[str, Any] | None:
    """{"pid", "version", "data_dir", ...} of the data directory's running daemon, or None. A daemon
    of another folder (a copied data folder keeps the original's runtime file) is not this one's:
    starting, stopping and serving must not reach it."""
    answer = _control(settings, "ping")
    if answer is not None and answer.get("data_dir", str(settings.data_dir)) != str(settings.data_dir):
        return None
    return answer


def _pid_alive(pid: int) -> bool:
    import psutil

    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def stop_daemon(settings: Settings, timeout: float = 30.0) -> int | None:
    """Ask the daemon to stop and wait for it to exit. Returns its pid, or None if none ran."""
    answer = _control(settings, "shutdown") if ping(settings) is not None else None
    if answer is None:
        return None
    pid = int(answer.get("pid") or 0)
    deadline = time.monotonic() + timeout
    while pid and _pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid and _pid_alive(pid):
        raise CaseTrackError(
            f"The CaseTrack daemon (pid {pid}) did not stop within {timeout:.0f} s.",
            f"It may be finishing a write; wait, or end it: kill {pid} (data stays consistent).",
        )
    return pid


def daemon_command(settings: Settings, idle_exit_s: float | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "casetrack", "--data-dir", str(settings.data_dir)]
    if settings.models_choice is not None:  # else the daemon applies the models rule itself
        cmd += ["--models-dir", str(settings.models_choice)]
    if settings.memory_mode:
        cmd += ["--memory-mode", settings.memory_mode]
    cmd += ["daemon", "run", "--detached"]
    if idle_exit_s is not None:
        cmd += ["--idle-exit", str(idle_exit_s)]
    return cmd


def spawn_daemon(settings: Settings, idle_exit_s: float | None = None) -> subprocess.Popen[bytes]:
    """Start a detached daemon (its own session: closing Claude or the terminal does not kill it)."""
    paths = RuntimePaths.of(settings)
    paths.log.parent.mkdir(parents=True, exist_ok=True)
    err = open(paths.log.parent / "daemon.stderr.log", "ab")
    kwargs: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": err}
    if os.name == "posix":
        kwargs["start_new_session"] = True
    else:  # pragma: no cover - Windows
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS  # type: ignore[attr-defined]
    try:
        return subprocess.Popen(daemon_command(settings, idle_exit_s), **kwargs)
    finally:
        err.close()


def idle_minutes_from_env(default: float) -> float:
    """CASETRACK_MODEL_IDLE_MINUTES for the daemon, or an error naming the variable and the fix."""
    try:
        return model_idle_minutes(os.environ.get(ENV_MODEL_IDLE), default)
    except ValueError as e:
        raise CaseTrackError(
            str(e), f"Set it to a number of minutes, e.g. {ENV_MODEL_IDLE}=10, or unset it."
        ) from e


def ensure_daemon(
    settings: Settings, timeout: float = START_TIMEOUT_S, idle_exit_s: float | None = None
) -> dict[str, Any]:
    """Make sure a daemon of this version runs for `settings.data_dir`; return its ping answer."""
    answer = ping(settings)
    if answer and answer.get("version") != __version__:
        log.info("stopping daemon version %s (this is %s)", answer.get("version"), __version__)
        stop_daemon(settings)
        answer = None
    if answer:
        return answer
    idle_minutes_from_env(settings.model_idle_minutes)  # what the new daemon would refuse, said here
    proc = spawn_daemon(settings, idle_exit_s)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = ping(settings)
        if answer and answer.get("version") == __version__:
            if answer.get("pid") != proc.pid and proc.poll() is None:
                # Another client's daemon won the race: ours would find the lock held and exit,
                # unless it is still starting when that one stops, and then live on unasked.
                proc.terminate()
                proc.wait(10)
            return answer
        code = proc.poll()
        if code not in (None, 0):
            break  # it failed to start (exit 0: another daemon won the race; keep pinging)
        time.sleep(0.05)
    log_file = RuntimePaths.of(settings).log
    code = proc.poll()
    if code not in (None, 0):
        raise DaemonUnavailable(
            f"The CaseTrack daemon stopped as it started (exit code {code}): {_last_line(log_file)}",
            f"See {log_file} and {log_file.parent / 'daemon.stderr.log'}; try: casetrack daemon run (foreground)",
        )
    raise DaemonUnavailable(
        f"The CaseTrack daemon did not start within {timeout:.0f} s.",
        f"See {log_file} and {log_file.parent / 'daemon.stderr.log'}; try: casetrack daemon run (foreground)",
    )


def _last_line(log_file: Path) -> str:
    """The last line the failed daemon wrote (its stderr log, else its log), for the error."""
    for path in (log_file.parent / "daemon.stderr.log", log_file):
        try:
            lines = [
                ln for ln in path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()
            ]
        except OSError:
            continue
        if lines:
            return lines[-1].strip()[:300]
    return "it left no message."


def call(
    settings: Settings,
    op: str,
    args: dict[str, Any],
    on_event: Callable[[dict[str, Any]], None] | None = None,
    timeout: float | None = None,
) -> Any:
    """One RPC request; raises CaseTrackError with the daemon's message on failure."""
    sock, _ = connect(settings, "rpc", timeout=5.0)
    with sock:
        return _exchange(sock, op, args, on_event, timeout)


def _exchange(
    sock: socket.socket,
    op: str,
    args: dict[str, Any],
    on_event: Callable[[dict[str, Any]], None] | None,
    timeout: float | None,
) -> Any:
    sock.settimeout(timeout)
    try:
        sock.sendall((json.dumps({"op": op, "args": args}) + "\n").encode())
        reader = sock.makefile("rb")
        for raw in reader:
            msg = json.loads(raw)
            if "event" in msg:
                if on_event:
                    on_event(msg["event"])
            elif "error" in msg:
                err = msg["error"] or {}
                raise CaseTrackError(str(err.get("message")), err.get("hint"))
            else:
                return msg.get("result")
    except TimeoutError as e:
        raise CaseTrackError(
            f"The CaseTrack daemon did not answer within {timeout:.0f} s.",
            "See what it is doing: casetrack daemon status",
        ) from e
    except (OSError, ValueError) as e:  # reset by a daemon that stopped or died mid-request
        raise DaemonUnavailable(
            f"The CaseTrack daemon closed the connection before answering ({e}).",
            "See its log: casetrack daemon status",
        ) from e
    raise DaemonUnavailable(
        "The CaseTrack daemon closed the connection before answering.", "See its log: casetrack daemon status"
    )


@dataclass(frozen=True)
class ReadAnswer:
    """A read request's outcome: the daemon's answer, or why it did not (and may not) answer."""

    served: bool
    value: Any = None
    why: str = ""  # when not served: the reason, for the log
    code: str = ""  # not_running | version_mismatch | other_settings | bad_token | refused | dropped


def mismatch(reply: dict[str, Any], settings: Settings) -> str | None:
    """Why the daemon that sent handshake `reply` must not answer for `settings` (None: it may).

    Another data directory is never used (a copied data folder can hold the runtime files of the
    original's daemon); nor a daemon reading other models, or told another memory mode than the
    one this command was given explicitly (its results would differ from an in-process run)."""
    if reply.get("data_dir") != str(settings.data_dir):
        return f"it serves {reply.get('data_dir') or 'another data folder'}, not {settings.data_dir}"
    if reply.get("models_dir") != str(settings.models_dir):
        return f"it reads models from {reply.get('models_dir')}, not {settings.models_dir}"
    if settings.memory_mode and reply.get("memory_mode") != settings.memory_mode:
        return f"it runs in {reply.get('memory_mode') or 'automatic'} memory mode, not {settings.memory_mode}"
    return None


def read(settings: Settings, op: str, args: dict[str, Any], timeout: float = READ_TIMEOUT_S) -> ReadAnswer:
    """Ask the data directory's daemon for a read (`daemon/reads.py`) when one of this version
    runs for exactly these settings. Its errors (unknown case, bad filter) raise CaseTrackError
    with the daemon's message and fix; a daemon that is absent, of another version or for other
    settings, or that drops the connection, gives `served=False`: the caller runs the read itself."""
    try:
        sock, reply = connect(settings, "rpc", timeout=CONNECT_TIMEOUT_S)
    except DaemonUnavailable as e:
        return ReadAnswer(False, why=e.message, code=e.code)
    with sock:
        why = mismatch(reply, settings)
        if why is not None:
            return ReadAnswer(
                False, why=f"The running CaseTrack daemon is not used: {why}.", code="other_settings"
            )
        try:
            return ReadAnswer(True, _exchange(sock, op, args, None, timeout))
        except DaemonUnavailable as e:
            return ReadAnswer(False, why=e.message, code="dropped")
