"""The daemon's footprint (issue 16): idle RSS per memory mode, the peak while it ingests a long
PDF, and what a CLI search costs with the daemon running and without it.

For each memory mode: a fresh data directory gets a small case (the bundled samples and a few
CUAD contracts, ingested in-process); two CLI searches run without a daemon (in-process, as
`CASETRACK_CLI_DAEMON=never`); then the daemon starts with that memory mode and a short model idle
time, and its RSS (psutil, the daemon process only) is read when idle: after start, after CLI
searches through it, after it ingested a long text PDF (N pages of CUAD contracts, concatenated;
its peak RSS sampled every 50 ms during the ingest, the parse child's apart), each time after the
idle timer unloaded the models (after the searches, and again after the ingest). Last, with no daemon, a search that starts one (`always`, what a
terminal gets) and the search after it.

Usage: python bench/footprint.py [--modes full standard constrained] [--pages 300]
       [--idle-minutes 0.25] [--work /tmp/footprint] [--searches 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MODELS = REPO.parent / "shared" / "models"
CUAD = DATA / "legal_span_bench" / "cuad_pdf"
QUERIES = [
    "How much notice is needed to terminate the agreement?",
    "governing law and jurisdiction",
    "limitation of liability",
    "confidential information",
    "payment terms",
    "assignment without consent",
    "indemnification",
    "force majeure",
]


def build_pdf(out: Path, pages: int) -> Path:
    """A text PDF of `pages` pages: whole CUAD contracts (Part I) one after another, the last cut short."""
    import pypdfium2

    if out.exists():
        return out
    target = pypdfium2.PdfDocument.new()
    for src in sorted((CUAD / "Part_I").rglob("*.pdf")):
        doc = pypdfium2.PdfDocument(str(src))
        take = min(len(doc), pages - len(target))
        target.import_pages(doc, list(range(take)))
        doc.close()
        if len(target) >= pages:
            break
    target.save(str(out))
    target.close()
    return out


def case_files() -> list[Path]:
    samples = sorted((REPO / "casetrack" / "samples").iterdir())
    return [*samples, *sorted((CUAD / "Part_II").rglob("*.pdf"))[:4]]


def env_for(home: Path, mode: str, idle_minutes: float, cli_daemon: str = "auto") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASETRACK_")}
    env.update(
        CASETRACK_HOME=str(home),
        CASETRACK_MODELS_DIR=str(MODELS),
        CASETRACK_MEMORY_MODE=mode,
        CASETRACK_MODEL_IDLE_MINUTES=str(idle_minutes),
        CASETRACK_CLI_DAEMON=cli_daemon,
        LANCEDB_LOG="error",
    )
    return env


def cli(env: dict[str, str], *args: str) -> tuple[float, str]:
    """Run `casetrack ARGS` as a terminal would; (wall seconds, stdout)."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "casetrack", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 3):
        raise SystemExit(f"casetrack {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, proc.stdout


def search(env: dict[str, str], query: str) -> float:
    return cli(env, "search", "--case", "Bench", query, "--json")[0]


def daemon_info(env: dict[str, str]) -> dict[str, Any]:
    return dict(json.loads(cli(env, "daemon", "status", "--json")[1]))


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 2**20


def rss_split(pid: int) -> dict[str, float]:
    """RSS as anonymous memory (heap, model arenas, caches) and file-backed pages (the mapped code of
    Python, onnxruntime, LanceDB, pyarrow...: shared and reclaimable), in MB; Linux only."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    fields = dict(line.split(":", 1) for line in lines if line.startswith(("RssAnon", "RssFile")))
    return {k: int(v.split()[0]) / 1024 for k, v in fields.items()}


def unload_lines(home: Path) -> list[str]:
    """The daemon's own account of each idle unload: models and its RSS just before and after."""
    log = home / "logs" / "daemon.log"
    text = log.read_text(encoding="utf-8") if log.exists() else ""
    return [line.split(": ", 1)[-1] for line in text.splitlines() if "unloaded idle models" in line]


class PeakSampler:
    """Peak RSS of a process and, apart, of its children (the parse child), sampled every 50 ms."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.peak = self.child_peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.peak = max(self.peak, self.proc.memory_info().rss / 2**20)
                for child in self.proc.children(recursive=True):
                    self.child_peak = max(self.child_peak, child.memory_info().rss / 2**20)
            except psutil.Error:
                pass


def wait_unloaded(env: dict[str, str], timeout: float) -> float:
    """Seconds until the daemon reports no loaded model."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if not daemon_info(env)["loaded_models"]:
            return time.perf_counter() - started
        time.sleep(1.0)
    raise SystemExit(f"models still loaded after {timeout:.0f} s")


def run_mode(work: Path, mode: str, pdf: Path, idle_minutes: float, searches: int) -> dict[str, Any]:
    home = work / mode
    shutil.rmtree(home, ignore_errors=True)
    env = env_for(home, mode, idle_minutes)
    cli(env, "case", "create", "Bench")
    cli(env, "ingest", "--case", "Bench", *map(str, case_files()))
    out: dict[str, Any] = {"mode": mode}
    alone = env_for(home, mode, idle_minutes, cli_daemon="never")
    out["inprocess_s"] = [search(alone, QUERIES[i]) for i in range(2)]
    out["start_s"] = cli(env, "daemon", "start")[0]
    pid = int(daemon_info(env)["pid"])
    time.sleep(1.0)
    out["rss_start"], out["split_start"] = rss_mb(pid), rss_split(pid)
    out["daemon_s"] = [search(env, QUERIES[i % len(QUERIES)]) for i in range(searches)]
    time.sleep(1.0)
    out["rss_search"], out["split_search"] = rss_mb(pid), rss_split(pid)
    out["loaded_after_search"] = daemon_info(env)["loaded_models"]
    wait_unloaded(env, idle_minutes * 60 * 2 + 120)  # idle after searches only: what most days are
    time.sleep(1.0)
    out["rss_search_unloaded"], out["split_search_unloaded"] = rss_mb(pid), rss_split(pid)
    search(env, QUERIES[3])  # the models back for the ingest's comparison
    with PeakSampler(pid) as sampler:
        out["ingest_s"], report = cli(env, "ingest", "--case", "Bench", str(pdf), "--json")
    out["ingest_chunks"] = json.loads(report)["summary"]["chunks"]
    out["peak_ingest"], out["peak_parse_child"] = sampler.peak, sampler.child_peak
    time.sleep(2.0)
    out["rss_ingest"] = rss_mb(pid)
    out["unload_wait_s"] = wait_unloaded(env, idle_minutes * 60 * 2 + 120)
    time.sleep(1.0)
    out["rss_unloaded"], out["split_unloaded"] = rss_mb(pid), rss_split(pid)
    out["unloads"] = unload_lines(home)
    out["after_unload_s"] = search(env, QUERIES[0])
    cli(env, "daemon", "stop")
    auto = env_for(home, mode, idle_minutes, cli_daemon="always")
    out["autostart_s"] = [search(auto, QUERIES[1]), search(auto, QUERIES[2])]
    cli(env, "daemon", "stop")
    return out


def report(rows: list[dict[str, Any]], pages: int, idle_minutes: float) -> None:
    print(f"\nIdle RSS of the daemon (MB; model idle time {idle_minutes:g} min for the unload column)")
    print(
        f"{'mode':<12}{'start':>8}{'search':>8}{'unloaded':>10}{'ingest':>8}{'unloaded':>10}"
        "   models loaded after search"
    )
    for r in rows:
        print(
            f"{r['mode']:<12}{r['rss_start']:>8.0f}{r['rss_search']:>8.0f}{r['rss_search_unloaded']:>10.0f}"
            f"{r['rss_ingest']:>8.0f}{r['rss_unloaded']:>10.0f}   {', '.join(r['loaded_after_search'])}"
        )
    print(f"\nIngest of a {pages}-page text PDF through the daemon")
    print(f"{'mode':<12}{'chunks':>8}{'wall s':>8}{'peak MB':>9}{'parse child peak MB':>21}")
    for r in rows:
        print(
            f"{r['mode']:<12}{r['ingest_chunks']:>8}{r['ingest_s']:>8.0f}{r['peak_ingest']:>9.0f}"
            f"{r['peak_parse_child']:>21.0f}"
        )
    print("\nCLI `casetrack search --json` wall time (s)")
    print(
        f"{'mode':<12}{'no daemon 1st':>14}{'2nd':>6}{'daemon 1st':>12}{'2nd':>6}{'median rest':>13}"
        f"{'after unload':>14}{'auto-start 1st':>16}{'2nd':>6}"
    )
    for r in rows:
        rest = sorted(r["daemon_s"][1:])
        print(
            f"{r['mode']:<12}{r['inprocess_s'][0]:>14.2f}{r['inprocess_s'][1]:>6.2f}{r['daemon_s'][0]:>12.2f}"
            f"{r['daemon_s'][1]:>6.2f}{rest[len(rest) // 2]:>13.2f}{r['after_unload_s']:>14.2f}"
            f"{r['autostart_s'][0]:>16.2f}{r['autostart_s'][1]:>6.2f}"
        )
    print("\nRSS split (MB, anonymous + file-backed) and the daemon's log of each idle unload")
    for r in rows:
        split = "  ".join(
            f"{k} {r[f'split_{k}'].get('RssAnon', 0):.0f}+{r[f'split_{k}'].get('RssFile', 0):.0f}"
            for k in ("start", "search", "search_unloaded", "unloaded")
            if f"split_{k}" in r
        )
        print(f"{r['mode']:<12}{split}")
        for line in r.get("unloads", []):
            print(f"{'':<12}{line}")
    starts = ", ".join(f"{r['mode']} {r['start_s']:.2f} s" for r in rows)
    unloads = ", ".join(f"{r['unload_wait_s']:.0f} s" for r in rows)
    print(f"\n(`casetrack daemon start`: {starts}; models unloaded {unloads} after the ingest ended)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--modes",
        nargs="+",
        default=["full", "standard", "constrained"],
        choices=["full", "standard", "constrained"],
    )
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--idle-minutes", type=float, default=0.25)
    ap.add_argument("--work", type=Path, default=Path("/tmp/footprint"))
    ap.add_argument("--searches", type=int, default=5)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    pdf = build_pdf(args.work / f"contracts-{args.pages}p.pdf", args.pages)
    print(
        f"machine: {os.cpu_count()} CPUs, {psutil.virtual_memory().total / 2**30:.0f} GiB; {pdf.name}",
        flush=True,
    )
    rows = []
    for mode in args.modes:
        rows.append(run_mode(args.work, mode, pdf, args.idle_minutes, args.searches))
        print(json.dumps(rows[-1]), flush=True)
    report(rows, args.pages, args.idle_minutes)


if __name__ == "__main__":
    main()
