"""Search latency per stage at 10k and 100k chunks, warm, on this machine.

Builds a base case by ingesting CUAD contracts through the real pipeline (all installed models),
then replicates its chunks — text, provenance and every stored embedding — into larger cases
through the same commit protocol (documents of 1,000 chunks), so that the stores hold real
vectors and real text at 10k and 100k chunks without re-embedding. Replicas repeat text, which
makes BM25 and ANN work at least as hard as on distinct text (more ties, the same index sizes).

Then runs CUAD questions against each size with each configuration and prints p50/p95 per stage
(`timings_ms` of the response) and in total. Replicas get the indexes ingest would give them
(`LanceTables.maintain`: none at 10k, IVF_HNSW_SQ + BTree at 100k).

Usage: python bench/latency.py [--sizes 10000,100000] [--queries 60] [--cache bench/.cache/latency]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.metrics import median, percentile  # noqa: E402
from bench.retrieval import question_only  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.search.ranking.config import SearchConfig  # noqa: E402
from casetrack.store import lance_tables as lt  # noqa: E402

SHARED = REPO.parent / "shared"
CUAD = SHARED / "data/legal_span_bench"
BASE = "Latency base"
REPLICA_DOC = 1000  # chunks per replicated document

_ALL = ("bm25", "dense", "sparse", "e7")
CONFIGS = {
    # The spec's stages 1-2: BM25 recall, E1 ranks BM25's candidates, RRF (no ANN).
    "bm25 recall + rrf": SearchConfig.of(
        lists=("bm25", "dense"), dense_recall=False, boost=False, rerank=False, cache_queries=False
    ),
    # The same with E1 nearest neighbours added to the candidates (the ANN query).
    "bm25+dense rrf": SearchConfig.of(
        lists=("bm25", "dense"), boost=False, rerank=False, cache_queries=False
    ),
    "+sparse+e7": SearchConfig.of(lists=_ALL, boost=False, rerank=False, cache_queries=False),
    "+boost (default)": SearchConfig.of(lists=_ALL, boost=True, rerank=False, cache_queries=False),
    "+rerank (all)": SearchConfig.of(lists=_ALL, boost=True, rerank=True, cache_queries=False),
}
# The default search given the caller's keywords and likely wording (issue 27): measured beside the
# same search without them, so the two can be compared as a ratio within one run.
WITH_WORDS = "default +words"
# Keywords and a likely wording of the length a careful caller writes (five keywords, two sentences),
# the same for every question: latency depends on their length, not on what they say.
WORDS = {
    "keywords": [
        "termination for convenience",
        "terminate upon notice",
        "expiration",
        "renewal term",
        "term",
    ],
    "likely_wording": (
        "This Agreement shall commence on the Effective Date and continue for an initial term of three (3) "
        "years, unless terminated earlier in accordance with this Section. Either party may terminate this "
        "Agreement upon ninety (90) days' prior written notice to the other party."
    ),
}


def questions(n: int) -> list[str]:
    tests = json.loads((CUAD / "benchmarks/cuad.json").read_text())["tests"]
    out: list[str] = []
    for t in tests:
        # "Consider the ... (parties named in it: A; B); <question>": keep the question a lawyer would type.
        q = question_only(t["query"])
        if q not in out:
            out.append(q)
        if len(out) == n:
            break
    return out


def missing_windows(app: CaseTrack, case: str) -> int:
    store = app.open_case(case)
    try:
        return store.lance.count_missing(lt.WINDOW_VECTORS)
    finally:
        store.close()


def build_base(app: CaseTrack, chunks: int) -> None:
    if BASE in {c.name for c in app.registry.list()}:
        if missing_windows(app, BASE):  # built before E1 passage windows: add them
            report = app.reembed(BASE)
            print(f"base: added E1 passage windows to {len(report.reembedded)} files", flush=True)
        return
    app.create_case(BASE)
    files, chars = [], 0
    for path in sorted((CUAD / "corpus/cuad").glob("*.txt")):
        files.append(path)
        chars += path.stat().st_size
        if chars >= chunks * 1700:
            break
    started = time.perf_counter()
    results = app.ingest(BASE, files)
    print(
        f"base: {len(files)} files, {sum(r.chunks for r in results)} chunks in "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )


def build_replica(app: CaseTrack, size: int) -> str:
    name = f"Latency {size}"
    if name in {c.name for c in app.registry.list()}:
        if not missing_windows(app, name):
            return name
        app.delete_case(name)  # replicated from a base without passage windows
    base = app.open_case(BASE)
    try:
        table = base.lance.table(lt.CHUNKS)
        assert table is not None
        rows = table.to_arrow()
    finally:
        base.close()
    app.create_case(name)
    started = time.perf_counter()
    source = app.open_case(BASE)
    models = source.models()
    source.close()
    with app.writing(name) as store:
        store.record_models(models)
        made = 0
        while made < size:
            n = min(REPLICA_DOC, size - made)
            idx = [(made + i) % rows.num_rows for i in range(n)]
            part = rows.take(idx)
            part = part.set_column(part.schema.get_field_index("seq"), "seq", [list(range(n))])
            doc = f"replica-{made // REPLICA_DOC:05d}"
            store.commit_document(
                doc,
                f"{doc}.txt",
                None,
                doc,
                part,
                {
                    "name": f"{doc}.txt",
                    "source_path": None,
                    "sha256": doc,
                    "file_type": "text",
                    "size_bytes": 0,
                    "page_count": 1,
                    "chunk_count": n,
                    "needs_ocr_pages": [],
                    "ingested_at": time.time(),
                    "embed_model": None,
                    "embed_models": [],
                    "warnings": [],
                },
            )
            made += n
        table = store.lance.table(lt.CHUNKS)
        assert table is not None
        table.optimize()  # compact the per-commit fragments, as a maintenance job would
        print(f"{name}: indexes: {store.lance.maintain() or 'none (flat scan)'}", flush=True)
    print(f"{name}: {size} chunks replicated in {time.perf_counter() - started:.0f} s", flush=True)
    return name


def percentiles(values: list[float]) -> tuple[float, float]:
    """p50, p95 in ms. p95 is numpy's "nearest" (sorted[round(0.95 (n - 1))]), not the default
    linear one: the tables in bench/RESULTS.md were measured so."""
    return round(median(values), 1), round(percentile(values, 95, "nearest"), 1)


def measure(
    app: CaseTrack, case: str, qs: list[str], config: SearchConfig, words: dict[str, Any] | None = None
) -> dict[str, Any]:
    extra = words or {}
    for q in qs[:3]:  # warm: models loaded, caches filled
        app.search(case, q, config=config, **extra)
    stage_times: dict[str, list[float]] = {}
    for q in qs:
        started = time.perf_counter()
        response = app.search(case, q, top_k=10, config=config, **extra)
        # "total" is the pipeline's own clock; "app" adds opening the case and choosing models.
        stage_times.setdefault("app", []).append((time.perf_counter() - started) * 1000)
        for stage, ms in response.timings_ms.items():
            stage_times.setdefault(stage, []).append(ms)
    return {stage: percentiles(v) for stage, v in stage_times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--base-chunks", type=int, default=600)
    parser.add_argument("--build-only", action="store_true", help="build the cases, measure nothing")
    parser.add_argument("--configs", default="", help="comma list of configurations (default: all)")
    parser.add_argument("--cache", type=Path, default=REPO / "bench/.cache/latency")
    parser.add_argument(
        "--models-dir", type=Path, default=Path(os.environ.get("CASETRACK_MODELS_DIR", SHARED / "models"))
    )
    args = parser.parse_args()
    app = CaseTrack(resolve_settings(args.cache, args.models_dir, environ={}, memory_mode="full"))
    build_base(app, args.base_chunks)
    qs = questions(args.queries)
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(), "queries": len(qs)}
    configs = {**CONFIGS, WITH_WORDS: CONFIGS["+boost (default)"]}
    if args.configs:
        configs = {k: v for k, v in configs.items() if k in args.configs.split(",")}
    for size in (int(s) for s in args.sizes.split(",")):
        case = build_replica(app, size)
        if args.build_only:
            continue
        for label, config in configs.items():
            result = measure(app, case, qs, config, WORDS if label == WITH_WORDS else None)
            report[f"{size} {label}"] = result
            print(
                f"{size:>7} {label:<16} total p50/p95 {result['total']} ms; "
                + ", ".join(f"{k} {v}" for k, v in result.items() if k != "total"),
                flush=True,
            )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
