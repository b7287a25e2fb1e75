"""Retrieval benchmark and ablation harness: legal corpora through the real CaseTrack pipeline.

Each dataset subset (see `bench/retrieval_data.py` for how it is drawn) is staged as files and
ingested with `CaseTrack.ingest` into its own case, then every query is run through
`CaseTrack.search` once per ablation (one `SearchConfig` each):

  cuad         CUAD / LegalBench-RAG, EN: document hit@1/5/10, span recall@1/5/10 (gold characters
               covered by the top-k chunks of the gold contract), span hit@k (any overlap)
  cuad_pdf     original CUAD PDFs, EN: top-1 page accuracy (top hit in the gold PDF, on a gold page)
  contractnli  ContractNLI test, EN, search filtered to the query's NDA: span recall@1/3/5, span hit@k
  acord        ACORD test split, EN, graded 0-4: nDCG@5/10 over distinct documents
  juristcu     JurisTCU judged pool, PT, graded 0-3: nDCG@5/10 over distinct documents

Chunk offsets index CaseTrack's page text, not the file: for TXT they are mapped back to file
offsets by `PageToFile`, and every mapped hit is checked (chunk text == page text slice).
Cases are cached in `--cache` (data dir + staged files + manifest.json); a case's name carries a
hash of its subset, so a changed subset gets a new case and an unchanged one is reused.

Usage:
  .venv/bin/python bench/retrieval.py --quick                     # harness check, tiny subsets
  .venv/bin/python bench/retrieval.py --ablations bm25,dense,hybrid --out bench/.cache/r.json
  .venv/bin/python bench/retrieval.py --datasets cuad --docs 80 --queries 300
  --docs / --queries take one number (every selected dataset) or name=N pairs: cuad=40,acord=700
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shlex
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LANCEDB_LOG", "error")

from bench.metrics import (  # noqa: E402
    Range,
    hit_at_k,
    mean,
    ndcg_at_k,
    overlap_chars,
    percentile,
    reciprocal_rank,
    span_recall,
)
from bench.retrieval_data import DATASETS, LOADERS, Dataset, PageToFile, Query, unique  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.domain import SearchResponse  # noqa: E402

# (docs, queries) per dataset. Defaults: a first build of all five is ~20-25 min of ingest on 2 cores.
DEFAULTS = {
    "cuad": (40, 150),
    "cuad_pdf": (15, 100),
    "contractnli": (40, 200),
    "acord": (800, 30),
    "juristcu": (800, 50),
    "lawyer_en": (25, 999),
    "lawyer_pt": (70, 999),
}
QUICK = {
    "cuad": (3, 15),
    "cuad_pdf": (2, 10),
    "contractnli": (4, 15),
    "acord": (40, 4),
    "juristcu": (40, 6),
    "lawyer_en": (4, 6),
    "lawyer_pt": (4, 6),
}
KS = {
    "cuad": (1, 5, 10),
    "cuad_pdf": (1,),
    "contractnli": (1, 3, 5),
    "acord": (5, 10),
    "juristcu": (5, 10),
    "lawyer_en": (1, 5, 10),
    "lawyer_pt": (1, 5, 10),
}

# The ablation ladder: each "+x" row adds x to the row above it. Every row spells out its lists
# and stages, so it means the same whatever SearchConfig() defaults to ("+boost" is the default;
# E1 passage windows are on in every row but "dense_chunk" and "+boost_nowin").
_ALL = ("bm25", "dense", "sparse", "e7")
_OFF = {"boost": False, "rerank": False, "skip_lists": {}}
_BOOSTED = {"boost": True, "rerank": False, "skip_lists": {}}
ABLATIONS: dict[str, dict[str, Any]] = {
    "bm25": {"lists": ("bm25",), **_OFF},
    "dense_chunk": {"lists": ("dense",), "dense_windows": False, **_OFF},
    "dense": {"lists": ("dense",), **_OFF},
    "bm25_recall_rrf": {"lists": ("bm25", "dense"), "dense_recall": False, **_OFF},
    "hybrid": {"lists": ("bm25", "dense"), **_OFF},
    "+sparse": {"lists": ("bm25", "dense", "sparse"), **_OFF},
    "+e7": {"lists": _ALL, **_OFF},
    "+boost_flat": {"lists": _ALL, "boost_discount_common": False, **_BOOSTED},
    "+boost_nowin": {"lists": _ALL, "dense_windows": False, **_BOOSTED},
    "+boost_chunknames": {"lists": _ALL, "boost_names_by_document": False, **_BOOSTED},
    "+boost": {"lists": _ALL, "boost_discount_common": True, **_BOOSTED},
    # Issue 12's stages: verbatim passages first and the focus list of questions that name their
    # document, each left out of the default; the keyword topic cue (off by default) added.
    "-verbatim": {"lists": _ALL, "boost_discount_common": True, **_BOOSTED, "verbatim": False},
    "+topic": {"lists": _ALL, "boost_discount_common": True, **_BOOSTED, "topic_weight": 2.0},
    "-focus": {"lists": _ALL, "boost_discount_common": True, **_BOOSTED, "focus": False},
    "+heading": {"lists": _ALL, "boost_heading_weight": 0.25, **_BOOSTED},
    "+rerank": {"lists": _ALL, "boost": True, "rerank": True, "skip_lists": {}},
    "+asked1": {"asked_weight": 1.0},
    "+asked2": {"asked_weight": 2.0},
    # Issue 12, third round: the question-alone E1 list of scene-setting queries left out.
    "-question": {"question_weight": 0.0},
    "default": {},  # SearchConfig() as shipped: +boost, and for Portuguese cases without E7
    # Issue 27: a question asking for a standard provision by purpose gets its usual words.
    "-provisions": {"words_provisions": False},
}


def parse_sizes(text: str | None, datasets: list[str]) -> dict[str, int]:
    """`40` (every dataset) or `cuad=40,acord=700`."""
    if not text:
        return {}
    if "=" not in text:
        return {d: int(text) for d in datasets}
    pairs = (item.split("=", 1) for item in text.split(",") if item.strip())
    out = {k.strip(): int(v) for k, v in pairs}
    unknown = set(out) - set(DATASETS)
    if unknown:
        raise SystemExit(f"unknown dataset(s) {sorted(unknown)}; choose from {DATASETS}")
    return out


# --------------------------------------------------------------------------------------------
# Cases: staged files, ingested once, reused while the subset is unchanged
# --------------------------------------------------------------------------------------------


def stage_files(cache: Path, ds: Dataset) -> tuple[str, Path]:
    """The case's name (from a digest of the subset) and its staging folder holding `ds.docs`."""
    digest = hashlib.sha1()
    for name in sorted(ds.docs):
        digest.update(f"{name}\0{hashlib.sha1(ds.docs[name]).hexdigest()}\n".encode())
    case = f"bench-{ds.name}-{digest.hexdigest()[:10]}"
    staging = cache / "staging" / case
    staging.mkdir(parents=True, exist_ok=True)
    for name, data in ds.docs.items():
        path = staging / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    return case, staging


