"""No byte leaves the machine: telemetry is off before onnxruntime loads, and a real session (case,
ingest, search, the daemon over `serve`) connects to nothing but the daemon's own socket.

The slow test runs every process under `strace -f` with a private HOME and fails on any connection
that is not the daemon's Unix socket or loopback, DNS included (port 53 or a resolver's socket such
as /var/run/nscd/socket), and on onnxruntime's telemetry folder (~/.cache/Microsoft).
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from ipaddress import ip_address
from pathlib import Path
from typing import IO, Any

import pytest

from casetrack.cli import main as cli_main
from casetrack.privacy import OFFLINE, TELEMETRY_OFF, keep_local
from tests.conftest import DATA, MODELS, REPO, require

PRIVACY_VARS = (*TELEMETRY_OFF, *OFFLINE)


# -- fast: the variables are set, and early enough ------------------------------------------------


def test_keep_local_forces_telemetry_off_and_offline_except_for_a_download() -> None:
    env = {"ORT_DISABLE_TELEMETRY": "0", "HF_HUB_OFFLINE": "0", "PATH": "/bin"}
    keep_local(env)
    assert env == {**TELEMETRY_OFF, **OFFLINE, "PATH": "/bin"}
    downloading = {"HF_HUB_OFFLINE": "0"}
    keep_local(downloading, downloading=True)
    assert downloading == {**TELEMETRY_OFF, "HF_HUB_OFFLINE": "0"}  # the user's choice, honoured by download


@pytest.mark.parametrize(
    ("argv", "offline"),
    [
        (["--version"], "1"),
        (["models", "list", "--help"], "1"),
        (["--models-dir", "/m", "models", "download", "--help"], "0"),
    ],
)
def test_main_sets_the_variables_before_the_command_runs(
    argv: list[str], offline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in PRIVACY_VARS:
        monkeypatch.setenv(name, "0")  # a user's shell saying otherwise; restored after the test
    monkeypatch.setattr(sys, "argv", ["casetrack", *argv])
    with pytest.raises(SystemExit) as done:
        cli_main.main()
    assert done.value.code == 0
    assert {name: os.environ[name] for name in TELEMETRY_OFF} == TELEMETRY_OFF
    assert os.environ["HF_HUB_OFFLINE"] == offline


def _fresh_python(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in PRIVACY_VARS}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_entry_modules_load_neither_onnxruntime_nor_huggingface_hub() -> None:
    """main() sets the variables after `casetrack.cli.main` (and every command module) is imported:
    that import must not load the libraries that read them at import."""
    loaded = _fresh_python(
        "import sys, casetrack.cli.main; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'onnxruntime', 'huggingface_hub'}))"
    )
    assert loaded == "[]"


def test_models_download_still_goes_online(tmp_path: Path) -> None:
    """The one command meant to reach the network is not put offline (a closed local port stands in
    for the hub: the error must be "cannot reach", not "offline mode")."""
    env = {k: v for k, v in os.environ.items() if k not in PRIVACY_VARS}
    env.update(
        HF_ENDPOINT="http://127.0.0.1:9", HOME=str(tmp_path), CASETRACK_MODELS_DIR=str(tmp_path / "models")
    )
    done = subprocess.run(
        [sys.executable, "-m", "casetrack", "models", "download", "--slot", "E7", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["failed"][0]["error"]
    assert "cannot reach the hub" in error and "offline" not in error, error


def test_session_module_sets_the_variable_before_it_imports_onnxruntime() -> None:
    """Library use without the CLI: embed/session.py is the last line of defence."""
    seen = _fresh_python(
        "import os, sys\n"
        "class Spy:\n"
        "    seen = 'not imported'\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'onnxruntime' and Spy.seen == 'not imported':\n"
        "            Spy.seen = os.environ.get('ORT_DISABLE_TELEMETRY')\n"
        "sys.meta_path.insert(0, Spy())\n"
        "import casetrack.embed.session\n"
        "print(Spy.seen)\n"
    )
    assert seen == "1"


# -- reading strace's output ----------------------------------------------------------------------

_CALL = re.compile(r"^(?P<pid>\d+)\s+(?P<call>connect|sendto|sendmsg)\((?P<args>.*)$")
_FAMILY = re.compile(r"\b(?:sa|nl)_family=(AF_\w+)")
_PORT = re.compile(r"sin6?_port=htons\((\d+)\)")
_INET = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"')
_UNIX = re.compile(r'sun_path=(@?"[^"]*")')


def _verdict(args: str, allowed_socket: str) -> str | None:
    """Why this call's address is not allowed, or None (no address: a connected socket's send)."""
    family = _FAMILY.search(args)
    if family is None or family.group(1) in ("AF_UNSPEC", "AF_NETLINK"):
        return None  # AF_UNSPEC disconnects a socket; netlink talks to the local kernel
    if family.group(1) == "AF_UNIX":
        path = _UNIX.search(args)
        found = path.group(1) if path else "?"
        return None if found == json.dumps(allowed_socket) else f"Unix socket {found} (not the daemon's)"
    if family.group(1) in ("AF_INET", "AF_INET6"):
        port_m, addr_m = _PORT.search(args), _INET.search(args)
        port = int(port_m.group(1)) if port_m else -1
        addr = (addr_m.group(1) or addr_m.group(2)) if addr_m else "?"
        if port == 53:
            return f"DNS to {addr}"
        if addr != "?" and ip_address(addr).is_loopback:
            return None
        return f"{addr} port {port}"
    return f"address family {family.group(1)}"


def network_calls(trace: Path, allowed_socket: str) -> tuple[list[str], int]:
    """(the traced calls that reach anything but `allowed_socket` or loopback, the allowed ones)."""
    bad, allowed = [], 0
    for line in trace.read_text(errors="replace").splitlines():
        match = _CALL.match(line)
        if match is None:
            continue
        why = _verdict(match["args"], allowed_socket)
        if why is not None:
            bad.append(f"{trace.name}: {why}: {line[:300]}")
        elif "sa_family=AF_UNIX" in match["args"]:
            allowed += 1
    return bad, allowed


def test_the_trace_reader_flags_dns_and_remote_hosts_not_the_daemon() -> None:
    sock = "/tmp/h/run/daemon.sock"
    lines = {
        'connect(8, {sa_family=AF_UNIX, sun_path="/tmp/h/run/daemon.sock"}, 110) = 0': None,
        'connect(8, {sa_family=AF_INET, sin_port=htons(41234), sin_addr=inet_addr("127.0.0.1")}, 16) = 0': None,
        'sendto(8, "x", 1, MSG_NOSIGNAL, NULL, 0) = 1': None,
        'connect(8, {sa_family=AF_UNSPEC, sa_data="\\0\\0"}, 16) = 0': None,
        'connect(8, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT': "Unix socket",
        'connect(8, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.53")}, 16) = 0': "DNS",
        "connect(9, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), "
        'inet_pton(AF_INET6, "2603:1030::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH': "2603:1030::1",
        'sendto(5, "q", 1, 0, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("10.255.255.1")}, 16) = 1': "10.255.255.1 port 9",
    }
    for args, expected in lines.items():
        why = _verdict(args, sock)
        assert (why is None) if expected is None else (why is not None and expected in why), (args, why)


# -- slow: a real session under strace -----------------------------------------------------------

PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
TXT = DATA / "lener_br/raw_text/RR474820145230056.txt"
STRACE_INSTALL = (
    "strace is not installed; the privacy test needs it: apt-get install -y strace (.ci/run installs it)"
)
# onnxruntime's telemetry looked the collector up ~9 s after import; the daemon lives longer than that.
TELEMETRY_WINDOW_S = 20.0


def _strace() -> str:
    found = shutil.which("strace")
    if found is None:
        pytest.fail(STRACE_INSTALL)
    return found


def _private_env(data_dir: Path, user_home: Path) -> dict[str, str]:
    """The children's environment: a private HOME and none of the privacy variables, so the run shows
    that CaseTrack sets them itself."""
    drop = {*PRIVACY_VARS, "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("CASETRACK_")}
    env.update(
        HOME=str(user_home),
        CASETRACK_HOME=str(data_dir),
        CASETRACK_MODELS_DIR=str(MODELS),
        LANCEDB_LOG="error",
    )
    return env


class Traced:
    """Runs `python -m casetrack ...` under strace, one trace file per process tree."""

    def __init__(self, trace_dir: Path, env: dict[str, str]) -> None:
        self.trace_dir, self.env, self.strace = trace_dir, env, _strace()
        self.files: list[Path] = []

    def command(self, name: str, *args: str) -> list[str]:
        trace = self.trace_dir / f"{len(self.files):02d}-{name}.trace"
        self.files.append(trace)
        return [
            self.strace,
            "-f",
            "--seccomp-bpf",
            "-e",
            "trace=connect,sendto,sendmsg,execve",
            "-o",
            str(trace),
            sys.executable,
            "-m",
            "casetrack",
            *args,
        ]

    def run(self, name: str, *args: str, timeout: float = 600) -> str:
        done = subprocess.run(
            self.command(name, *args),
            capture_output=True,
            text=True,
            env=self.env,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"casetrack {' '.join(args)}: {done.stdout}\n{done.stderr}"
        return done.stdout


class JsonRpcPipe:
    """Newline-delimited JSON-RPC with `casetrack serve`, each answer awaited with a deadline."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc, self.stdin, self.lines = proc, proc.stdin, queue.Queue[bytes]()
        threading.Thread(target=self._read, args=(proc.stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            self.lines.put(line)

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()

    def ask(self, message: dict[str, Any], timeout: float = 300) -> dict[str, Any]:
        self.send(message)
        deadline = time.monotonic() + timeout
        while True:  # skip notifications (progress, logging)
            answer: dict[str, Any] = json.loads(self.lines.get(timeout=max(0.1, deadline - time.monotonic())))
            if answer.get("id") == message["id"]:
                return answer


@contextmanager
def serve_session(traced: Traced) -> Iterator[tuple[JsonRpcPipe, subprocess.Popen[bytes]]]:
    """`casetrack serve` under strace, initialized; it starts the daemon, which strace follows too.

    Leaving the block closes serve's stdin (serve exits); strace itself exits once the daemon stops.
    """
    with open(traced.trace_dir / "serve.stderr", "wb") as stderr:
        proc = subprocess.Popen(
            traced.command("serve-and-daemon", "serve", "--idle-exit", "0"),
            env=traced.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    pipe = JsonRpcPipe(proc)
    try:
        hello = pipe.ask(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "privacy-test", "version": "0"},
                },
            }
        )
        assert "result" in hello, hello
        pipe.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield pipe, proc
    finally:
        pipe.stdin.close()


