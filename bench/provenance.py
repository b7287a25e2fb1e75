"""Provenance benchmark: do stored chunks cite the right page (and lines) for CUAD gold spans?

Ingests original CUAD PDFs (../shared/data/legal_span_bench/cuad_pdf) through the real
pipeline, then for every gold span of `benchmarks/cuad_pdf_page_gold.json` on those files:
  * finds the stored chunk(s) whose text contains the span (alphanumeric-only match, as the
    gold was built), and checks that the chunk's page lies in the gold page range;
  * for spans inside one chunk, checks that the chunk's line range contains the span's lines
    (lines from the parser's page layout).

Usage: python bench/provenance.py [--limit 40] [--models-dir DIR] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.parse.options import ParseOptions  # noqa: E402
from casetrack.parse.pdf.parser import parse_pdf  # noqa: E402

SHARED = REPO.parent / "shared"
BENCH = SHARED / "data/legal_span_bench"
_ALNUM = re.compile(r"[^0-9a-z]+")


def norm_with_map(text: str) -> tuple[str, list[int]]:
    """Lower-case alphanumerics only, plus the raw offset of each kept character."""
    chars, offsets = [], []
    for i, ch in enumerate(text.lower()):
        if ch.isascii() and ch.isalnum():
            chars.append(ch)
            offsets.append(i)
    return "".join(chars), offsets


def load_spans(pdfs: set[str]) -> list[dict[str, Any]]:
    gold = json.loads((BENCH / "benchmarks/cuad_pdf_page_gold.json").read_text())["spans"]
    tests = json.loads((BENCH / "benchmarks/cuad.json").read_text())["tests"]
    spans = []
    for g in gold:
        if g["pdf"] not in pdfs or not g.get("pages"):
            continue
        test = tests[g["test_index"]]
        snippet = next(s for s in test["snippets"] if s["span"] == g["span"])
        text = (BENCH / "corpus" / snippet["file_path"]).read_text(encoding="utf-8")[
            g["span"][0] : g["span"][1]
        ]
        spans.append({**g, "text": text})
    return spans


@dataclass
class Tally:
    """The counts and the misses of a run."""

    stats: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    misses: list[str] = field(default_factory=list)
    layouts: dict[str, Any] = field(default_factory=dict)  # parsed PDFs by document id


def lines_hold(tally: Tally, entry: Any, chunk: dict[str, Any], target: str) -> bool:
    """Whether the chunk's line range holds the span: the span located inside the chunk, mapped to
    page offsets, its lines asked of the parser's layout."""
    norm, offsets = norm_with_map(chunk["text"])
    at = norm.index(target)
    a = chunk["char_start"] + offsets[at]
    b = chunk["char_start"] + offsets[at + len(target) - 1]
    if entry.doc_id not in tally.layouts:
        tally.layouts[entry.doc_id] = parse_pdf(Path(entry.source_path or ""), ParseOptions())
    page = tally.layouts[entry.doc_id].pages[chunk["page_index"]]
    la, lb = page.line_at(a), page.line_at(b)
    return bool(la and lb and chunk["line_start"] <= la.number and lb.number <= chunk["line_end"])


def page_in_one_chunk(tally: Tally, entry: Any, containing: list[dict[str, Any]], target: str) -> int:
    """The page of the first chunk holding the whole span."""
    tally.stats["in_one_chunk"] += 1
    chunk = containing[0]
    if len(containing) > 1 and len({c["page"] for c in containing}) > 1:
        tally.stats["ambiguous"] += 1
    if lines_hold(tally, entry, chunk, target):
        tally.stats["lines_ok"] += 1
    return int(chunk["page"])


