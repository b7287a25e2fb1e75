"""`casetrack serve`: relay Claude's stdio MCP stream to the data directory's daemon.

The relay is small on purpose (no models, no LanceDB: ~20 MB): it starts the daemon if needed,
then copies newline-delimited JSON-RPC both ways. If the daemon goes away mid-session (killed,
upgraded), requests still in flight get a JSON-RPC error saying to retry, the daemon is started
again and the session goes on: the `initialize` exchange of a handshake-era client is replayed
to the new daemon and its answer dropped.
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import threading
from typing import Any, BinaryIO

from casetrack.config import Settings
from casetrack.daemon.client import ensure_daemon
from casetrack.daemon.endpoint import connect

log = logging.getLogger(__name__)

RETRY_MESSAGE = "The CaseTrack daemon restarted while this request was running; please retry it."


class Relay:
    def __init__(
        self,
        settings: Settings,
        stdin: BinaryIO,
        stdout: BinaryIO,
        idle_exit_s: float | None = None,
        max_restarts: int = 5,
    ) -> None:
        self.settings = settings
        self.stdin = stdin
        self.stdout = stdout
        self.idle_exit_s = idle_exit_s
        self.max_restarts = max_restarts
        self._sock: socket.socket | None = None
        self._sock_ready = threading.Condition()
        self._out = threading.Lock()
        self._pending: dict[str, Any] = {}  # request ids sent, not yet answered (key: json of id)
        self._replay: list[bytes] = []  # initialize request + initialized notification
        self._init_id: Any = None
        self._stdin_closed = False

    def _connect(self) -> socket.socket:
        ensure_daemon(self.settings, idle_exit_s=self.idle_exit_s)
        sock, _ = connect(self.settings, "mcp", timeout=10.0)
        sock.settimeout(None)
        return sock

    def run(self) -> int:
        self._sock = self._connect()
        threading.Thread(target=self._pump_stdin, name="stdin", daemon=True).start()
        restarts = 0
        while True:
            sock = self._sock
            self._pump_socket(sock)
            if self._stdin_closed:
                return 0
            # The daemon went away while the client is still talking.
            self._fail_pending()
            restarts += 1
            if restarts > self.max_restarts:
                log.error("the daemon keeps stopping; giving up")
                return 1
            log.warning("lost the daemon; restarting it (%d)", restarts)
            try:
                new = self._connect()
                self._replay_init(new)
            except Exception as e:
                log.error("could not restart the daemon: %s", e)
                return 1
            with self._sock_ready:
                self._sock = new
                self._sock_ready.notify_all()

    # -- client -> daemon -------------------------------------------------------------------------

    def _pump_stdin(self) -> None:
        for line in iter(self.stdin.readline, b""):
            if not line.strip():
                continue
            self._note_outgoing(line)
            while True:
                sock = self._sock
                try:
                    assert sock is not None
                    sock.sendall(line if line.endswith(b"\n") else line + b"\n")
                    break
                except OSError:
                    with self._sock_ready:  # wait for the reconnect, then resend
                        if self._sock is sock:
                            self._sock_ready.wait(30)
        self._stdin_closed = True
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def _note_outgoing(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        if "method" in msg and "id" in msg:
            self._pending[json.dumps(msg["id"])] = msg["id"]
            if msg["method"] == "initialize" and not self._replay:
                self._replay.append(line)
                self._init_id = msg["id"]
        elif msg.get("method") == "notifications/initialized" and len(self._replay) == 1:
            self._replay.append(line)

    # -- daemon -> client -------------------------------------------------------------------------

    def _pump_socket(self, sock: socket.socket) -> None:
        reader = sock.makefile("rb")
        try:
            for line in reader:
                self._note_incoming(line)
                self._write(line)
        except OSError:
            pass
        finally:
            reader.close()
            sock.close()

    def _note_incoming(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if isinstance(msg, dict) and "id" in msg and ("result" in msg or "error" in msg):
            self._pending.pop(json.dumps(msg["id"]), None)

    def _write(self, line: bytes) -> None:
        with self._out:
            self.stdout.write(line if line.endswith(b"\n") else line + b"\n")
            self.stdout.flush()

    def _fail_pending(self) -> None:
        for key, req_id in list(self._pending.items()):
            self._pending.pop(key, None)
            error = {"jsonrpc": "2.0", "id": req_id, "error": {"code": -32603, "message": RETRY_MESSAGE}}
            self._write(json.dumps(error).encode() + b"\n")

    def _replay_init(self, sock: socket.socket) -> None:
        if not self._replay:
            return
        sock.sendall(self._replay[0])
        reader = sock.makefile("rb")
        try:
            for line in reader:  # drop the new daemon's answer to the replayed initialize
                msg = json.loads(line)
                if isinstance(msg, dict) and msg.get("id") == self._init_id:
                    break
        finally:
            reader.close()
        for line in self._replay[1:]:
            sock.sendall(line)


def serve_stdio(settings: Settings, idle_exit_s: float | None = None) -> int:
    return Relay(settings, sys.stdin.buffer, sys.stdout.buffer, idle_exit_s).run()
