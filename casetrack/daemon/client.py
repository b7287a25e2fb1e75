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
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from casetrack import __version__
from casetrack.config import Settings
from casetrack.daemon.endpoint import (
    DaemonUnavailable,
    RuntimePaths,
    connect,
    read_line,
)
from casetrack.errors import CaseTrackError

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0


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
    """{"pid", "version"} of the running daemon, or None."""
    return _control(settings, "ping")


def _pid_alive(pid: int) -> bool:
    import psutil

    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def stop_daemon(settings: Settings, timeout: float = 30.0) -> int | None:
    """Ask the daemon to stop and wait for it to exit. Returns its pid, or None if none ran."""
    answer = _control(settings, "shutdown")
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
    cmd = [sys.executable, "-m", "casetrack", "--data-dir", str(settings.data_dir),
           "--models-dir", str(settings.models_dir)]
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


def ensure_daemon(settings: Settings, timeout: float = START_TIMEOUT_S, idle_exit_s: float | None = None) -> dict[str, Any]:
    """Make sure a daemon of this version runs for `settings.data_dir`; return its ping answer."""
    answer = ping(settings)
    if answer and answer.get("version") != __version__:
        log.info("stopping daemon version %s (this is %s)", answer.get("version"), __version__)
        stop_daemon(settings)
        answer = None
    if answer:
        return answer
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
    raise DaemonUnavailable(
        f"The CaseTrack daemon did not start within {timeout:.0f} s.",
        f"See {log_file} and {log_file.parent / 'daemon.stderr.log'}; try: casetrack daemon run (foreground)",
    )


def call(settings: Settings, op: str, args: dict[str, Any],
         on_event: Callable[[dict[str, Any]], None] | None = None, timeout: float | None = None) -> Any:
    """One RPC request; raises CaseTrackError with the daemon's message on failure."""
    sock, _ = connect(settings, "rpc", timeout=5.0)
    with sock:
        sock.settimeout(timeout)
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
    raise DaemonUnavailable("The CaseTrack daemon closed the connection before answering.",
                            "See its log: casetrack daemon status")