def call_tool(pipe: JsonRpcPipe, rid: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = pipe.ask(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
    )
    assert answer.get("result", {}).get("isError") is False, answer
    return dict(answer["result"])


@pytest.mark.slow
def test_a_real_session_connects_only_to_the_daemon(home: Path, tmp_path: Path) -> None:
    from casetrack.daemon.client import ping, stop_daemon
    from casetrack.daemon.endpoint import RuntimePaths
    from tests.daemon_util import settings_for

    pdf, txt = require(PDF), require(TXT)
    user_home, trace_dir = tmp_path / "user-home", tmp_path / "traces"
    user_home.mkdir()
    trace_dir.mkdir()
    traced = Traced(trace_dir, _private_env(home, user_home))
    settings = settings_for(home)
    daemon_socket = str(RuntimePaths.of(settings).socket)

    # In-process CLI: no daemon yet, so ingest and search load the models in the CLI process.
    traced.run("case-create", "case", "create", "Privacy")
    traced.run("ingest-pdf", "ingest", "--case", "Privacy", str(pdf))
    assert (
        "hosting"
        in traced.run("search", "search", "--case", "Privacy", "premium managed hosting fees").lower()
    )

    try:
        with serve_session(traced) as (pipe, proc):
            assert (ping(settings) or {}).get("pid"), "serve did not start the daemon"
            started = time.monotonic()
            # Handed to the daemon as a job: its parse child and its encoders do the work.
            traced.run("ingest-txt-via-daemon", "ingest", "--case", "Privacy", str(txt))
            found = call_tool(
                pipe, 2, "search_case", {"query": "dano moral indenização", "case_name": "Privacy"}
            )
            assert found["structuredContent"]["results"], found
            # Keep the daemon, models loaded, alive past the moment onnxruntime's telemetry would call.
            time.sleep(max(0.0, TELEMETRY_WINDOW_S - (time.monotonic() - started)))
            call_tool(pipe, 3, "list_cases", {})
    finally:
        stop_daemon(settings)
    assert proc.wait(timeout=60) == 0, (trace_dir / "serve.stderr").read_text(errors="replace")

    bad: list[str] = []
    allowed = 0
    for trace in traced.files:
        calls, ok = network_calls(trace, daemon_socket)
        bad += calls
        allowed += ok
    assert not bad, "CaseTrack reached past the machine:\n" + "\n".join(bad[:30])
    assert allowed > 0, (
        f"strace saw no connection to the daemon's socket {daemon_socket}: the trace is not working"
    )
    started_processes = "\n".join(
        line for t in traced.files for line in t.read_text().splitlines() if "execve(" in line
    )
    assert '"daemon", "run"' in started_processes, "strace did not follow the daemon"
    assert '"--multiprocessing-fork"' in started_processes, "strace did not follow the daemon's parse child"
    telemetry = [str(p) for p in user_home.rglob("*") if "Microsoft" in p.parts]
    assert not telemetry, f"onnxruntime wrote telemetry under the private HOME: {telemetry[:5]}"
