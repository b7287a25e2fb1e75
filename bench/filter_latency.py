"""Legal-metadata filters at 10k and 100k chunks: latency beside the unfiltered search, and
whether every result is inside the filter (issue 15).

The chunks (text, provenance and every stored embedding) are replicated from an ingested case
(`--source`: a data dir and a case name, e.g. one `bench/blind.py` built) into cases of
`--doc-chunks` chunks per document, through the real commit protocol; each document gets legal
metadata the way ingest stores it (`meta["legal"]`): one of 8 types, one of 10 tribunals, a date
over ten years, one of 5 tags, a process number. Replicas get the indexes ingest would give them
(`LanceTables.maintain`). Then each query runs unfiltered and under filters of different
selectivity; the filters are applied before ranking (BM25 inside the query, LanceDB `doc_id IN`
prefilter), so the top-k must all match.

Usage: python bench/filter_latency.py --source /tmp/blind3:blind-contracts_txt [--sizes 10000,100000]
       [--cache /tmp/filter-latency] [--queries 30]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LANCEDB_LOG", "error")

from bench.metrics import median, percentile  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.search.filters import SearchFilters  # noqa: E402
from casetrack.search.legal_filters import legal_filters  # noqa: E402
from casetrack.search.ranking.config import SearchConfig  # noqa: E402
from casetrack.store import lance_tables as lt  # noqa: E402

MODELS = REPO.parent / "shared" / "models"
TYPES = ("contract", "amendment", "nda", "complaint", "motion", "order", "judgment", "acordao")
TRIBUNALS = ("STF", "STJ", "TST", "TJSP", "TJRJ", "TJMG", "TRF1", "TRF3", "TRT2", "TJRS")
TAGS = ("urgente", "revisar", "cliente-acme", "cliente-beta", "arquivo")
QUERIES = [
    "notice required to terminate the agreement",
    "limitation of liability",
    "governing law and jurisdiction",
    "indemnification of third party claims",
    "confidential information disclosure",
    "payment terms and late fees",
    "assignment without consent",
    "exclusivity and non-competition",
    "warranty disclaimer",
    "force majeure",
    "insurance coverage requirements",
    "intellectual property ownership",
    "audit rights and records",
    "renewal term and expiration",
    "dispute resolution arbitration",
    "most favored customer pricing",
    "minimum purchase commitment",
    "change of control",
    "non-solicitation of employees",
    "liquidated damages",
    "termination for convenience",
    "survival of obligations",
    "anti-assignment clause",
    "source code escrow",
    "revenue sharing percentage",
    "volume discounts",
    "territory restrictions",
    "price adjustments",
    "delivery and acceptance",
    "compliance with laws",
]


def legal_of(i: int) -> dict[str, Any]:
    return {
        "doc_type": TYPES[i % len(TYPES)],
        "tribunals": [TRIBUNALS[i % len(TRIBUNALS)]],
        "doc_date": f"{2015 + i % 10}-{1 + i % 12:02d}-{1 + i % 28:02d}",
        "tags": [TAGS[i % len(TAGS)]],
        "process_numbers": [f"{i:07d}-00.2023.8.26.0100"],
        "languages": ["en"],
        "fields": {},
        "parties": [],
    }


def build(app: CaseTrack, source: tuple[Path, str], size: int, per_doc: int) -> str:
    name = f"Filters {size}"
    if name in {c.name for c in app.registry.list()}:
        return name
    src = CaseTrack(resolve_settings(source[0], MODELS, environ={}))
    store = src.open_case(source[1])
    try:
        table = store.lance.table(lt.CHUNKS)
        assert table is not None
        rows, models = table.to_arrow(), store.models()
    finally:
        store.close()
        src.close()
    app.create_case(name)
    started = time.perf_counter()
    with app.writing(name) as case:
        case.record_models(models)
        made = doc = 0
        while made < size:
            n = min(per_doc, size - made)
            part = rows.take([(made + i) % rows.num_rows for i in range(n)])
            part = part.set_column(part.schema.get_field_index("seq"), "seq", [list(range(n))])
            doc_id = f"replica-{doc:06d}"
            case.commit_document(
                doc_id,
                f"{doc_id}.txt",
                None,
                doc_id,
                part,
                {
                    "name": f"{doc_id}.txt",
                    "source_path": None,
                    "sha256": doc_id,
                    "file_type": "text",
                    "size_bytes": 0,
                    "page_count": 1,
                    "chunk_count": n,
                    "needs_ocr_pages": [],
                    "ingested_at": time.time(),
                    "embed_model": None,
                    "embed_models": [],
                    "warnings": [],
                    "legal": legal_of(doc),
                },
            )
            made, doc = made + n, doc + 1
        chunks = case.lance.table(lt.CHUNKS)
        assert chunks is not None
        chunks.optimize()
        print(f"{name}: {doc} documents; indexes: {case.lance.maintain() or 'none (flat scan)'}", flush=True)
    print(f"{name}: built in {time.perf_counter() - started:.0f} s", flush=True)
    return name


FILTERS: dict[str, dict[str, Any]] = {
    "none": {},
    "doc type (1/8 of documents)": {"doc_types": ["judgment"]},
    "tribunal (1/10)": {"tribunals": ["TJ-SP"]},
    "date range (1/10: one year)": {"date_from": "2019-01-01", "date_to": "2019-12-31"},
    "type + tag (1/40)": {"doc_types": ["motion"], "tags": ["urgente"]},
    "process number (1 document)": {"processes": ["00000420020238260100"]},
}


def run(app: CaseTrack, case: str, queries: list[str]) -> list[tuple[str, float, float, int, int]]:
    cfg = SearchConfig.of(cache_queries=False)
    store = app.open_case(case)
    try:
        meta = {e.name: (e.meta.get("legal") or {}) for e in store.documents()}
    finally:
        store.close()
    out = []
    for label, values in FILTERS.items():
        legal = legal_filters(**values)
        from casetrack.search.legal_filters import matches

        allowed = {name for name, m in meta.items() if matches({"legal": m}, legal)}
        times, outside, short = [], 0, 0
        app.search(case, queries[0], top_k=10, config=cfg, filters=SearchFilters(legal=legal))  # warm
        for q in queries:
            response = app.search(case, q, top_k=10, config=cfg, filters=SearchFilters(legal=legal))
            times.append(response.timings_ms["total"])
            outside += sum(h.provenance.document not in allowed for h in response.hits)
            short += len(response.hits) < 10
        out.append(
            (label, round(median(times), 1), round(percentile(times, 95, "nearest"), 1), outside, short)
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--source", required=True, help="DATA_DIR:CASE of an ingested case whose chunks are replicated"
    )
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--doc-chunks", type=int, default=50, help="chunks per replicated document")
    parser.add_argument("--cache", default="/tmp/filter-latency")
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args()
    data_dir, case = args.source.split(":", 1)
    app = CaseTrack(resolve_settings(Path(args.cache), MODELS, environ={}))
    queries = QUERIES[: args.queries]
    for size in (int(s) for s in args.sizes.split(",")):
        name = build(app, (Path(data_dir), case), size, args.doc_chunks)
        print(f"\n{name} ({args.doc_chunks} chunks per document), {len(queries)} queries, top 10, warm:\n")
        print("| filter | p50 ms | p95 ms | results outside the filter | queries with < 10 results |")
        print("|---|---|---|---|---|")
        for label, p50, p95, outside, short in run(app, name, queries):
            print(f"| {label} | {p50} | {p95} | {outside} | {short} |")
    app.close()


if __name__ == "__main__":
    main()
