"""Where a data directory's daemon listens, and how a client reaches it.

One daemon per data directory. Its runtime files live in `<data_dir>/run/` (mode 0700):
`daemon.lock` (held by the running daemon: the OS frees it even after kill -9),
`daemon.json` (pid, version, transport, address and, for TCP, the token; mode 0600) and, on
POSIX, `daemon.sock` (mode 0600). Only the current user can reach the daemon: through the
socket's permissions, or on Windows (or with CASETRACK_DAEMON_TRANSPORT=tcp) through a
random token in the 0600 `daemon.json`, on 127.0.0.1 only.

Every connection starts with one handshake line each way (JSON):
client `{"casetrack": "hello", "version", "protocol", "kind": "mcp"|"rpc", "token"}`,
daemon `{"ok": true, "version", "pid"}` or `{"ok": false, "code", "error", "version"}`.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from casetrack import __version__, atomic_files
from casetrack.config import Settings
from casetrack.errors import CaseTrackError
from casetrack.private_temp import system_temp

PROTOCOL = 1
ENV_TRANSPORT = "CASETRACK_DAEMON_TRANSPORT"  # "unix" (POSIX default) or "tcp" (Windows default)
MAX_LINE = 64 * 1024 * 1024
_SUN_PATH_MAX = 100  # macOS allows 104 bytes, Linux 108: keep a margin


class DaemonUnavailable(CaseTrackError):
    """No daemon answers for this data directory (or it is a different version)."""

    def __init__(self, message: str, hint: str | None = None, code: str = "not_running") -> None:
        super().__init__(message, hint)
        self.code = code  # not_running | version_mismatch | bad_token | busy | refused


@dataclass(frozen=True)
class RuntimePaths:
    run_dir: Path
    lock: Path
    info: Path
    socket: Path
    log: Path

    @classmethod
    def of(cls, settings: Settings) -> RuntimePaths:
        run_dir = settings.data_dir / "run"
        sock = run_dir / "daemon.sock"
        if len(str(sock).encode()) > _SUN_PATH_MAX:
            # A deep data directory would overflow sun_path: use a short per-user, per-data-dir path.
            digest = hashlib.sha256(str(settings.data_dir).encode()).hexdigest()[:12]
            uid = os.getuid() if hasattr(os, "getuid") else 0
            # the system's temporary folder, not the data folder's private one (casetrack/private_temp.py)
            sock = Path(system_temp()) / f"casetrack-{uid}" / f"{digest}.sock"
        return cls(
            run_dir, run_dir / "daemon.lock", run_dir / "daemon.json", sock, settings.logs_dir / "daemon.log"
        )


def _is_private_dir(path: Path, uid: int) -> str | None:
    """Why `path` is not a folder only this account can use (None: it is): it must be a real
    folder (not a symlink), owned by `uid`, with no access for the group or others. A folder of
    ours with a looser mode is tightened to 0700."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"it cannot be read ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    if st.st_uid != uid:
        return f"it belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700, follow_symlinks=False)
        except OSError as e:
            return f"its mode {stat.S_IMODE(st.st_mode):o} cannot be made 0700 ({e.strerror or e})"
    return None


def _own_dir(path: Path, uid: int) -> str | None:
    """Create `path` (0700) unless it exists; why it cannot be used (None: it is ours and private)."""
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as e:
        return f"it cannot be created ({e.strerror or e})"
    return _is_private_dir(path, uid)


@dataclass(frozen=True)
class SocketFolder:
    """Where the daemon's socket goes when `DATA_DIR/run/` is too deep for a socket path."""

    path: Path
    note: str | None  # why the usual folder was not used (for the log), None when it was
    temporary: bool  # a fresh folder of this run, removed when the daemon stops


