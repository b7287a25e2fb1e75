"""Soak: the daemon under real clients and a connection flood for a while (issue 30).

One daemon (started here, at a hard limit of `--fd-limit` descriptors, 256 as in the probe),
three MCP clients searching (`casetrack serve`, the SDK's client, as Claude Desktop runs it), one
ingesting new files one at a time, one deleting the files the ingester finished, and a flood:
every few seconds `--flood` idle Unix-socket connections opened at once and held 15 s, half of
them sending a line of garbage. At the end: how many times the daemon's pid changed (exits), the
documents that should be in the case and are not (lost), search latency (p50/p95/p99, ms), the
errors each client saw, and the log's refusals and sheddings.

    PYTHONPATH=$PWD .venv/bin/python bench/soak.py --minutes 10 [--fd-limit 256] [--flood 300] [--json]

`tests/test_daemon_soak.py` (slow tier) runs it for 30 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from casetrack.config import resolve_settings
from casetrack.daemon import client as daemon_client
from casetrack.daemon.endpoint import RuntimePaths, read_info

CASE = "Soak"
SHARED = Path(os.environ.get("CT_TEST_SHARED", Path(__file__).resolve().parents[2] / "shared"))
LENER = SHARED / "data/lener_br/raw_text"
MODELS = Path(os.environ.get("CASETRACK_MODELS_DIR") or SHARED / "models")
QUERIES = [
    "indenização por danos morais",
    "prazo de contestação",
    "recurso de revista não conhecido",
    "horas extras e intervalo intrajornada",
    "responsabilidade subsidiária do tomador de serviços",
    "justa causa",
    "multa do artigo 477 da CLT",
    "vínculo de emprego reconhecido",
]


@dataclass
class Tally:
    """What the clients saw."""

    search_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    waits: Counter[str] = field(default_factory=Counter)  # expected refusals, retried
    ingested: list[str] = field(default_factory=list)  # names, in the order their job finished
    deleted: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)  # the daemon's pid each time it was looked at
    flood_connections: int = 0
    rss_mb: list[float] = field(default_factory=list)


def _env(home: Path, root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASETRACK_")}
    env.update(CASETRACK_HOME=str(home), CASETRACK_ALLOWED_ROOTS=str(root), LANCEDB_LOG="error")
    env["CASETRACK_MODELS_DIR"] = str(MODELS)
    return env


def _data(result: Any) -> dict[str, Any]:
    if result.is_error:
        raise RuntimeError(" ".join(getattr(b, "text", "") for b in result.content)[:200])
    return dict(result.structured_content or {})


def _client(home: Path, root: Path) -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "casetrack", "serve", "--idle-exit", "0"], env=_env(home, root)
    )
    return Client(params, mode="legacy", read_timeout_seconds=300)


async def _searcher(home: Path, root: Path, until: float, tally: Tally, seed: int) -> None:
    rng = random.Random(seed)
    async with _client(home, root) as c:
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                out = _data(
                    await c.call_tool("search_case", {"query": rng.choice(QUERIES), "case_name": CASE})
                )
                tally.search_ms.append((time.perf_counter() - started) * 1000)
                if not out.get("results"):
                    tally.errors["search: no results"] += 1
            except Exception as e:  # counted, never fatal to the soak
                tally.errors[f"search: {type(e).__name__}: {str(e)[:80]}"] += 1
            await anyio.sleep(rng.uniform(0.0, 0.5))


async def _ingester(home: Path, root: Path, sources: list[Path], until: float, tally: Tally) -> None:
    inbox = root / "inbox"
    inbox.mkdir(exist_ok=True)
    async with _client(home, root) as c:
        n = 0
        while time.monotonic() < until:
            source = sources[n % len(sources)]
            target = inbox / f"soak-{n:04d}-{source.name}"
            # A line of its own: never a duplicate of an earlier copy of the same decision.
            target.write_text(
                f"Cópia {n} do soak.\n\n" + source.read_text(encoding="utf-8"), encoding="utf-8"
            )
            n += 1
            try:
                job = _data(
                    await c.call_tool("ingest_document", {"file_path": str(target), "case_name": CASE})
                )
                for _ in range(20):
                    if job["status"] not in ("queued", "running"):
                        break
                    job = _data(await c.call_tool("get_job", {"job_id": job["id"], "wait_seconds": 30}))[
                        "jobs"
                    ][0]
                statuses = [r["status"] for r in job.get("results", [])]
                if statuses == ["ingested"]:
                    tally.ingested.append(target.name)
                else:
                    tally.errors[f"ingest: {job['status']} {statuses}"] += 1
            except Exception as e:
                tally.errors[f"ingest: {type(e).__name__}: {str(e)[:80]}"] += 1
            await anyio.sleep(1.0)  # a pause between files: the deleter's window (deletes wait for jobs)


async def _deleter(home: Path, root: Path, until: float, tally: Tally) -> None:
    async with _client(home, root) as c:
        while time.monotonic() < until:
            done = [n for n in tally.ingested[:-1] if n not in tally.deleted]  # the newest stays a while
            if len(done) < 2:
                await anyio.sleep(1.0)
                continue
            name = done[0]
            try:
                args = {"document_name": name, "case_name": CASE, "confirm": True}
                if _data(await c.call_tool("delete_document", args)).get("deleted"):
                    tally.deleted.append(name)
            except Exception as e:
                if "has an ingest job running" in str(e):  # the tool's rule: wait for the job, try again
                    tally.waits["delete waited for an ingest job"] += 1
                    await anyio.sleep(0.2)
                    continue
                tally.errors[f"delete: {type(e).__name__}: {str(e)[:80]}"] += 1
            await anyio.sleep(2.0)


def _flood(address: str, count: int, until: float, tally: Tally, stop: threading.Event) -> None:
    """Waves of idle connections, half sending garbage, each wave held 15 s."""
    while time.monotonic() < until and not stop.is_set():
        held = []
        for i in range(count):
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(2)
                sock.connect(address)
                if i % 2:
                    sock.sendall(b"GET / HTTP/1.0\r\n")  # no newline-terminated JSON: never a hello
                held.append(sock)
                tally.flood_connections += 1
            except OSError:
                tally.errors["flood: connect refused or reset"] += 1
        stop.wait(15)
        for sock in held:
            sock.close()
        stop.wait(2)


def _watch(settings: Any, until: float, tally: Tally, stop: threading.Event) -> None:
    import psutil

    while time.monotonic() < until and not stop.is_set():
        answer = daemon_client.ping(settings)
        if answer is not None:
            tally.pids.append(int(answer["pid"]))
            try:
                tally.rss_mb.append(psutil.Process(int(answer["pid"])).memory_info().rss / 2**20)
            except psutil.Error:
                pass
        stop.wait(2)


def _limit(fds: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (fds, fds))


def _prepare(root: Path, home: Path, count: int) -> list[Path]:
    """The case with `count` decisions ingested (in-process), and the pool of files to add."""
    files = sorted(LENER.glob("*.txt"), key=lambda p: (p.stat().st_size, p.name))[: count + 20]
    if len(files) < count + 20:
        raise SystemExit(f"Needs the LeNER-BR texts in {LENER} (set CT_TEST_SHARED).")
    base = root / "base"
    base.mkdir()
    for f in files[:count]:
        shutil.copy(f, base / f.name)
    env = {**_env(home, root), "CASETRACK_CLI_DAEMON": "never"}
    for args in (["case", "create", CASE, "--language", "pt"], ["ingest-folder", "--case", CASE, str(base)]):
        subprocess.run([sys.executable, "-m", "casetrack", *args], env=env, check=True, capture_output=True)
    return files[count:]


def run_soak(seconds: float, fd_limit: int, flood: int, root: Path, base_docs: int = 8) -> dict[str, Any]:
    """The soak, `seconds` long, in `root`; the report as a dict."""
    home = root / "home"
    pool = _prepare(root, home, base_docs)
    settings = resolve_settings(home, MODELS, environ={})
    log_file = RuntimePaths.of(settings).log
    daemon = subprocess.Popen(
        [sys.executable, "-m", "casetrack", "daemon", "run"],
        env=_env(home, root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: _limit(fd_limit),
    )
    tally = Tally()
    try:
        deadline = time.monotonic() + 300
        while daemon_client.ping(settings) is None:
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("The daemon did not start.")
            time.sleep(0.2)
        info = read_info(RuntimePaths.of(settings))
        assert info is not None
        started = time.monotonic()
        until = started + seconds
        stop = threading.Event()
        threads = [
            threading.Thread(target=_flood, args=(info.address, flood, until, tally, stop), daemon=True),
            threading.Thread(target=_watch, args=(settings, until, tally, stop), daemon=True),
        ]
        for t in threads:
            t.start()

        async def clients() -> None:
            async with anyio.create_task_group() as tg:
                for seed in range(3):
                    tg.start_soon(_searcher, home, root, until, tally, seed)
                tg.start_soon(_ingester, home, root, pool, until, tally)
                tg.start_soon(_deleter, home, root, until, tally)

        anyio.run(clients)
        elapsed = time.monotonic() - started
        stop.set()
        for t in threads:
            t.join(30)
        status = daemon_client.call(settings, "status", {})
        report = _report(
            settings, tally, elapsed, base_docs, log_file, {"fd_limit": fd_limit, "flood": flood}
        )
        return {**report, "connections_shed": status.get("connections_shed")}
    finally:
        daemon_client.stop_daemon(settings, timeout=60)
        if daemon.poll() is None:
            daemon.terminate()
        daemon.wait(30)


def _report(
    settings: Any, tally: Tally, elapsed: float, base_docs: int, log_file: Path, params: dict[str, int]
) -> dict[str, Any]:
    present = [
        d["name"] for d in daemon_client.call(settings, "list_documents", {"case": CASE, "sort_by": "name"})
    ]
    expected = set(tally.ingested) - set(tally.deleted)
    lost = sorted(n for n in expected if n not in present)
    resurrected = sorted(n for n in tally.deleted if n in present)
    log = log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else ""
    ms = sorted(tally.search_ms)

    def pct(p: float) -> float | None:
        return round(ms[min(len(ms) - 1, int(p * len(ms)))], 1) if ms else None

    return {
        "seconds": round(elapsed),
        "fd_limit": params["fd_limit"],
        "flood_per_wave": params["flood"],
        "flood_connections": tally.flood_connections,
        "daemon_exits": max(0, len(set(tally.pids)) - 1),
        "daemon_pids_seen": sorted(set(tally.pids)),
        "searches": len(ms),
        "search_ms": {
            "p50": pct(0.50),
            "p95": pct(0.95),
            "p99": pct(0.99),
            "mean": round(statistics.fmean(ms), 1) if ms else None,
        },
        "ingested": len(tally.ingested),
        "deleted": len(tally.deleted),
        "documents_at_end": len(present),
        "expected_at_end": len(expected) + base_docs,
        "lost_documents": lost,
        "deleted_but_present": resurrected,
        "errors": dict(tally.errors),
        "expected_refusals": dict(tally.waits),
        "log_refused": log.count("connection refused:"),
        "log_dropped": log.count("connection dropped:"),
        "log_tracebacks": log.count("Traceback"),
        "daemon_rss_mb_max": round(max(tally.rss_mb)) if tally.rss_mb else None,
        "load_average_1m": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="how long the clients run (default 10)")
    parser.add_argument("--fd-limit", type=int, default=256, help="the daemon's hard descriptor limit")
    parser.add_argument("--flood", type=int, default=300, help="idle connections per flood wave")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        report = run_soak(args.minutes * 60, args.fd_limit, args.flood, Path(tmp))
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for key, value in report.items():
        print(f"{key:22} {value}")


if __name__ == "__main__":
    main()
