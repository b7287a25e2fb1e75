"""Speed of the exact-match signals: `extract_signals` per query and `boost_scores` over 50 real
2,500-character chunks (CUAD contract, TJDFT judgment, DC Circuit opinion), a few seconds.

The unit tests (tests/test_search_signals.py, tests/test_search_boost.py) keep only generous bounds
that a loaded machine meets; this script prints the figures. Reference on the 2-core dev machine:
extract 0.05-0.55 ms, boost 0.5-1.9 ms (median). A boost median of 15-25 ms means the matcher
regexes lost their literal prefixes (casetrack.search.ranking.boost.Matcher) and scan every position again.
Usage: .venv/bin/python bench/signal_speed.py [--runs N]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.search.query.signals import extract_signals  # noqa: E402
from casetrack.search.ranking.boost import boost_scores  # noqa: E402

DATA = REPO.parent / "shared" / "data"
SOURCES = [  # (file under DATA, an anchor in it)
    ("legal_span_bench/corpus/cuad/ABILITYINC_06_15_2020-EX-4.25-SERVICES AGREEMENT.txt", "Ability Computer"),
    ("lener_br/raw_text/20150110436469APC.txt", "0012843-03.2015.8.07.0001"),
    ("legal_docs_us_courts/extra_from_history/opinion_text.txt", "358 F.2d 508"),
]
EXTRACT_QUERIES = [
    ("en", 'Section 8.1 "termination for convenience" by Acme Corp. after January 5, 2020'),
    ("pt", "art. 5º, inciso IV da CF/88, processo 0001234-56.2020.8.26.0100, João da Silva"),
    ("en", "what is the notice period for termination"),
]
BOOST_QUERIES = [
    ("en", 'Section 8.1 "termination for convenience" 358 F.2d 508 by Acme Corp.'),
    ("pt", "art. 5º, inciso IV da CF/88 no processo 0001234-56.2020.8.26.0100 de João da Silva"),
    ("en", "payments over $1,000,000 signed January 5, 2020"),
]
BUDGET_MS = {"extract": 3.0, "boost": 8.0}  # medians the dev machine stays well under


def candidates() -> list[tuple[str, str]]:
    """50 chunks of 2,500 characters, taken in turn from the three documents."""
    texts = []
    for rel, anchor in SOURCES:
        text = (DATA / rel).read_text(encoding="utf-8")
        at = text.index(anchor)
        texts.append(text[max(0, at - 20000) : at + len(anchor) + 20000])
    return [(str(i), texts[i % 3][(i // 3) * 2500 : (i // 3 + 1) * 2500]) for i in range(50)]


def timed(call: Callable[[], object], runs: int) -> list[float]:
    call()  # compile and cache the regexes once
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def report(stage: str, language: str, query: str, times: list[float]) -> bool:
    median = statistics.median(times)
    ok = median < BUDGET_MS[stage]
    print(
        f"{stage:8} {language}  min {min(times):6.3f}  median {median:6.3f}  max {max(times):6.3f} ms"
        f"  {'ok' if ok else 'OVER ' + str(BUDGET_MS[stage])}  {query[:60]}"
    )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=30, help="timed runs per query (default 30)")
    args = parser.parse_args()
    ok = True
    for language, query in EXTRACT_QUERIES:
        ok &= report(
            "extract", language, query, timed(functools.partial(extract_signals, query, language), args.runs)
        )
    chunks = candidates()
    for language, query in BOOST_QUERIES:
        scoring = functools.partial(boost_scores, extract_signals(query, language), chunks)
        ok &= report("boost", language, query, timed(scoring, args.runs))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