def ensure_case(app: CaseTrack, case: str, ds: Dataset, rebuild: bool) -> list[str]:
    """The case exists (made again with `rebuild`) and holds only files of the subset; returns the
    subset's files it does not hold yet."""
    exists = any(r.name == case for r in app.registry.list())
    if exists and rebuild:
        app.delete_case(case)
        exists = False
    if not exists:
        app.create_case(case, "contract" if ds.language == "en" else "administrative", ds.language)
    have = {d["name"] for d in app.case_summary(case)["documents"]}
    if have - set(ds.docs):
        raise SystemExit(f"case {case} holds documents outside its subset; rerun with --rebuild")
    return sorted(set(ds.docs) - have)


def ingest_missing(app: CaseTrack, case: str, files: list[Path], started: float) -> list[str]:
    """Ingest `files` with a progress line every 25; the failures, one line each."""
    print(f"  ingesting {len(files)} files into {case} ...", flush=True)

    def on_file(i: int, n: int, path: Path) -> None:
        if i and i % 25 == 0:
            el = time.monotonic() - started
            print(f"    {i}/{n} files, {el:.0f} s, eta {el / i * (n - i):.0f} s", flush=True)

    results = app.ingest(case, files, on_file=on_file)
    return [f"{r.name}: {r.status} {r.error or ''}".strip() for r in results if not r.ok]


