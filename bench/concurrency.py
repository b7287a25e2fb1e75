"""Search latency through the daemon with 0, 1 and 3 other searching clients while an ingest runs.

Claude's path end to end: every client is its own `casetrack serve` process (stdio MCP, the SDK's
Client) relaying to the one daemon of the data directory, which owns the models and the cases.
Latency is client-side wall time per `search_case` call (top_k 10, case_name given).

1. A base case of `--docs` CUAD PDFs (a deterministic spread over the staged PDFs, no scanned
   ones, at most `--max-pages` pages each) is ingested through the daemon (ingest_folder).
2. Scenarios, each client asking the questions in its own rotated order, again and again for
   `--seconds` (so that a loaded scenario sees several files parsed, embedded and stored):
   - baseline: 1 searching client, nothing else running;
   - 1 client while an ingest job of `--ingest-docs` other CUAD PDFs runs;
   - 2 and 4 clients in parallel (1 and 3 concurrent clients more) while the ingest runs.
   Each loaded scenario starts the same ingest afresh (into its own case, or with
   `--ingest-into base` into the searched case) and cancels it when the searches end; the script
   checks that the job was still running when the last search returned.
3. get_status at the end: the daemon's RSS and how often it loaded models (each model once).

Usage: python bench/concurrency.py [--docs 30] [--ingest-docs 30] [--queries 20] [--seconds 60]
                                   [--data-dir DIR] [--keep] [--ingest-into other|base]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# p95 is numpy's "nearest" percentile (sorted[round(0.95 (n - 1))]), not the default linear one:
# the tables in bench/RESULTS.md were measured so.
from bench.metrics import median, percentile  # noqa: E402

SHARED = REPO.parent / "shared"
CUAD = SHARED / "data/legal_span_bench"
BASE = "Concurrency base"
INCOMING = "Concurrency incoming"

QUESTIONS = [
    "Can either party terminate the agreement for convenience, and how much notice is required?",
    "What happens if a party materially breaches the agreement and fails to cure?",
    "How long is the initial term and does the agreement renew automatically?",
    "Which state's law governs the agreement and where must disputes be brought?",
    "Is there a cap on liability, and what does it exclude?",
    "What confidentiality obligations survive termination?",
    "Does the agreement contain a non-compete or non-solicitation clause?",
    "Who owns the intellectual property created under the agreement?",
    "Can the agreement be assigned without the other party's consent, e.g. after a change of control?",
    "When are payments due and what interest applies to late payments?",
    "Is either party obliged to indemnify the other for third-party claims?",
    "What insurance must be maintained and in what amounts?",
    "Is there an exclusivity obligation or a most favored nation clause?",
    "What are the minimum purchase or revenue commitments?",
    "Are there audit rights over the other party's books and records?",
    "What warranties are given and how are other warranties disclaimed?",
    "How must notices be delivered under the agreement?",
    "What does the force majeure clause cover?",
    "Does a party have a right of first refusal or an option to purchase?",
    "What license is granted, and is it exclusive, transferable or sublicensable?",
]

SCENARIOS = [  # label, searching clients, ingest running
    ("baseline: 1 client, no ingest", 1, False),
    ("1 client + ingest", 1, True),
    ("2 clients + ingest", 2, True),
    ("4 clients + ingest", 4, True),
]


def pick_pdfs(n_base: int, n_ingest: int, max_pages: int) -> tuple[list[Path], list[Path]]:
    """A deterministic spread over the staged CUAD PDFs (sorted by path): text layer only, short enough."""
    manifest = json.loads((CUAD / "cuad_pdf_manifest.json").read_text())
    usable = sorted(
        m["pdf"] for m in manifest if m["pages"] <= max_pages and "ABBYY" not in (m.get("producer") or "")
    )
    wanted = n_base + n_ingest
    if wanted > len(usable):
        raise SystemExit(f"only {len(usable)} CUAD PDFs have <= {max_pages} pages; ask for fewer")
    spread = [usable[i * len(usable) // wanted] for i in range(wanted)]
    return _split([CUAD / p for p in spread], n_base)


def _split(paths: list[Path], n_base: int) -> tuple[list[Path], list[Path]]:
    """Alternate base and ingest files while both are wanted, so that both sets cover every folder."""
    pairs = min(n_base, len(paths) - n_base)
    base, ingest = paths[0 : 2 * pairs : 2], paths[1 : 2 * pairs : 2]
    rest = paths[2 * pairs :]
    return (base + rest, ingest) if len(base) < n_base else (base, ingest + rest)


def stage(files: list[Path], folder: Path) -> Path:
    """Copy the files into a folder of their own (ingest_folder takes a folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    for src in files:
        dst = folder / src.name
        if not dst.exists():
            shutil.copy2(src, dst)
    return folder


def server(data_dir: Path, models_dir: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASETRACK_")}
    env.update(CASETRACK_HOME=str(data_dir), CASETRACK_MODELS_DIR=str(models_dir), LANCEDB_LOG="error")
    return StdioServerParameters(
        command=sys.executable, args=["-m", "casetrack", "serve", "--idle-exit", "0"], env=env, cwd=str(REPO)
    )


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"{tool}({args}) failed: {text(result)}")
    return dict(result.structured_content)


async def wait_job(client: Client, job_id: str) -> dict[str, Any]:
    while True:
        job: dict[str, Any] = (await call(client, "get_job", {"job_id": job_id, "wait_seconds": 30}))["jobs"][
            0
        ]
        if job["status"] in ("done", "failed", "cancelled"):
            return job


async def build_base(control: Client, base_dir: Path) -> dict[str, Any]:
    cases = {c["name"] for c in (await call(control, "list_cases", {"status_filter": "all"}))["cases"]}
    if BASE not in cases:
        await call(control, "create_case", {"name": BASE, "case_type": "contract"})
    started = time.perf_counter()
    queued = await call(control, "ingest_folder", {"folder_path": str(base_dir), "case_name": BASE})
    job = await wait_job(control, queued["id"])
    seconds = time.perf_counter() - started
    if job["status"] != "done":
        raise RuntimeError(f"base ingest {job['status']}: {job.get('error')}")
    info = await call(control, "get_case_info", {"case_name": BASE})
    new = [r for r in job["results"] if r["status"] in ("ingested", "replaced")]
    print(
        f"base case: {info['document_count']} documents, {info['chunk_count']} chunks"
        + (f" ({len(new)} files ingested in {seconds:.0f} s)" if new else " (already there)"),
        flush=True,
    )
    return info


async def remove_incoming(control: Client, names: set[str]) -> None:
    """Take the incoming files out of the searched case again (`--ingest-into base`)."""
    docs = (await call(control, "list_documents", {"case_name": BASE}))["documents"]
    for doc in docs:
        if doc["name"] in names:
            await call(
                control, "delete_document", {"document_name": doc["name"], "case_name": BASE, "confirm": True}
            )


async def start_ingest(control: Client, incoming: Path, into: str, names: set[str]) -> str:
    """The same ingest every time: the incoming folder, from its first file, into an empty place."""
    if into == "other":
        cases = {c["name"] for c in (await call(control, "list_cases", {"status_filter": "all"}))["cases"]}
        if INCOMING in cases:
            await call(control, "delete_case", {"case_name": INCOMING, "confirm": True})
        await call(control, "create_case", {"name": INCOMING, "case_type": "contract"})
        target = INCOMING
    else:
        await remove_incoming(control, names)
        target = BASE
    queued = await call(control, "ingest_folder", {"folder_path": str(incoming), "case_name": target})
    # Wait until the job is at work (past the queue), then a little more: embedding has begun.
    for _ in range(100):
        job = (await call(control, "get_job", {"job_id": queued["id"]}))["jobs"][0]
        if job["status"] == "running" and job.get("stage"):
            break
        await anyio.sleep(0.1)
    await anyio.sleep(1.0)
    return str(queued["id"])


async def searcher(
    client: Client,
    questions: list[str],
    until: float,
    offset: int,
    calls: list[tuple[float, float]],
    stages: dict[str, list[float]],
    errors: list[str],
) -> None:
    """Ask the questions (in this client's rotated order) again and again until `until`; one pass at least."""
    order = questions[offset % len(questions) :] + questions[: offset % len(questions)]
    first = True
    while first or time.perf_counter() < until:
        first = False
        for q in order:
            if time.perf_counter() >= until and calls:
                break
            started = time.perf_counter()
            result = await client.call_tool("search_case", {"query": q, "top_k": 10, "case_name": BASE})
            ended = time.perf_counter()
            sc = result.structured_content or {}
            if result.is_error or not sc.get("results"):
                errors.append(f"{q!r}: {text(result)[:200]}")
            else:
                calls.append((started, ended))
                for stage, ms in (sc.get("timings_ms") or {}).items():
                    stages.setdefault(stage, []).append(ms)


async def watch_job(
    control: Client, job_id: str, samples: list[tuple[float, str]], done: anyio.Event
) -> None:
    """Sample what the ingest is doing (parse / embed / store / index) every 0.2 s."""
    while not done.is_set():
        asked = time.perf_counter()
        job = (await call(control, "get_job", {"job_id": job_id}))["jobs"][0]
        stage = (job.get("stage") or job["status"]).split()[0]
        samples.append(((asked + time.perf_counter()) / 2, {"updating": "index"}.get(stage, stage)))
        with anyio.move_on_after(0.2):
            await done.wait()


def by_ingest_stage(calls: list[tuple[float, float]], samples: list[tuple[float, str]]) -> dict[str, Any]:
    """Latency of the searches by what the ingest did meanwhile: the heaviest stage seen during a call
    or last sampled before it (parse > file > store > index > embed). `file` = between two files
    (hashing, journal); `parse` includes chunking."""
    rank = ["parse", "file", "store", "index", "embed"]
    groups: dict[str, list[float]] = {}
    for start, end in calls:
        seen = {st for t, st in samples if start <= t <= end}
        before = [st for t, st in samples if t < start]
        if before:
            seen.add(before[-1])
        label = next((r for r in rank if r in seen), "other")
        groups.setdefault(label, []).append((end - start) * 1000)
    return {
        k: {"n": len(v), "p50_ms": round(median(v), 1), "p95_ms": round(percentile(v, 95, "nearest"), 1)}
        for k, v in sorted(groups.items())
    }


@dataclass(frozen=True)
class Setup:
    """What every scenario shares: the server command, the control session, the questions, how
    long each runs, and the folder an ingest scenario ingests (`into`: its case)."""

    params: StdioServerParameters
    control: Client
    questions: list[str]
    seconds: float
    incoming: Path
    into: str
    incoming_names: set[str]


async def run_scenario(setup: Setup, label: str, clients: int, ingest: bool) -> dict[str, Any]:
    params, control, questions = setup.params, setup.control, setup.questions
    seconds, incoming, into, incoming_names = setup.seconds, setup.incoming, setup.into, setup.incoming_names
    calls: list[tuple[float, float]] = []
    stages: dict[str, list[float]] = {}
    errors: list[str] = []
    samples: list[tuple[float, str]] = []
    async with AsyncExitStack() as stack:
        # Every searching client is its own `casetrack serve` process, connected and warm before timing.
        searchers = [
            await stack.enter_async_context(Client(params, read_timeout_seconds=300)) for _ in range(clients)
        ]
        for c in searchers:
            await c.call_tool("search_case", {"query": questions[0], "top_k": 10, "case_name": BASE})
        job_id = await start_ingest(control, incoming, into, incoming_names) if ingest else None
        before = (await call(control, "get_job", {"job_id": job_id}))["jobs"][0] if job_id else None
        started = time.perf_counter()
        until = started + seconds
        async with anyio.create_task_group() as tg:
            finished = anyio.Event()
            if job_id:
                tg.start_soon(watch_job, control, job_id, samples, finished)
            async with anyio.create_task_group() as searching:
                for i, c in enumerate(searchers):
                    searching.start_soon(
                        searcher, c, questions, until, i * len(questions) // clients, calls, stages, errors
                    )
            finished.set()
        wall = time.perf_counter() - started
    times = [(end - start) * 1000 for start, end in calls]
    row: dict[str, Any] = {
        "scenario": label,
        "clients": clients,
        "ingest": ingest,
        "searches": len(times),
        "errors": len(errors),
        "wall_s": round(wall, 1),
        "p50_ms": round(median(times), 1),
        "p95_ms": round(percentile(times, 95, "nearest"), 1),
        "max_ms": round(max(times), 1),
        "searches_per_s": round(len(times) / wall, 1),
        "load_avg_1min_end": round(os.getloadavg()[0], 2),  # other work on the machine shows here
        # the daemon's own timings_ms (p50 / p95): what the relay and the client add is the rest
        "server_stages_ms": {
            k: (round(median(v), 1), round(percentile(v, 95, "nearest"), 1)) for k, v in stages.items()
        },
    }
    if job_id and before is not None:
        after = (await call(control, "get_job", {"job_id": job_id}))["jobs"][0]
        row["ingest_running_at_end"] = after["status"] == "running"
        row["ingest_files_during"] = after["done"] - before["done"]
        share: dict[str, int] = {}
        for _, st in samples:
            share[st] = share.get(st, 0) + 1
        row["ingest_stage_share"] = {k: round(v / len(samples), 2) for k, v in sorted(share.items())}
        row["by_ingest_stage"] = by_ingest_stage(calls, samples)
        await call(control, "cancel_job", {"job_id": job_id})
        final = await wait_job(control, job_id)
        row["ingest_job"] = final["status"]
        if not row["ingest_running_at_end"]:
            print(
                f"  warning: the ingest job was {after['status']} before the searches ended; "
                "raise --ingest-docs",
                flush=True,
            )
    for e in errors[:3]:
        print(f"  error: {e}", flush=True)
    return row


def print_table(rows: list[dict[str, Any]]) -> None:
    base = rows[0]["p95_ms"]
    print(
        "\n| scenario | searches | p50 ms | p95 ms | max ms | p95 / baseline | searches/s | ingest files done (per min) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        files = ""
        if r["ingest"]:
            files = f"{r['ingest_files_during']} ({r['ingest_files_during'] * 60 / r['wall_s']:.1f})"
            files += "" if r["ingest_running_at_end"] else " (finished early)"
        print(
            f"| {r['scenario']} | {r['searches']} | {r['p50_ms']:.0f} | {r['p95_ms']:.0f} | {r['max_ms']:.0f} "
            f"| {r['p95_ms'] / base:.2f}x | {r['searches_per_s']} | {files} |"
        )


async def bench(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    base_files, ingest_files = pick_pdfs(args.docs, args.ingest_docs, args.max_pages)
    files_dir = data_dir / "bench-files"
    base_dir = stage(base_files, files_dir / "base")
    incoming = stage(ingest_files, files_dir / "incoming")
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(args.queries)]
    params = server(data_dir, args.models_dir)
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "queries": len(questions),
        "seconds": args.seconds,
        "ingest_into": args.ingest_into,
        "incoming_pages": sum(_pages(p) for p in ingest_files),
    }
    async with Client(params, read_timeout_seconds=300) as control:
        info = await build_base(control, base_dir)
        print(f"load average before the scenarios: {os.getloadavg()[0]:.2f} (1 min)", flush=True)
        report["base"] = {"documents": info["document_count"], "chunks": info["chunk_count"]}
        for q in questions[:3]:  # warm: the query models are loaded, the case is open
            await call(control, "search_case", {"query": q, "case_name": BASE})
        rows = []
        setup = Setup(
            params,
            control,
            questions,
            args.seconds,
            incoming,
            args.ingest_into,
            {p.name for p in ingest_files},
        )
        for label, clients, ingest in SCENARIOS:
            row = await run_scenario(setup, label, clients, ingest)
            rows.append(row)
            print(
                f"{label:<32} {row['searches']:>4} searches  p50 {row['p50_ms']:7.1f}  p95 {row['p95_ms']:7.1f}  "
                f"max {row['max_ms']:7.1f} ms  ({row['p95_ms'] / rows[0]['p95_ms']:.2f}x baseline p95)"
                + (
                    f"  ingest: {row['ingest_files_during']} files, running at end: {row['ingest_running_at_end']}"
                    if ingest
                    else ""
                )
                + f"  load {row['load_avg_1min_end']}",
                flush=True,
            )
            print(
                "  daemon stages p50/p95 ms: "
                + ", ".join(f"{k} {v[0]:.0f}/{v[1]:.0f}" for k, v in row["server_stages_ms"].items()),
                flush=True,
            )
            if ingest:
                print(
                    "  searches by ingest stage (n, p50/p95 ms): "
                    + ", ".join(
                        f"{k} ({v['n']}, {v['p50_ms']:.0f}/{v['p95_ms']:.0f})"
                        for k, v in row["by_ingest_stage"].items()
                    )
                    + "; ingest time share: "
                    + ", ".join(f"{k} {v:.0%}" for k, v in row["ingest_stage_share"].items()),
                    flush=True,
                )
        if args.ingest_into == "base":
            await remove_incoming(control, {p.name for p in ingest_files})
        status = await call(control, "get_status", {})
    daemon = status["daemon"]
    report["scenarios"] = rows
    report["daemon"] = {
        k: daemon.get(k) for k in ("pid", "rss_mb", "model_loads", "loaded_models", "sessions_total")
    }
    report["memory_mode"] = status.get("memory_mode")
    print_table(rows)
    distinct = len(set(daemon.get("loaded_models") or []))
    print(
        f"\ndaemon pid {daemon['pid']}: RSS {daemon['rss_mb']} MB, model_loads {daemon['model_loads']} for "
        f"{distinct} distinct models ({', '.join(daemon.get('loaded_models') or [])}); "
        f"{daemon.get('sessions_total')} sessions; memory mode {status.get('memory_mode')}",
        flush=True,
    )
    if daemon["model_loads"] != distinct:
        print("WARNING: the daemon loaded some model more than once", flush=True)
    return report


def _pages(pdf: Path) -> int:
    manifest = {m["pdf"]: m["pages"] for m in json.loads((CUAD / "cuad_pdf_manifest.json").read_text())}
    return int(manifest.get(str(pdf.relative_to(CUAD)), 0))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=30, help="CUAD PDFs in the searched case")
    parser.add_argument(
        "--ingest-docs", type=int, default=30, help="other CUAD PDFs ingested during the scenarios"
    )
    parser.add_argument(
        "--queries", type=int, default=20, help=f"questions (a fixed list of {len(QUESTIONS)})"
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=60,
        help="how long each scenario's clients keep asking (every question once at least)",
    )
    parser.add_argument("--max-pages", type=int, default=30, help="skip longer PDFs")
    parser.add_argument(
        "--ingest-into",
        choices=("other", "base"),
        default="other",
        help="ingest into a case of its own (default) or into the searched case",
    )
    parser.add_argument("--data-dir", type=Path, help="CaseTrack data directory (default: a new temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the temp data directory")
    parser.add_argument(
        "--models-dir", type=Path, default=Path(os.environ.get("CASETRACK_MODELS_DIR", SHARED / "models"))
    )
    args = parser.parse_args()
    temp = args.data_dir is None
    data_dir = (args.data_dir or Path(tempfile.mkdtemp(prefix="casetrack-concurrency-"))).resolve()
    print(f"data dir: {data_dir}", flush=True)
    try:
        report = anyio.run(bench, args, data_dir)
        print(json.dumps(report, indent=2))
    finally:
        subprocess.run(
            [sys.executable, "-m", "casetrack", "--data-dir", str(data_dir), "daemon", "stop"],
            cwd=REPO,
            check=False,
            capture_output=True,
        )
        if temp and not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        elif temp:
            print(f"kept {data_dir}", flush=True)


if __name__ == "__main__":
    main()