def page_across_chunks(
    tally: Tally, span: dict[str, Any], chunks: list[dict[str, Any]], target: str
) -> int | None:
    """Longer than a chunk or across a chunk boundary: the first page whose text, rebuilt from its
    chunks (chunks are exact slices of the page text), holds the span; None when none does."""
    by_page: dict[int, str] = {}
    for c in sorted(chunks, key=lambda c: (c["page_index"], c["char_start"])):
        text = by_page.get(c["page"], "")
        by_page[c["page"]] = (
            text
            + " " * max(0, c["char_start"] - len(text))
            + c["text"][max(0, len(text) - c["char_start"]) :]
        )
    found = [p for p, text in by_page.items() if target[:200] in norm_with_map(text)[0]]
    if not found:
        tally.stats["not_found"] += 1
        tally.misses.append(f"not found: {span['pdf'].split('/')[-1][:50]} pages {span['pages']}")
        return None
    tally.stats["across_chunks"] += 1
    return found[0]


def check_span(tally: Tally, store: Any, doc_by_path: dict[str | None, Any], span: dict[str, Any]) -> None:
    """One gold span: located in the stored chunks of its PDF, its page (and lines) checked."""
    entry = doc_by_path.get(str((BENCH / span["pdf"]).resolve()))
    if entry is None:
        tally.stats["doc_not_ingested"] += 1
        return
    tally.stats["spans"] += 1
    chunks = store.lance.document_chunks(entry.doc_id, entry.gen).to_pylist()
    target, _ = norm_with_map(span["text"])
    if len(target) < 8:
        tally.stats["too_short"] += 1
        return
    containing = [c for c in chunks if target in norm_with_map(c["text"])[0]]
    if containing:
        page: int | None = page_in_one_chunk(tally, entry, containing, target)
    else:
        page = page_across_chunks(tally, span, chunks, target)
    if page is None:
        return
    first, last = span["pages"]
    if first <= page <= last:
        tally.stats["page_ok"] += 1
    else:
        tally.misses.append(f"wrong page: {span['pdf'].split('/')[-1][:50]} gold {span['pages']}")


def report(tally: Tally, pdfs: list[str], results: list[Any], ingest_s: float) -> None:
    stats, failed = tally.stats, [r for r in results if not r.ok]
    pages = sum(r.pages for r in results)
    located = stats["in_one_chunk"] + stats["across_chunks"]
    print(
        f"PDFs: {len(pdfs)} ({len(failed)} failed), pages: {pages}, chunks: {sum(r.chunks for r in results)}"
    )
    print(f"ingest: {ingest_s:.1f} s total, {pages / ingest_s:.2f} pages/s")
    print(f"gold spans on these PDFs: {stats['spans']} (too short to match: {stats['too_short']})")
    print(f"located in stored chunks: {located} ({stats['not_found']} not found)")
    print(f"right page: {stats['page_ok']}/{located} = {stats['page_ok'] / max(located, 1):.4f}")
    print(
        f"inside one chunk: {stats['in_one_chunk']}; line range contains span: "
        f"{stats['lines_ok']}/{stats['in_one_chunk']} = {stats['lines_ok'] / max(stats['in_one_chunk'], 1):.4f}"
    )
    print(f"ambiguous (same text on several pages): {stats['ambiguous']}")
    for r in failed:
        print(f"  failed: {r.name}: {r.error}")
    for m in tally.misses[:20]:
        print(f"  {m}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=40, help="number of PDFs (171 = all)")
    parser.add_argument("--models-dir", default=str(SHARED / "models"))
    parser.add_argument("--data-dir", default=None, help="default: a temporary directory")
    args = parser.parse_args()

    gold = json.loads((BENCH / "benchmarks/cuad_pdf_page_gold.json").read_text())["spans"]
    pdfs = sorted({g["pdf"] for g in gold})[: args.limit]
    spans = load_spans(set(pdfs))
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="ct-prov-"))
    app = CaseTrack(resolve_settings(data_dir, args.models_dir, environ={}))
    app.create_case("CUAD provenance", "contract", "en")

    t0 = time.monotonic()
    results = app.ingest("CUAD provenance", [BENCH / p for p in pdfs])
    ingest_s = time.monotonic() - t0

    store = app.open_case("CUAD provenance")
    doc_by_path = {e.source_path: e for e in store.documents()}
    tally = Tally()
    for span in spans:
        check_span(tally, store, doc_by_path, span)
    store.close()
    report(tally, pdfs, results, ingest_s)


if __name__ == "__main__":
    main()