def build_case(app: CaseTrack, cache: Path, ds: Dataset, rebuild: bool) -> dict[str, Any]:
    """Stage `ds.docs` and make sure the case holds exactly them; returns the manifest entry."""
    case, staging = stage_files(cache, ds)
    missing = ensure_case(app, case, ds, rebuild)
    started = time.monotonic()
    failed = ingest_missing(app, case, [staging / m for m in missing], started) if missing else []
    summary = app.case_summary(case)
    entry = {
        "case": case,
        "dataset": ds.name,
        "language": ds.language,
        "staging": str(staging),
        "documents": summary["document_count"],
        "chunks": summary["chunk_count"],
        "pages": summary["page_count"],
        "ingested_now": len(missing),
        "ingest_seconds": round(time.monotonic() - started, 1),
        "reused": not missing,
        "failed": failed,
        "subset": ds.subset,
        "models": summary.get("embedding_model"),
        "files": sorted(ds.docs),
    }
    manifest_path = cache / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    if missing or case not in manifest:
        manifest[case] = {**entry, "built_at": time.strftime("%Y-%m-%d %H:%M:%S")}
        manifest_path.write_text(json.dumps(manifest, indent=1))
    return entry


def chunk_of(hit: Any) -> Any:
    """A hit's whole-chunk provenance: these metrics score the chunks returned (a hit's own
    `provenance` is its pin-cite, the few lines inside the chunk that match, since issue 12)."""
    return getattr(hit, "chunk_provenance", None) or hit.provenance


