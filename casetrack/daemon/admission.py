"""Who may hold a connection to the daemon, and for how long: the daemon outlives its clients.

Measured before (issue 30): 300 idle connections at a 256-descriptor limit, or 1,100 from another
user without the token on the TCP transport, ended the daemon with `Errno 24` within 5 s (the
accept loop raised and took the task group down). Now:

* the soft RLIMIT_NOFILE is raised toward the hard limit at start (`raise_fd_limit`);
* `accept_forever` accepts in a loop that survives EMFILE/ENFILE (it logs once, backs off up
  to 1 s and tries again: the connections shed below free descriptors);
* `Admission` caps connections: in all (half the descriptors), per client process (the peer's
  pid on a Unix socket) and before the handshake; one over a cap gets a `busy` line and is closed;
* a connection must say hello within `HELLO_TIMEOUT_S` and an RPC or control request must
  arrive within `REQUEST_TIMEOUT_S` (idle and half-open connections are shed); a client that does
  not read what it is sent within `SEND_TIMEOUT_S` is dropped (a slow client). Each shedding is
  one log line (stderr in the foreground, the daemon log always), never an exit.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

log = logging.getLogger("casetrack.daemon")

HELLO_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 60.0
SEND_TIMEOUT_S = 30.0
FD_TARGET = 65536  # the soft limit asked for (the hard limit permitting)
_FD_EXHAUSTED = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


def raise_fd_limit(target: int = FD_TARGET) -> int:
    """Raise the soft RLIMIT_NOFILE toward the hard limit (up to `target`); the soft limit now.
    Windows has no such limit: 8192 (what its sockets allow in practice) is returned."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 8192
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = target if hard == resource.RLIM_INFINITY else min(hard, target)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            log.info("file descriptor limit raised from %d to %d (hard limit %s)", soft, want, hard)
            soft = want
        except (ValueError, OSError) as e:  # macOS refuses more than OPEN_MAX for the soft limit
            log.warning("could not raise the file descriptor limit from %d: %s", soft, e)
    return int(soft if soft != resource.RLIM_INFINITY else target)


@dataclass(frozen=True)
class Limits:
    """The connection caps, from the descriptor limit: half the descriptors for sessions (MCP and
    RPC connections; the rest: case stores, models, the parse child, logs), a quarter of those per
    client process, a quarter waiting for their hello, and a few more for pings and stops, so a
    client can always ask whether the daemon runs even when sessions fill the cap."""

    sessions: int
    per_client: int
    unauthenticated: int
    control: int = 32

    @classmethod
    def for_descriptors(cls, fds: int) -> Limits:
        sessions = max(16, min(4096, fds // 2))
        return cls(sessions, max(8, sessions // 4), max(8, sessions // 4))


def peer_pid(stream: anyio.abc.SocketStream) -> int | None:
    """The pid of the process at the other end of a Unix socket (Linux), else None."""
    sock = stream.extra(anyio.abc.SocketAttribute.raw_socket, None)
    if sock is None or sock.family != getattr(socket, "AF_UNIX", None) or not hasattr(socket, "SO_PEERCRED"):
        return None
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return None
    pid = int(struct.unpack("3i", creds)[0])
    return pid or None


@dataclass
class Admission:
    """The connections held now: accepted in all, waiting for their hello, sessions (MCP, RPC)
    in all and per client process. A connection is admitted in two steps: at accept (room to
    wait for a hello), then after its hello (room for a session of that client; a ping or a stop
    is not a session)."""

    limits: Limits
    open: int = 0
    sessions: int = 0
    by_client: Counter[int] = field(default_factory=Counter)
    shed: Counter[str] = field(default_factory=Counter)  # refused / dropped, for the log and status
    # The connections waiting for their hello, oldest first: each one's wait, to cut it short.
    hellos: dict[int, anyio.CancelScope] = field(default_factory=dict)

    @property
    def waiting(self) -> int:
        return len(self.hellos)

    def refuse_connection(self) -> str | None:
        """Why a new connection is refused at accept (None: it may say hello)."""
        if self.open >= self.limits.sessions + self.limits.unauthenticated + self.limits.control:
            return f"{self.open} connections are open, the limit"
        return None

    def make_room(self) -> None:
        """With as many connections waiting for their hello as allowed, the oldest is dropped:
        a flood of silent connections cannot keep a real client (which says hello at once) out."""
        if self.waiting >= self.limits.unauthenticated:
            key = next(iter(self.hellos))
            self.hellos.pop(key).cancel()
            self.note_shed(
                "dropped",
                f"{self.limits.unauthenticated} connections were waiting for their hello: the oldest made room",
            )

    def refuse_session(self, pid: int | None) -> str | None:
        """Why a greeted MCP or RPC connection of process `pid` is refused (None: it is served)."""
        if self.sessions >= self.limits.sessions:
            return f"{self.sessions} sessions are open, the limit"
        if pid is not None and self.by_client[pid] >= self.limits.per_client:
            return f"process {pid} already holds {self.by_client[pid]} sessions, the limit per client"
        return None

    def note_shed(self, why: str, detail: str) -> None:
        self.shed[why] += 1
        # One line per shedding; a flood is summarised: the first 10, then every 100th of a kind.
        if self.shed[why] <= 10 or self.shed[why] % 100 == 0:
            log.warning("connection %s: %s (%d so far)", why, detail, self.shed[why])


async def accept_forever(
    listener: anyio.abc.Listener[Any], handle: Callable[[anyio.abc.SocketStream], Coroutine[Any, Any, None]]
) -> None:
    """Accept connections until the listener closes, each handled in its own task. Running out of
    descriptors (EMFILE) is logged and waited out (backing off up to 1 s), never fatal."""
    listeners = getattr(listener, "listeners", [listener])  # a TCP listener is a MultiListener
    async with anyio.create_task_group() as tg:
        for one in listeners:
            tg.start_soon(_accept_loop, one, handle)


async def _accept_loop(
    listener: Any, handle: Callable[[anyio.abc.SocketStream], Coroutine[Any, Any, None]]
) -> None:
    backoff = 0.0
    last_log = 0.0
    async with anyio.create_task_group() as tg:
        while True:
            try:
                stream = await listener.accept()
            except anyio.ClosedResourceError:
                return
            except (OSError, anyio.BrokenResourceError) as e:
                cause = e if isinstance(e, OSError) else e.__cause__
                code = getattr(cause, "errno", None)
                if code not in _FD_EXHAUSTED and code not in (errno.ECONNABORTED, errno.EPROTO, errno.EINTR):
                    raise
                backoff = min(1.0, backoff * 2 or 0.01) if code in _FD_EXHAUSTED else 0.0
                if code in _FD_EXHAUSTED and time.monotonic() - last_log > 10:
                    last_log = time.monotonic()
                    log.warning(
                        "cannot accept a connection: %s (%d descriptors open); waiting for some to close",
                        os.strerror(code or 0),
                        _open_fds(),
                    )
                await anyio.sleep(backoff)
                continue
            backoff = 0.0
            tg.start_soon(handle, stream)


def _open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1
