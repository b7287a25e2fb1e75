"""The daemon outlives its clients (issue 30): a flood of idle connections at a low descriptor
limit, clients that never say hello, too many sessions from one process; each refused or shed
with a log line, and the daemon still answers."""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from casetrack import __version__
from casetrack.daemon import client
from casetrack.daemon.admission import Admission, Limits
from casetrack.daemon.endpoint import (
    DaemonUnavailable,
    RuntimePaths,
    hello,
    open_socket,
    read_info,
    read_line,
)
from tests.daemon_util import env_for, settings_for

posix_only = pytest.mark.skipif(os.name != "posix", reason="descriptor limits and Unix sockets")


def test_the_caps_follow_the_descriptor_limit_and_name_what_is_full() -> None:
    limits = Limits.for_descriptors(256)
    assert (limits.sessions, limits.per_client, limits.unauthenticated) == (128, 32, 32)
    admission = Admission(limits)

    async def make_room() -> list[anyio.CancelScope]:
        scopes = [anyio.CancelScope() for _ in range(32)]
        admission.hellos = dict(enumerate(scopes))
        admission.make_room()  # the oldest silent connection goes, the newcomer may say hello
        return scopes

    scopes = anyio.run(make_room)
    assert scopes[0].cancel_called and not scopes[1].cancel_called and admission.waiting == 31
    admission.open = 192
    assert admission.refuse_connection() == "192 connections are open, the limit"
    admission.sessions = 3
    admission.by_client[41] = 32
    assert admission.refuse_session(41) == "process 41 already holds 32 sessions, the limit per client"
    assert admission.refuse_session(42) is None
    admission.sessions = 128
    assert admission.refuse_session(42) == "128 sessions are open, the limit"


def _limit_fds(limit: int) -> None:  # runs in the daemon's process before it starts
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


@pytest.fixture
def low_limit_daemon(home: Path, request: pytest.FixtureRequest) -> Iterator[subprocess.Popen[bytes]]:
    """A foreground daemon whose hard descriptor limit is 256 (it cannot raise it)."""
    extra = getattr(request, "param", {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "casetrack", "daemon", "run"],
        env=env_for(home, **extra),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: _limit_fds(256),
    )
    settings = settings_for(home)
    deadline = time.monotonic() + 180  # a loaded machine: imports alone can take a minute
    while client.ping(settings) is None:
        assert proc.poll() is None and time.monotonic() < deadline, "the daemon did not start"
        time.sleep(0.1)
    yield proc
    client.stop_daemon(settings)
    proc.wait(30)


def _flood(address: str, count: int) -> list[socket.socket]:
    held = []
    for _ in range(count):
        if address.startswith("127.0.0.1:"):
            sock = socket.create_connection(("127.0.0.1", int(address.rsplit(":", 1)[1])), timeout=5)
        else:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(5)
            sock.connect(address)
        held.append(sock)
    return held


@posix_only
@pytest.mark.slow  # ~20 s: a daemon flooded, then the idle connections shed after 10 s
def test_300_idle_connections_at_a_256_limit_are_shed_not_fatal(
    home: Path, low_limit_daemon: subprocess.Popen[bytes]
) -> None:
    # Issue 30: 300 idle connections at a 256-descriptor limit ended the daemon with Errno 24.
    settings = settings_for(home)
    info = read_info(RuntimePaths.of(settings))
    assert info is not None
    held = _flood(info.address, 300)
    try:
        # Silent connections make room for the next one; a real client says hello at once.
        assert client.ping(settings) is not None and low_limit_daemon.poll() is None
        assert client.call(settings, "status", {})["version"] == __version__
        time.sleep(11)  # the ones still waiting are shed after 10 s without a hello
        assert client.call(settings, "status", {})["version"] == __version__
    finally:
        for sock in held:
            sock.close()
    assert low_limit_daemon.poll() is None
    log = RuntimePaths.of(settings).log.read_text()
    assert "connection dropped: 32 connections were waiting for their hello: the oldest made room" in log
    assert "connection dropped: no hello within 10 s (idle or half-open)" in log


@posix_only
@pytest.mark.slow  # ~8 s: one process opening more sessions than its share
def test_one_process_gets_its_share_of_sessions(
    home: Path, low_limit_daemon: subprocess.Popen[bytes]
) -> None:
    settings = settings_for(home)
    info = read_info(RuntimePaths.of(settings))
    assert info is not None
    held = []
    try:
        answers = []
        for _ in range(40):
            sock = open_socket(info)
            sock.sendall(hello("rpc", info.token))
            answers.append(json.loads(read_line(sock)))
            held.append(sock)
        assert [a["ok"] for a in answers] == [True] * 32 + [False] * 8
        assert answers[-1]["code"] == "busy" and "the limit per client" in answers[-1]["error"]
        with pytest.raises(DaemonUnavailable, match="limit per client") as refused:
            client.call(settings, "status", {})
        assert "Close CaseTrack clients you do not use" in str(refused.value.hint)
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.5)
    assert client.call(settings, "status", {})["version"] == __version__  # its share back
    assert low_limit_daemon.poll() is None


@posix_only
@pytest.mark.slow  # ~20 s: 1,100 connections without the token on the loopback transport
@pytest.mark.parametrize("low_limit_daemon", [{"CASETRACK_DAEMON_TRANSPORT": "tcp"}], indirect=True)
def test_a_tcp_flood_without_the_token_is_refused(
    home: Path, low_limit_daemon: subprocess.Popen[bytes]
) -> None:
    settings = settings_for(home)
    info = read_info(RuntimePaths.of(settings))
    assert info is not None and info.transport == "tcp"
    for _ in range(11):  # 1,100 connections, 100 at a time: half say a wrong token, half nothing
        held = _flood(info.address, 100)
        for i, sock in enumerate(held):
            if i % 2:
                try:
                    sock.sendall(hello("rpc", "x" * 64))
                except OSError:
                    pass
        for sock in held:
            sock.close()
        assert low_limit_daemon.poll() is None
    assert client.call(settings, "status", {})["version"] == __version__
