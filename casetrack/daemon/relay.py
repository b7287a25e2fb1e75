"""`casetrack serve`: relay Claude's stdio MCP stream to the data directory's daemon.

The relay is small on purpose (no models, no LanceDB: ~20 MB): it starts the daemon if needed,
then copies newline-delimited JSON-RPC both ways. If the daemon goes away mid-session (killed,
upgraded), the daemon is started again and the session goes on: the `initialize` exchange of a
handshake-era client is replayed to the new daemon and its answer dropped. Requests that were in
flight get a JSON-RPC error saying to retry, except a confirmed deletion (`delete_document`,
`delete_case`) whose target the new daemon no longer has: it finished before the daemon went
away, so it is reported done (a retry would only say "not found").
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import threading
from typing import Any, BinaryIO

from casetrack.config import Settings
from casetrack.daemon.client import call, ensure_daemon
from casetrack.daemon.endpoint import connect
from casetrack.errors import CaseTrackError

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
        self._pending: dict[str, dict[str, Any]] = {}  # requests sent, not yet answered (key: json of id)
        self._active_case: str | None = None  # the session's case (id) as its last switch/create left it
        self._active_name: str | None = None
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
            restarts += 1
            if restarts > self.max_restarts:
                log.error("the daemon keeps stopping; giving up")
                self._fail_pending(restarted=False)
                return 1
            log.warning("lost the daemon; restarting it (%d)", restarts)
            try:
                new = self._connect()
                self._replay_init(new)
            except Exception as e:
                log.error("could not restart the daemon: %s", e)
                self._fail_pending(restarted=False)
                return 1
            self._fail_pending(restarted=True)
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
            self._pending[json.dumps(msg["id"])] = msg
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
            request = self._pending.pop(json.dumps(msg["id"]), None)
            result = msg.get("result")
            if request is not None and isinstance(result, dict) and not result.get("isError"):
                self._follow_case(request, result)

    def _follow_case(self, request: dict[str, Any], result: dict[str, Any]) -> None:
        """The session's active case, as a successful switch_case / create_case set it."""
        name, args = _tool_call(request)
        structured = result.get("structuredContent")
        if not isinstance(structured, dict):
            return
        if name in ("switch_case", "create_case"):
            self._active_case = str(structured.get("id") or "") or None
            self._active_name = str(structured.get("name") or "") or None
        elif (
            name == "delete_case"
            and args.get("confirm") is True
            and structured.get("case") == self._active_name
        ):
            self._active_case = self._active_name = None  # the daemon's session forgot it too

    def _write(self, line: bytes) -> None:
        with self._out:
            self.stdout.write(line if line.endswith(b"\n") else line + b"\n")
            self.stdout.flush()

    def _fail_pending(self, restarted: bool) -> None:
        """Answer the requests the lost daemon left unanswered: a confirmed deletion the new
        daemon shows done (`restarted`) as done, everything else with the retry error."""
        for key, request in list(self._pending.items()):
            self._pending.pop(key, None)
            done = self._deletion_done(request) if restarted else None
            if done is not None:
                answer: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"], "result": done}
            else:
                error = {"code": -32603, "message": RETRY_MESSAGE}
                answer = {"jsonrpc": "2.0", "id": request["id"], "error": error}
            self._write(json.dumps(answer).encode() + b"\n")

    def _deletion_done(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The tool result of a confirmed deletion whose document or case the (new) daemon no
        longer has, asked by exact id or name over RPC; None when it is still there or unknown."""
        name, args = _tool_call(request)
        if name not in ("delete_document", "delete_case") or args.get("confirm") is not True:
            return None
        try:
            return self._case_gone(args) if name == "delete_case" else self._document_gone(args)
        except CaseTrackError as e:  # the case is unknown, the daemon is not answering: retry
            log.info("could not tell whether a deletion finished: %s", e.message)
            return None

    def _case_gone(self, args: dict[str, Any]) -> dict[str, Any] | None:
        target = str(args.get("case_name") or "").strip()
        cases = call(self.settings, "case_list", {"include_archived": True}, timeout=60)
        if not target or any(target in (c.get("id"), c.get("name")) for c in cases):
            return None
        text = f'Case "{target}" no longer exists: its deletion finished before the daemon restarted.'
        return _tool_result(text, {"deleted": True, "case": target, "document": None})

    def _document_gone(self, args: dict[str, Any]) -> dict[str, Any] | None:
        case = str(args.get("case_name") or self._active_case or "")
        document = str(args.get("document_name") or "").strip()
        if not case or not document:
            return None
        info = call(self.settings, "case_info", {"case": case}, timeout=60)
        docs = call(self.settings, "list_documents", {"case": case}, timeout=60)
        if any(document in (d.get("id"), d.get("name")) for d in docs):
            return None
        text = (
            f'"{document}" is no longer in {info["name"]}: its deletion finished before the daemon '
            "restarted. The original file is not touched."
        )
        return _tool_result(text, {"deleted": True, "case": str(info["name"]), "document": document})

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


def _tool_call(request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A request's tool name and arguments ("" and {} when it is not a tools/call)."""
    params = request.get("params")
    if request.get("method") != "tools/call" or not isinstance(params, dict):
        return "", {}
    args = params.get("arguments")
    return str(params.get("name") or ""), args if isinstance(args, dict) else {}


def _tool_result(text: str, structured: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": False}


def serve_stdio(settings: Settings, idle_exit_s: float | None = None) -> int:
    return Relay(settings, sys.stdin.buffer, sys.stdout.buffer, idle_exit_s).run()