class Scorer:
    """Per-query metrics for one dataset; maps TXT chunk offsets to file offsets on the way."""

    def __init__(self, ds: Dataset, staging: Path) -> None:
        self.ds, self.staging, self.ks = ds, staging, KS[ds.name]
        self.maps: dict[str, tuple[str, PageToFile] | None] = {}
        self.checked = self.mismatched = 0

    def _map(self, name: str) -> tuple[str, PageToFile] | None:
        if name not in self.maps:
            from casetrack.parse.options import ParseOptions
            from casetrack.parse.text.parser import parse_text

            path = self.staging / name
            page = parse_text(path, ParseOptions()).pages[0].text
            try:  # decode as the gold was made: UTF-8, no newline translation
                self.maps[name] = (page, PageToFile(path.read_bytes().decode("utf-8"), page))
            except ValueError:
                self.maps[name] = None
        return self.maps[name]

    def file_ranges(self, q: Query, resp: SearchResponse) -> list[Range | None]:
        """Per hit, its file-text range when it is a chunk of the gold document, else None."""
        mapped = self._map(q.gold_doc)
        out: list[Range | None] = []
        for hit in resp.hits:
            p = chunk_of(hit)
            if p.document != q.gold_doc or mapped is None:
                out.append(None)
                continue
            page, to_file = mapped
            self.checked += 1
            if p.page is not None or page[p.char_start : p.char_end] != hit.text:
                self.mismatched += 1
                out.append(None)
                continue
            out.append(to_file.to_file(p.char_start, p.char_end))
        return out

    def file_range(self, name: str, hit: Any) -> Range | None:
        """A TXT hit's range in its file's text (None for other files or a mismatched chunk)."""
        mapped = self._map(name)
        p = chunk_of(hit)
        if mapped is None or p.page is not None or mapped[0][p.char_start : p.char_end] != hit.text:
            self.mismatched += mapped is not None
            return None
        self.checked += 1
        return mapped[1].to_file(p.char_start, p.char_end)

    def oracle(self, app: CaseTrack, case: str) -> dict[str, Any]:
        """Check the mapping on every stored chunk of the gold documents: each chunk's text must be
        its page-text slice, and all chunks of a document together must cover every gold span."""
        store = app.open_case(case)
        try:
            entries = {e.name: e for e in store.documents()}
            ranges: dict[str, list[Range]] = {}
            bad = 0
            for name in sorted({q.gold_doc for q in self.ds.queries}):
                mapped, entry = self._map(name), entries.get(name)
                if mapped is None or entry is None:
                    continue
                rows = store.lance.document_chunks(entry.doc_id, entry.gen).to_pylist()
                bad += sum(mapped[0][r["char_start"] : r["char_end"]] != r["text"] for r in rows)
                ranges[name] = [mapped[1].to_file(r["char_start"], r["char_end"]) for r in rows]
        finally:
            store.close()
        recalls = [span_recall(q.spans, ranges[q.gold_doc]) for q in self.ds.queries if q.gold_doc in ranges]
        return {
            "all_chunks_span_recall": mean(recalls),
            "min": min(recalls, default=math.nan),
            "docs": len(ranges),
            "chunk_text_mismatches": bad,
        }

    def score(self, q: Query, resp: SearchResponse) -> dict[str, float | None]:
        docs = [h.provenance.document for h in resp.hits]
        m: dict[str, float | None] = {}
        if self.ds.kind == "span":
            ranges = self.file_ranges(q, resp)
            for k in self.ks:
                if q.scope is None:
                    m[f"doc_hit@{k}"] = hit_at_k(docs, q.gold_doc, k)
                m[f"span_recall@{k}"] = span_recall(q.spans, [r for r in ranges[:k] if r is not None])
                m[f"span_hit@{k}"] = 1.0 if m[f"span_recall@{k}"] else 0.0
        elif self.ds.kind == "passage":
            gold_docs = set(q.passages)
            ranges = [
                self.file_range(h.provenance.document, h) if h.provenance.document in gold_docs else None
                for h in resp.hits
            ]
            ok = [
                r is not None and overlap_chars(q.passages[h.provenance.document], [r]) > 0
                for h, r in zip(resp.hits, ranges, strict=True)
            ]
            for k in self.ks:
                m[f"hit@{k}"] = 1.0 if any(ok[:k]) else 0.0
            m["mrr@10"] = reciprocal_rank(ok, 10)
            m[f"mrr@10 ({q.kind})"] = m["mrr@10"]
            for k in (1, 5):
                m[f"doc_hit@{k}"] = hit_at_k(docs, gold_docs, k)
        elif self.ds.kind == "page":
            top = resp.hits[0].provenance if resp.hits else None
            m["top1_doc"] = 1.0 if top and top.document == q.gold_doc else 0.0
            page = top.page if top is not None and top.document == q.gold_doc else None
            m["top1_page"] = 1.0 if page is not None and any(a <= page <= b for a, b in q.pages) else 0.0
        else:
            ranked = unique(docs)
            for k in self.ks:
                m[f"ndcg@{k}"] = ndcg_at_k(ranked, q.qrels, k)
        return m


def question_only(text: str) -> str:
    """The question a lawyer would type: LegalBench-RAG queries open with "Consider the <contract>
    between <parties>; <question>", a preamble that BM25 matches all over the contract."""
    if not text.lstrip().lower().startswith("consider"):
        return text
    # "Consider the contract "T" (parties named in it: A; B; C); <question>": parties hold ";".
    head, sep, rest = text.rpartition(");") if "(parties named in it:" in text else text.partition(";")
    return rest.strip() if sep and rest.strip() else text


