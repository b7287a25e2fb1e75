"""The daemon process: one per data directory, listening on a private local endpoint.

Each connection is either an MCP session (relayed by `casetrack serve` from Claude's stdio), an
RPC request from the CLI, or a control request (ping, shutdown) that any version may send.
Nothing a client sends can stop the daemon except `shutdown`; a failing tool or request is
answered with an error and logged.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import secrets
import shutil
import signal
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from casetrack import __version__
from casetrack.config import Settings
from casetrack.daemon.admission import (
    HELLO_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    SEND_TIMEOUT_S,
    Admission,
    Limits,
    accept_forever,
    peer_pid,
    raise_fd_limit,
)
from casetrack.daemon.client import idle_minutes_from_env
from casetrack.daemon.endpoint import (
    MAX_LINE,
    PROTOCOL,
    DaemonInfo,
    RuntimePaths,
    default_transport,
    private_dir,
    socket_folder,
    write_info,
)
from casetrack.daemon.service import Service
from casetrack.errors import CaseTrackError
from casetrack.privacy_fs import private_umask
from casetrack.store.lock import WriterLock

log = logging.getLogger("casetrack.daemon")

_STREAM_ENDED = (
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
)


class AlreadyRunning(CaseTrackError):
    pass


def setup_logging(paths: RuntimePaths, to_stderr: bool) -> None:
    """A rotating log in the data directory (5 x 2 MB), and stderr when run in the foreground."""
    private_dir(paths.log.parent)
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(process)d]: %(message)s")
    handler = logging.handlers.RotatingFileHandler(
        paths.log, maxBytes=2 * 2**20, backupCount=5, encoding="utf-8"
    )
    handler.setFormatter(fmt)
    root.addHandler(handler)
    if to_stderr and not any(
        isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler) for h in root.handlers
    ):
        err = logging.StreamHandler(sys.stderr)
        err.setFormatter(fmt)
        root.addHandler(err)


class Daemon:
    def __init__(
        self,
        settings: Settings,
        idle_exit_s: float = 0.0,
        transport: str | None = None,
        runtime_dir: str | None = None,
    ) -> None:
        self.settings = settings
        self.paths = RuntimePaths.of(settings)
        self.runtime_dir = runtime_dir  # $XDG_RUNTIME_DIR: a socket folder when /tmp's is squatted
        self.socket = self.paths.socket  # where it listens (socket_folder may choose another)
        self._socket_tmp: Path | None = None  # a fresh folder of this run, removed at exit
        self.transport = transport or default_transport()
        self.idle_exit_s = idle_exit_s
        self.token = secrets.token_hex(32)
        self.service: Service | None = None
        self._lock = WriterLock(self.paths.lock, "daemon")
        self._stop = anyio.Event()
        self._last_activity = time.monotonic()
        self.admission = Admission(Limits.for_descriptors(raise_fd_limit()))

    # -- lifecycle --------------------------------------------------------------------------------

    def run(self) -> None:
        private_dir(self.paths.run_dir)
        if not self._lock.try_acquire():
            raise AlreadyRunning(
                f"A CaseTrack daemon is already running for {self.settings.data_dir}.",
                "Check it with: casetrack daemon status",
            )
        try:
            anyio.run(self._main)
        finally:
            self._cleanup()
            self._lock.release()

    def _cleanup(self) -> None:
        if self.service is not None:
            self.service.close()
        for path in (self.paths.info, self.socket) if self.transport == "unix" else (self.paths.info,):
            try:
                path.unlink()
            except FileNotFoundError:
                pass
        if self._socket_tmp is not None:
            shutil.rmtree(self._socket_tmp, ignore_errors=True)
        log.info("daemon stopped")

    async def _main(self) -> None:
        self.service = Service(self.settings)
        self.service.connections_shed = self.admission.shed  # the same counter: status shows it live
        listener, address = await self._listen()
        info = DaemonInfo(
            os.getpid(),
            __version__,
            PROTOCOL,
            self.transport,
            address,
            self.token if self.transport == "tcp" else "",
            time.time(),
        )
        write_info(self.paths, info)
        resumed = self.service.start()
        log.info(
            "daemon %s listening on %s (%s) for %s; %d job(s) resumed",
            __version__,
            address,
            self.transport,
            self.settings.data_dir,
            len(resumed),
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._watch_signals, tg)
            if self.idle_exit_s > 0:
                tg.start_soon(self._watch_idle)
            tg.start_soon(self._watch_data_dir)
            tg.start_soon(accept_forever, listener, self._handle)
            await self._stop.wait()
            tg.cancel_scope.cancel()
        await listener.aclose()

    async def _listen(self) -> tuple[anyio.abc.Listener[Any], str]:
        if self.transport == "unix":
            sock = self._socket_path()
            if sock.exists() or sock.is_symlink():
                sock.unlink()  # we hold the lock: whatever is there is stale
            old = os.umask(0o177)
            try:
                listener = await anyio.create_unix_listener(sock)
            finally:
                os.umask(old)
            os.chmod(sock, 0o600)
            return listener, str(sock)
        tcp = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        port = tcp.extra(anyio.abc.SocketAttribute.local_port)
        return tcp, f"127.0.0.1:{port}"

    def _socket_path(self) -> Path:
        """DATA_DIR/run/daemon.sock, or when that is too long a path, a socket in a folder only
        this user owns (endpoint.socket_folder: never one another user made first)."""
        if self.paths.socket.parent == self.paths.run_dir:
            private_dir(self.paths.run_dir)
            return self.paths.socket
        folder = socket_folder(self.paths.socket.parent, self.runtime_dir)
        if folder.note:
            log.warning("%s", folder.note)
        if folder.temporary:
            self._socket_tmp = folder.path
        self.socket = folder.path / self.paths.socket.name
        return self.socket

    async def _watch_signals(self, tg: anyio.abc.TaskGroup) -> None:
        if os.name != "posix":
            return
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for signum in signals:
                log.info("signal %s: shutting down", signum)
                self._stop.set()
                return

    async def _watch_idle(self) -> None:
        while True:
            await anyio.sleep(min(30.0, self.idle_exit_s))
            assert self.service is not None
            # Watched folders (`case set --watch`) keep the daemon up: it is their consume folder,
            # and nothing else would start a daemon when a file lands there.
            busy = (
                self.service.connections > 0
                or bool(self.service.jobs.active())
                or self.service.watching() > 0
            )
            if busy:
                self._last_activity = time.monotonic()
            elif time.monotonic() - self._last_activity >= self.idle_exit_s:
                log.info(
                    "idle for %.0f s with no clients, no jobs and no watched folder: exiting",
                    self.idle_exit_s,
                )
                self._stop.set()
                return

    async def _watch_data_dir(self, period: float = 30.0) -> None:
        """Exit when the data folder (or our runtime file in it) is removed: no client can find
        this daemon any more (e.g. `rm -rf` of the demo's temporary folder)."""
        while True:
            await anyio.sleep(period)
            if not (self.settings.data_dir.is_dir() and self.paths.info.is_file()):
                log.info("the data folder %s or its runtime file is gone: exiting", self.settings.data_dir)
                self._stop.set()
                return

    # -- connections ------------------------------------------------------------------------------

    async def _handle(self, stream: anyio.abc.SocketStream) -> None:
        """One connection, admitted under the caps of `admission` (else told `busy` and closed)."""
        admission = self.admission
        why = admission.refuse_connection()
        if why is not None:
            await self._refuse(stream, why)
            return
        admission.open += 1
        admission.make_room()
        state = _Held(peer_pid(stream))
        try:
            await self._serve(stream, state)
        finally:
            admission.open -= 1
            admission.hellos.pop(id(state), None)
            if state.session:
                admission.sessions -= 1
                if state.pid is not None:
                    admission.by_client[state.pid] -= 1
                    if admission.by_client[state.pid] <= 0:
                        del admission.by_client[state.pid]

    async def _refuse(self, stream: anyio.abc.ByteStream, why: str) -> None:
        self.admission.note_shed("refused", why)
        with anyio.move_on_after(1.0):
            try:
                await self._send(stream, _busy(why))
            except (*_STREAM_ENDED, TimeoutError, OSError):
                pass
        await stream.aclose()

    def _admit_session(self, state: _Held) -> str | None:
        why = self.admission.refuse_session(state.pid)
        if why is None:
            state.session = True
            self.admission.sessions += 1
            if state.pid is not None:
                self.admission.by_client[state.pid] += 1
        return why

    async def _serve(self, stream: anyio.abc.SocketStream, state: _Held) -> None:
        assert self.service is not None
        reader = BufferedByteReceiveStream(stream)
        self.service.connections += 1
        self._last_activity = time.monotonic()
        try:
            with anyio.move_on_after(HELLO_TIMEOUT_S) as waited:
                self.admission.hellos[id(state)] = waited
                hello = await self._read_json(reader, 65536)
            made_room = self.admission.hellos.pop(id(state), None) is None  # make_room logged it
            if waited.cancelled_caught:
                if not made_room:
                    self.admission.note_shed(
                        "dropped", f"no hello within {HELLO_TIMEOUT_S:.0f} s (idle or half-open)"
                    )
                return
            if hello is None:
                return
            kind = str(hello.get("kind"))
            if self.transport == "tcp" and not secrets.compare_digest(
                str(hello.get("token", "")), self.token
            ):
                await self._send(stream, {"ok": False, "code": "bad_token", "error": "Wrong daemon token."})
                return
            if kind == "control":
                await self._send(stream, {"ok": True, "version": __version__, "pid": os.getpid()})
                await self._control(stream, reader)
                return
            await self._session(stream, reader, hello, state)
        except _STREAM_ENDED:
            pass
        except TimeoutError:  # _send: the client does not read what it is sent
            self.admission.note_shed("dropped", f"a slow client read nothing for {SEND_TIMEOUT_S:.0f} s")
        except Exception:  # a broken client never takes the daemon down
            log.exception("connection failed")
        finally:
            self.service.connections -= 1
            self._last_activity = time.monotonic()
            await stream.aclose()

    async def _session(
        self,
        stream: anyio.abc.SocketStream,
        reader: BufferedByteReceiveStream,
        hello: dict[str, Any],
        state: _Held,
    ) -> None:
        """An MCP session or an RPC request, once the connection said hello."""
        assert self.service is not None
        why = self._admit_session(state)
        if why is not None:
            self.admission.note_shed("refused", why)
            await self._send(stream, _busy(why))
            return
        kind = str(hello.get("kind"))
        if hello.get("version") != __version__ or hello.get("protocol") != PROTOCOL:
            await self._send(
                stream,
                {
                    "ok": False,
                    "code": "version_mismatch",
                    "version": __version__,
                    "error": f"The running CaseTrack daemon is version {__version__}; "
                    f"this client is {hello.get('version')}.",
                },
            )
            return
        await self._send(stream, {"ok": True, "version": __version__, "pid": os.getpid(), **self._identity()})
        if kind == "mcp":
            from casetrack.daemon.mcp_session import run_mcp_session

            self.service.sessions_total += 1
            await run_mcp_session(self.service, stream, reader)
        elif kind == "rpc":
            from casetrack.daemon.rpc import handle_rpc

            request: dict[str, Any] | None = None
            with anyio.move_on_after(REQUEST_TIMEOUT_S) as waited:
                request = await self._read_json(reader, MAX_LINE)
            if waited.cancelled_caught:
                self.admission.note_shed("dropped", f"no request within {REQUEST_TIMEOUT_S:.0f} s")
            if request is not None:
                await handle_rpc(self.service, request, lambda obj: self._send(stream, obj))

    async def _control(self, stream: anyio.abc.ByteStream, reader: BufferedByteReceiveStream) -> None:
        request: dict[str, Any] | None = None
        with anyio.move_on_after(REQUEST_TIMEOUT_S):
            request = await self._read_json(reader, 65536)
        op = (request or {}).get("op")
        if op == "shutdown":
            log.info("shutdown requested by a client")
            await self._send(stream, {"result": {"stopping": True, "pid": os.getpid()}})
            self._stop.set()
        elif op == "ping":
            await self._send(
                stream, {"result": {"pid": os.getpid(), "version": __version__, **self._identity()}}
            )
        else:
            await self._send(stream, {"error": {"message": f"Unknown control op {op!r}."}})

    def _identity(self) -> dict[str, Any]:
        """What a client checks before it lets this daemon answer for it: the data directory it
        serves (a copied data folder's runtime files may point at another folder's daemon), the
        models it reads and the memory mode it was told to use (None: chosen from RAM)."""
        return {
            "data_dir": str(self.settings.data_dir),
            "models_dir": str(self.settings.models_dir),
            "memory_mode": self.settings.memory_mode,
        }

    @staticmethod
    async def _read_json(reader: BufferedByteReceiveStream, limit: int) -> dict[str, Any] | None:
        try:
            line = await reader.receive_until(b"\n", limit)
        except _STREAM_ENDED:
            return None
        try:
            value = json.loads(line)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    @staticmethod
    async def _send(stream: anyio.abc.ByteStream, obj: dict[str, Any]) -> None:
        """One JSON line; TimeoutError when the client reads nothing for SEND_TIMEOUT_S."""
        with anyio.fail_after(SEND_TIMEOUT_S):
            await stream.send((json.dumps(obj, default=str) + "\n").encode())


@dataclass
class _Held:
    """What one connection holds of the caps."""

    pid: int | None
    session: bool = False


def _busy(why: str) -> dict[str, Any]:
    return {
        "ok": False,
        "code": "busy",
        "error": f"The CaseTrack daemon refused the connection: {why}.",
        "hint": "Close CaseTrack clients you do not use, or wait a moment and try again.",
    }


def run_daemon(settings: Settings, foreground: bool, idle_exit_s: float = 0.0) -> None:
    """The daemon's entry point: `CASETRACK_MODEL_IDLE_MINUTES` is read here (the daemon is the
    one process that keeps models loaded), then the daemon runs until stopped."""
    settings = replace(settings, model_idle_minutes=idle_minutes_from_env(settings.model_idle_minutes))
    private_umask()  # job records, logs, case stores: readable by this account only (0600 / 0700)
    paths = RuntimePaths.of(settings)
    setup_logging(paths, to_stderr=foreground)
    os.environ.setdefault("LANCEDB_LOG", "error")
    Daemon(settings, idle_exit_s=idle_exit_s, runtime_dir=os.environ.get("XDG_RUNTIME_DIR")).run()


def log_path(settings: Settings) -> Path:
    return RuntimePaths.of(settings).log