def socket_folder(preferred: Path, runtime_dir: str | None) -> SocketFolder:
    """`preferred` (`/tmp/casetrack-UID`) when it is this user's own private folder, created if
    missing; else `$XDG_RUNTIME_DIR/casetrack` under the same check; else a fresh private folder
    from mkdtemp. Another user can create `/tmp/casetrack-UID` first (a squat): the daemon then
    never listens there, and never waits for it."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    why = _own_dir(preferred, uid)
    if why is None:
        return SocketFolder(preferred, None, False)
    note = f"{preferred} is not used for the daemon's socket: {why}"
    if runtime_dir and Path(runtime_dir).is_absolute() and _is_private_dir(Path(runtime_dir), uid) is None:
        candidate = Path(runtime_dir) / "casetrack"
        if _own_dir(candidate, uid) is None and len(str(candidate).encode()) + 18 <= _SUN_PATH_MAX:
            return SocketFolder(candidate, f"{note}; using {candidate}", False)
    # 0700, ours, a name no one could guess; in the system temp folder, not the data folder, or in
    # /tmp when that one's path is too long for a socket
    temp = system_temp()
    if len(temp.encode()) + 18 + 18 > _SUN_PATH_MAX and os.name == "posix":
        temp = "/tmp"
    fresh = Path(tempfile.mkdtemp(prefix="casetrack-", dir=temp))
    return SocketFolder(fresh, f"{note}; using {fresh}", True)


@dataclass(frozen=True)
class DaemonInfo:
    pid: int
    version: str
    protocol: int
    transport: str  # unix | tcp
    address: str  # socket path, or "127.0.0.1:PORT"
    token: str
    started_at: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def default_transport() -> str:
    wanted = os.environ.get(ENV_TRANSPORT)
    if wanted in ("unix", "tcp"):
        return wanted
    return "tcp" if sys.platform == "win32" or not hasattr(socket, "AF_UNIX") else "unix"


def private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    if os.name == "posix":
        os.chmod(path, 0o700)


def write_info(paths: RuntimePaths, info: DaemonInfo) -> None:
    private_dir(paths.run_dir)
    atomic_files.write_json(paths.info, info.to_json())


def read_info(paths: RuntimePaths) -> DaemonInfo | None:
    try:
        data = json.loads(paths.info.read_text())
        return DaemonInfo(**data)
    except (OSError, ValueError, TypeError):
        return None


def hello(kind: str, token: str) -> bytes:
    line = {"casetrack": "hello", "version": __version__, "protocol": PROTOCOL, "kind": kind, "token": token}
    return (json.dumps(line) + "\n").encode()


def open_socket(info: DaemonInfo, timeout: float | None = 5.0) -> socket.socket:
    """A connected socket to the daemon described by `info` (OSError when nothing listens)."""
    if info.transport == "unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        target: Any = info.address
    else:
        host, port = info.address.rsplit(":", 1)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        target = (host, int(port))
    sock.settimeout(timeout)
    try:
        sock.connect(target)
    except OSError:
        sock.close()
        raise
    return sock


def read_line(sock: socket.socket, limit: int = MAX_LINE) -> bytes:
    """One newline-terminated line from a blocking socket (b"" at EOF)."""
    buf = bytearray()
    while True:
        ch = sock.recv(1)
        if not ch:
            return bytes(buf)
        buf += ch
        if ch == b"\n" or len(buf) >= limit:
            return bytes(buf)


def connect(
    settings: Settings, kind: str, timeout: float | None = 5.0
) -> tuple[socket.socket, dict[str, Any]]:
    """Connect and handshake. Raises DaemonUnavailable when no daemon of our version answers."""
    paths = RuntimePaths.of(settings)
    info = read_info(paths)
    if info is None:
        raise DaemonUnavailable("The CaseTrack daemon is not running.", "Start it: casetrack daemon start")
    try:
        sock = open_socket(info, timeout)
    except OSError as e:
        raise DaemonUnavailable(
            f"The CaseTrack daemon is not answering ({e.strerror or e}).", "Start it: casetrack daemon start"
        ) from e
    try:
        sock.sendall(hello(kind, info.token))
        reply = json.loads(read_line(sock) or b"{}")
    except (OSError, ValueError) as e:
        sock.close()
        raise DaemonUnavailable(
            f"The CaseTrack daemon closed the connection ({e}).",
            "Restart it: casetrack daemon stop && casetrack daemon start",
        ) from e
    if not reply.get("ok"):
        sock.close()
        raise DaemonUnavailable(
            str(reply.get("error") or "The CaseTrack daemon refused the connection."),
            str(reply.get("hint") or "Restart it: casetrack daemon stop && casetrack daemon start"),
            code=str(reply.get("code") or "refused"),
        )
    return sock, reply