def run_ablation(
    app: CaseTrack, case: str, ds: Dataset, scorer: Scorer, changes: dict[str, Any], questions: bool = False
) -> dict[str, Any]:
    """All queries of `ds` under one SearchConfig; raises if the config or the first search fails.

    `questions`: send only the question part of LegalBench-RAG style queries."""
    from casetrack.search.ranking.config import SearchConfig

    cfg = SearchConfig().with_(**changes, cache_queries=False)  # each ablation pays its own encoding
    top_k = 20 if ds.kind == "graded" else 10

    def text_of(q: Query) -> str:
        return question_only(q.text) if questions else q.text

    def scoped_to_gold(q: Query) -> bool:
        # Without the preamble the question no longer names its contract ("What is the governing
        # law for this contract?"): the lawyer would search within that contract, so scope to it.
        return not q.scope and bool(q.gold_doc) and text_of(q) != q.text

    def search(q: Query) -> SearchResponse:
        scope = q.gold_doc if scoped_to_gold(q) else q.scope
        return app.search(case, text_of(q), top_k=top_k, documents=[scope] if scope else None, config=cfg)

    search(ds.queries[0])  # warm-up: loads the models this config needs; not timed
    wall: list[float] = []
    per_query: dict[str, dict[str, float | None]] = {}
    stages: Counter[str] = Counter()
    stage_ms: dict[str, list[float]] = {}
    skipped: dict[str, str] = {}
    errors: list[str] = []
    for q in ds.queries:
        t = time.perf_counter()
        try:
            resp = search(q)
        except Exception as e:  # one bad query must not end the run, and it counts as a miss
            errors.append(f"{q.qid}: {type(e).__name__}: {e}")
            resp = SearchResponse(query=text_of(q), case=case)
        wall.append((time.perf_counter() - t) * 1000)
        stages.update(resp.stages_used)
        for stage, ms in resp.timings_ms.items():
            stage_ms.setdefault(stage, []).append(ms)
        skipped.update(resp.stages_skipped)
        m = scorer.score(q, resp)
        if scoped_to_gold(q):  # finding the document was given away
            m = {k: v for k, v in m.items() if not k.startswith(("doc_hit", "top1_doc"))}
        per_query[q.qid] = m
    names = unique(k for m in per_query.values() for k in m)
    wanted = (
        set(cfg.lists_for(ds.language))
        | ({"boost"} if cfg.boost else set())
        | ({"rerank"} if cfg.rerank else set())
    )
    return {
        "config": {k: list(v) if isinstance(v, tuple) else v for k, v in changes.items()},
        "metrics": {n: mean(m.get(n) for m in per_query.values()) for n in names},
        "queries": len(per_query),
        "latency_ms": {
            "p50": percentile(wall, 50),
            "p95": percentile(wall, 95),
            "pipeline_p50": percentile(stage_ms.get("total", []), 50),
            "pipeline_p95": percentile(stage_ms.get("total", []), 95),
            "stages_p50": {k: round(percentile(v, 50), 2) for k, v in stage_ms.items()},
        },
        "wall_ms": wall,
        "stages_used": dict(stages),
        "not_run": sorted(wanted - set(stages)),
        "stages_skipped": skipped,
        "errors": errors,
        "per_query": per_query,
    }


def git_state() -> dict[str, Any]:
    """HEAD and the files changed since (read-only git), to tie results to the pipeline measured."""

    def git(*a: str) -> str:
        done = subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True, timeout=20, check=False)
        return done.stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "changed": git("diff", "--name-only", "HEAD").splitlines()}


def fmt(v: Any) -> str:
    return (
        "-"
        if v is None or (isinstance(v, float) and math.isnan(v))
        else f"{v:.3f}"
        if v <= 1.0
        else f"{v:.0f}"
    )


