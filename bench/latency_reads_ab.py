"""A/B of the candidate reads in one process: beside query encoding (a worker thread, the
default) vs one after another, on the cases `bench/latency.py` built, warm, alternating.

Usage: python bench/latency_reads_ab.py [--cache bench/.cache/latency] [--queries 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.metrics import floor_rank_percentile, median  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.search.ranking.config import SearchConfig  # noqa: E402
from casetrack.search.ranking.runtime import Inline  # noqa: E402

CUAD = REPO.parent / "shared/data/legal_span_bench/benchmarks/cuad.json"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache", type=Path, default=REPO / "bench/.cache/latency")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    app = CaseTrack(resolve_settings(args.cache, REPO.parent / "shared/models", environ={}))
    tests = json.loads(CUAD.read_text())["tests"]
    questions = list(dict.fromkeys(t["question"] for t in tests))[: args.queries]
    configs = {
        "bm25+e1": SearchConfig.of(lists=("bm25", "dense"), boost=False, rerank=False, cache_queries=False),
        "default": SearchConfig.of(cache_queries=False),
    }
    runtime = app.search_runtime
    threaded = runtime.io
    for case in sorted(app.registry.list(), key=lambda c: c.name):
        if case.name == "Latency base":
            continue
        for name, cfg in configs.items():
            for q in questions[:10]:
                app.search(case.id, q, config=cfg)  # warm: indexes, row-id map, models
            totals: dict[str, list[float]] = {"threaded": [], "inline": []}
            for rnd in range(args.rounds):
                for mode in ("threaded", "inline") if rnd % 2 == 0 else ("inline", "threaded"):
                    runtime.io = threaded if mode == "threaded" else Inline()
                    totals[mode] += [
                        app.search(case.id, q, config=cfg).timings_ms["total"] for q in questions
                    ]
            runtime.io = threaded
            for mode, xs in totals.items():
                print(
                    f"{case.name:15s} {name:8s} {mode:9s} p50 {median(xs):6.1f} "
                    f"p95 {floor_rank_percentile(xs, 95):6.1f} ms"
                )


if __name__ == "__main__":
    main()