def print_table(title: str, rows: list[str], cols: list[str], cell: Any) -> None:
    width = max([len(r) for r in rows] + [10])
    print(f"\n{title}\n{'':<{width}}  " + "  ".join(f"{c:>15}" for c in cols))
    for r in rows:
        print(f"{r:<{width}}  " + "  ".join(f"{fmt(cell(r, c)):>15}" for c in cols))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--datasets", default=",".join(DATASETS), help=f"comma list of {DATASETS}")
    parser.add_argument("--ablations", default=",".join(ABLATIONS), help=f"comma list of {list(ABLATIONS)}")
    parser.add_argument("--docs", help="documents per dataset: N or name=N,...")
    parser.add_argument("--queries", help="queries per dataset: N or name=N,...")
    parser.add_argument("--quick", action="store_true", help="tiny subsets to check the harness (< 3 min)")
    parser.add_argument(
        "--cache", default=str(REPO / "bench/.cache"), help="data dir, staged files, manifest"
    )
    parser.add_argument("--rebuild", action="store_true", help="delete and re-ingest the selected cases")
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared/models"))
    parser.add_argument(
        "--memory-mode", default=None, help="full | standard | constrained (default: from RAM)"
    )
    parser.add_argument("--out", help="JSON results (default: <cache>/retrieval_results.json)")
    parser.add_argument(
        "--per-query", action="store_true", help="keep per-query metrics and latencies in the JSON"
    )
    parser.add_argument(
        "--question-only",
        action="store_true",
        help="drop the 'Consider the <contract> between <parties>;' preamble of CUAD/ContractNLI queries",
    )
    return parser.parse_args()


@dataclass
class Run:
    """One run of the harness: its arguments, the app, the report being built and every
    ablation's search latencies over all datasets."""

    args: argparse.Namespace
    app: CaseTrack
    cache: Path
    ablations: list[str]
    report: dict[str, Any]
    all_wall: dict[str, list[float]]

    def ablation(
        self, name: str, entry: dict[str, Any], ds: Dataset, scorer: Scorer, ab: str
    ) -> dict[str, Any] | None:
        """One ablation over one dataset, printed; None when it failed (recorded in the report)."""
        t = time.monotonic()
        try:
            res = run_ablation(self.app, entry["case"], ds, scorer, ABLATIONS[ab], self.args.question_only)
        except Exception as e:  # a stage the pipeline does not have yet
            self.report["failed_ablations"].setdefault(ab, {})[name] = f"{type(e).__name__}: {e}"
            print(f"  {ab}: FAILED {type(e).__name__}: {e}", flush=True)
            return None
        self.all_wall[ab] += res["wall_ms"]
        if not self.args.per_query:
            del res["per_query"], res["wall_ms"]
        note = f" NOT RUN: {res['not_run']} (skipped: {res['stages_skipped']})" if res["not_run"] else ""
        print(
            f"  {ab}: {res['queries']} queries in {time.monotonic() - t:.0f} s, "
            f"p50 {res['latency_ms']['p50']:.0f} ms{note}"
            + (f", {len(res['errors'])} errors: {res['errors'][:2]}" if res["errors"] else ""),
            flush=True,
        )
        return res

    def dataset(self, name: str, n_docs: int, n_queries: int) -> None:
        """One dataset: its case built or reused, every ablation run, its table printed."""
        ds = LOADERS[name](n_docs, n_queries)
        print(f"\n== {name}: {len(ds.docs)} docs, {len(ds.queries)} queries -- {ds.subset}", flush=True)
        entry = build_case(self.app, self.cache, ds, self.args.rebuild)
        how = (
            "reused"
            if entry["reused"]
            else f"ingested {entry['ingested_now']} in {entry['ingest_seconds']} s"
        )
        print(
            f"  case {entry['case']}: {entry['documents']} docs, {entry['chunks']} chunks, {how}"
            + (f", {len(entry['failed'])} failed: {entry['failed'][:3]}" if entry["failed"] else ""),
            flush=True,
        )
        scorer = Scorer(ds, Path(entry["staging"]))
        if ds.kind == "span":
            entry["oracle"] = scorer.oracle(self.app, entry["case"])
            print(f"  offset check, all chunks of the gold documents: {entry['oracle']}", flush=True)
        results: dict[str, Any] = {}
        for ab in self.ablations:
            if (res := self.ablation(name, entry, ds, scorer, ab)) is not None:
                results[ab] = res
        if ds.kind == "span":
            entry["offset_checks"] = offset_checks(scorer)
        entry.pop("files")
        self.report["datasets"][name] = {**entry, "queries": len(ds.queries), "ablations": results}
        cols = list(results)
        metric_rows = unique(m for r in results.values() for m in r["metrics"])
        print_table(
            f"{name} ({entry['documents']} docs, {entry['chunks']} chunks, {len(ds.queries)} queries)",
            metric_rows + ["p50 ms", "p95 ms"],
            cols,
            lambda r, c, res=results: (
                res[c]["metrics"].get(r)
                if r in res[c]["metrics"]
                else res[c]["latency_ms"]["p50" if r == "p50 ms" else "p95"]
            ),
        )


def offset_checks(scorer: Scorer) -> dict[str, Any]:
    """Whether the hits' offsets pointed at their text (span datasets), printed."""
    checks = {
        "hits_checked": scorer.checked,
        "mismatched": scorer.mismatched,
        "unmappable_docs": sorted(k for k, v in scorer.maps.items() if v is None),
    }
    print(f"  {'WARNING ' if scorer.mismatched or checks['unmappable_docs'] else ''}hit offsets: {checks}")
    return checks


def main() -> None:
    args = parse_args()
    started = time.monotonic()
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    ablations = [a.strip() for a in args.ablations.split(",") if a.strip()]
    bad = [d for d in datasets if d not in DATASETS] + [a for a in ablations if a not in ABLATIONS]
    if bad:
        raise SystemExit(f"unknown dataset/ablation: {bad}")
    base = QUICK if args.quick else DEFAULTS
    n_docs = {**{d: base[d][0] for d in datasets}, **parse_sizes(args.docs, datasets)}
    n_queries = {**{d: base[d][1] for d in datasets}, **parse_sizes(args.queries, datasets)}
    cache = Path(args.cache).resolve()
    app = CaseTrack(
        resolve_settings(cache / "data", args.models_dir, environ={}, memory_mode=args.memory_mode)
    )
    report: dict[str, Any] = {
        "command": shlex.join([os.path.relpath(sys.executable, Path.cwd()), *sys.argv]),
        "cwd": str(Path.cwd()),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "cpus": os.cpu_count(),
        "memory_mode": app.pool.tier.value,
        "git": git_state(),
        "datasets": {},
        "failed_ablations": {},
    }
    run = Run(args, app, cache, ablations, report, {a: [] for a in ablations})
    try:
        for name in datasets:
            run.dataset(name, n_docs[name], n_queries[name])
    finally:
        app.close()
    report["latency_ms"] = {
        a: {"p50": percentile(w, 50), "p95": percentile(w, 95), "searches": len(w)}
        for a, w in run.all_wall.items()
        if w
    }
    print_table(
        "latency, all datasets (ms per app.search call)",
        ["p50", "p95"],
        list(report["latency_ms"]),
        lambda r, c: report["latency_ms"][c][r],
    )
    for ab, why in report["failed_ablations"].items():
        print(f"failed: {ab}: {why}")
    report["run_seconds"] = round(time.monotonic() - started, 1)
    out = Path(args.out) if args.out else cache / "retrieval_results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=str))
    print(f"\ncommand: {report['command']}\nrun time: {report['run_seconds']} s; results: {out}")


if __name__ == "__main__":
    main()
