"""Pin-cite width: how many lines a search result cites, and whether the pin-cite hits the gold span.

Builds (once, cached under `--cache`) a case of the first 40 CUAD PDFs (sorted; the scanned
PRIMEENERGY* / WESTERN COPPER* left out) and the text-layer US court PDFs of
../shared/data/legal_docs_us_courts, with the real models of ../shared/models. Then runs
  * the CUAD questions (benchmarks/cuad.json) whose gold PDF is in the case, gold located on a
    page by benchmarks/cuad_pdf_page_gold.json;
  * questions about the court PDFs written from their text (COURT_QUESTIONS below);
and prints, as a markdown table: median and p90 lines per cited span for the pin-cite and for
the whole chunk, and on CUAD the share of results in the gold document on a gold page (the
"right chunk returned" case) whose pin-cite overlaps the gold span.

Usage: python bench/cite_width.py [--cache /tmp/cite-width-cache] [--top-k 5] [--ingest-only] [--sweep]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.domain import SearchHit  # noqa: E402
from casetrack.search.pincite import span as pincite  # noqa: E402
from casetrack.search.pincite.hit import pin_offsets  # noqa: E402
from casetrack.search.pincite.layout import line_starts  # noqa: E402

SHARED = REPO.parent / "shared"
BENCH = SHARED / "data/legal_span_bench"
COURTS = SHARED / "data/legal_docs_us_courts"
CASE = "cite-width"
SCANNED = ("PRIMEENERGY", "WESTERN COPPER")


FIRST = 0  # --first: which slice of the sorted CUAD PDFs makes the case (a held-out check: 40)


def cuad_pdfs(limit: int = 40) -> list[Path]:
    found = sorted(BENCH.glob("cuad_pdf/**/*.[pP][dD][fF]"), key=lambda p: str(p.relative_to(BENCH)))
    return [p for p in found if not p.name.upper().startswith(SCANNED)][FIRST : FIRST + limit]


def court_pdfs() -> list[Path]:
    folders = [
        COURTS / "recap_documents",
        COURTS / "recap_extract",
        COURTS / "extra_from_history/recap_issues",
    ]
    files = [p for folder in folders for p in sorted(folder.glob("*.pdf"))]
    return files + [COURTS / "vector-pdf.pdf", COURTS / "missouri.pdf"]


def build_case(app: CaseTrack) -> None:
    """Create the case and ingest whatever of its files it does not hold yet."""
    if not any(r.name == CASE for r in app.registry.list()):
        app.create_case(CASE, "contract", "en")
    have = {d["source_path"] for d in app.case_summary(CASE)["documents"]}
    failed_file = app.settings.data_dir / "cite-width-failed.json"
    failed = set(json.loads(failed_file.read_text())) if failed_file.exists() else set()
    missing = [p for p in cuad_pdfs() + court_pdfs() if str(p.resolve()) not in have and p.name not in failed]
    if not missing:
        return
    print(f"ingesting {len(missing)} files ...", flush=True)
    started = time.monotonic()
    results = app.ingest(CASE, missing, on_file=lambda i, n, p: print(f"  {i}/{n} {p.name}", flush=True))
    for r in results:
        if not r.ok:  # scanned (needs OCR) or damaged: not retried on the next run
            print(f"  FAILED {r.name}: {r.status} {r.error or ''}", flush=True)
            failed.add(r.name)
    failed_file.write_text(json.dumps(sorted(failed)))
    print(f"ingested in {time.monotonic() - started:.0f} s", flush=True)


# Questions about the court PDFs, written from their text (document, question).
COURT_QUESTIONS = [
    (
        "ca10_010110462922.pdf",
        "How many days does Liebowitz have to show cause why he should not be suspended?",
    ),
    ("ca10_010110462922.pdf", "What happens if the attorney does not respond to the order to show cause?"),
    ("ca10_010110462922.pdf", "Where can the Plan for Attorney Disciplinary Enforcement be found?"),
    (
        "ca2_1-1.pdf",
        "Within how many days must the Acknowledgment and Notice of Appearance Form be returned?",
    ),
    (
        "ca2_1-1.pdf",
        "What happens if an attorney does not tell the court that his contact information changed?",
    ),
    ("ca2_1-1.pdf", "Which caption does the Second Circuit use in an appeal?"),
    ("ca2_1-1.pdf", "How long until the court's records reflect a contact change made in PACER?"),
    (
        "ca3_003112692106.pdf",
        "When are motions that toll the time to file a notice of appeal considered timely?",
    ),
    ("ca3_003112692106.pdf", "Which forms must counsel for the appellant file in the Steak N Shake appeal?"),
    (
        "ca3_003112692106.pdf",
        "What is the consequence if the appellant misses the filing deadline for the forms?",
    ),
    (
        "ca6_1-3.pdf",
        "What is the filing fee for the petition for review in Island Creek Coal Company v. Hill?",
    ),
    ("ca6_1-3.pdf", "By what date must the appearance forms be filed with the Sixth Circuit?"),
    ("ca6_1-3.pdf", "Who are the respondents in the Island Creek Coal Company petition?"),
    (
        "ca7_3.pdf",
        "Why did the Seventh Circuit order the parties in the FedEx Ground appeal to file a statement?",
    ),
    ("ca7_3.pdf", "When are the parties' statements due in the FedEx Ground employment practices appeal?"),
    ("ca8_.pdf", "What does Qin say about the scope of border searches by CBP?"),
    ("ca8_.pdf", "Is a stolen trade secret contraband under customs laws?"),
    ("ca8_.pdf", "Under which rule did Dr. Xiang submit the letter about Qin?"),
    ("cafc_3.pdf", "Who is the principal attorney for Reliable Contracting Group?"),
    ("cafc_3.pdf", "When was the entry of appearance filed electronically?"),
    ("gov.uscourts.azd.1085839.3.0.pdf", "What does the Bard IVC filters multidistrict litigation involve?"),
    (
        "gov.uscourts.azd.1085839.3.0.pdf",
        "How many cases had been filed when the Bard MDL closed to new cases?",
    ),
    ("gov.uscourts.azd.1085839.3.0.pdf", "Which direct-filed cases are to be transferred to West Virginia?"),
    ("gov.uscourts.azd.1085839.3.0.pdf", "Which case management order set the bellwether selection process?"),
    ("gov.uscourts.cacd.652774.40.0.pdf", "Why is a preliminary injunction warranted against Esteban Leon?"),
    (
        "gov.uscourts.cacd.652774.40.0.pdf",
        "Is Leon allowed to disclose Experian source code to his employer Spireon?",
    ),
    ("gov.uscourts.cacd.652774.40.0.pdf", "Is a bond required for the preliminary injunction?"),
    ("gov.uscourts.cacd.652774.40.0.pdf", "What evidence must Leon preserve?"),
    ("gov.uscourts.cacd.652774.40.0.pdf", "Until when was the temporary restraining order extended?"),
    (
        "gov.uscourts.cand.16711.199.0.pdf",
        "Why did FedEx ask to quash the subpoena for the Snyder deposition transcript?",
    ),
    ("gov.uscourts.cand.16711.199.0.pdf", "Did the court grant the motion to quash the subpoena?"),
    ("gov.uscourts.cand.16711.199.0.pdf", "Why do the plaintiffs say the deposition transcript is relevant?"),
    ("ca1_00117684624.pdf", "Why did the First Circuit dismiss Calvary Chapel's appeal?"),
    ("ca1_00117684624.pdf", "What did Executive Order 28 require of people living in Maine?"),
    ("ca1_00117684624.pdf", "Is the denial of a temporary restraining order ordinarily appealable?"),
    ("ca1_00117684624.pdf", "When does a ruling have the practical effect of denying injunctive relief?"),
    ("ca1_00117684624.pdf", "What did Judge Barron say in his concurrence?"),
    ("ca1_00117684624.pdf", "How many people could gather under Executive Order 14?"),
    (
        "ca5_00516242060.pdf",
        "How much did the City deduct from St. Pierre's paycheck for optional life insurance?",
    ),
    ("ca5_00516242060.pdf", "What are the elements of promissory estoppel under Texas law?"),
    ("ca5_00516242060.pdf", "Why was the claim for supplemental dependent life coverage rejected?"),
    (
        "ca5_00516242060.pdf",
        "Can an employer running an employee benefits program be an agent under the Texas Insurance Code?",
    ),
    ("ca5_00516242060.pdf", "What did Dearborn's final offer to the City of El Paso provide?"),
    ("ca5_00516242060.pdf", "Why did St. Pierre's breach of contract claim fail?"),
    ("ca9_19.pdf", "Why do the appellees ask to stay briefing until Hernandez Roman is decided?"),
    ("ca9_19.pdf", "What extension of time do the appellees ask for their answering brief?"),
    ("ca9_19.pdf", "Which legal issues does the government raise in both Hernandez Roman and Zepeda Rivas?"),
    ("ca9_19.pdf", "What is the government's position on the stay and the extension?"),
    ("ca9_19.pdf", "How many class members at Mesa Verde tested positive for COVID-19?"),
    (
        "gov.uscourts.njd.387907.32.0.pdf",
        "What is the statute of limitations for section 1983 claims in New Jersey?",
    ),
    (
        "gov.uscourts.njd.387907.32.0.pdf",
        "Are official capacity claims for prospective injunctive relief barred?",
    ),
    ("gov.uscourts.njd.387907.32.0.pdf", "Does the PLRA bar compensatory damages without a physical injury?"),
    (
        "gov.uscourts.njd.387907.32.0.pdf",
        "How many times was McCrimmon's legal mail opened outside his presence?",
    ),
    (
        "gov.uscourts.njd.387907.32.0.pdf",
        "When is a prisoner's complaint deemed filed under the mailbox rule?",
    ),
    (
        "gov.uscourts.nysd.413741.11.0.pdf",
        "How many collective bargaining agreements does Hostess have with BCT?",
    ),
    ("gov.uscourts.nysd.413741.11.0.pdf", "Why was Hostess's participation in the B&C Fund terminated?"),
    (
        "gov.uscourts.nysd.413741.11.0.pdf",
        "How much withdrawal liability did the B&C Fund assess against Hostess?",
    ),
    ("gov.uscourts.nysd.413741.11.0.pdf", "What does the doctrine of impossibility excuse?"),
    ("gov.uscourts.nysd.413741.11.0.pdf", "What is the only issue the BCT union raises on appeal?"),
    ("vector-pdf.pdf", "Does the Red River Compact pre-empt the Oklahoma water statutes?"),
    (
        "vector-pdf.pdf",
        "What may states do when the flow at the Arkansas-Louisiana border is above 3,000 CFS?",
    ),
    ("vector-pdf.pdf", "Why is an accounting under the Compact not mandatory?"),
    ("vector-pdf.pdf", "How much did the Dallas-Fort Worth population grow between 2000 and 2010?"),
    ("vector-pdf.pdf", "Where did Tarrant propose to divert water from the Kiamichi River?"),
    ("vector-pdf.pdf", "Do the Oklahoma water statutes violate the Commerce Clause?"),
]

_ALNUM = re.compile(r"[^0-9a-z]+")


def norm_with_map(text: str) -> tuple[str, list[int]]:
    """Lower-case ASCII alphanumerics only, plus the raw offset of each kept character."""
    chars, offsets = [], []
    for i, ch in enumerate(text.lower()):
        if ch.isascii() and ch.isalnum():
            chars.append(ch)
            offsets.append(i)
    return "".join(chars), offsets


def page_texts(app: CaseTrack, doc_id: str, gen: int) -> dict[int, str]:
    """Each page's text rebuilt from its chunks (exact slices of the page text; gaps are blanks)."""
    with app.reading(CASE) as store:
        rows = store.lance.document_chunks(doc_id, gen).to_pylist()
    pages: dict[int, list[str]] = {}
    for r in rows:
        buf = pages.setdefault(int(r["page"] or 0), [])
        if len(buf) < r["char_end"]:
            buf.extend(" " * (r["char_end"] - len(buf)))
        buf[r["char_start"] : r["char_end"]] = list(r["text"])
    return {p: "".join(buf) for p, buf in pages.items()}


def locate(gold: str, page: str) -> tuple[int, int] | None:
    """Page offsets of the gold text (or of its start / end when it runs over the page edge)."""
    target, _ = norm_with_map(gold)
    norm, offsets = norm_with_map(page)
    if len(target) < 8 or not norm:
        return None
    at = norm.find(target)
    if at >= 0:
        return offsets[at], offsets[at + len(target) - 1] + 1
    edge = min(60, len(target))
    at = norm.find(target[:edge])
    if at >= 0:
        return offsets[at], len(page)
    at = norm.find(target[-edge:])
    if at >= 0:
        return 0, offsets[at + edge - 1] + 1
    return None


def cuad_queries(app: CaseTrack) -> list[dict[str, Any]]:
    """CUAD questions whose gold PDF is in the case, each with its gold ranges in page offsets."""
    tests = json.loads((BENCH / "benchmarks/cuad.json").read_text())["tests"]
    gold = json.loads((BENCH / "benchmarks/cuad_pdf_page_gold.json").read_text())["spans"]
    docs = {d["source_path"]: d for d in app.case_summary(CASE)["documents"]}
    with app.reading(CASE) as store:
        gens = {e.doc_id: e.gen for e in store.documents()}
    texts: dict[str, dict[int, str]] = {}
    queries: dict[int, dict[str, Any]] = {}
    for g in gold:
        doc = docs.get(str((BENCH / g["pdf"]).resolve()))
        if doc is None or not g.get("pages"):
            continue
        test = tests[g["test_index"]]
        snippet = next(s for s in test["snippets"] if s["span"] == g["span"])
        text = (BENCH / "corpus" / snippet["file_path"]).read_text(encoding="utf-8")[
            g["span"][0] : g["span"][1]
        ]
        doc_id = doc["document_id"]
        if doc_id not in texts:
            texts[doc_id] = page_texts(app, doc_id, gens[doc_id])
        q = queries.setdefault(g["test_index"], {"query": test["query"], "doc": doc_id, "gold": []})
        for page in range(g["pages"][0], g["pages"][1] + 1):
            found = locate(text, texts[doc_id].get(page, ""))
            if found:
                q["gold"].append((page, *found))
    return [q for _, q in sorted(queries.items())]


def span_lines(hit: SearchHit, pinned: bool) -> int:
    """Lines of the chunk's text the citation covers (the pin-cite's, or the whole chunk's)."""
    starts = line_starts(hit.text)
    a, b = pin_offsets(hit) if pinned else (0, len(hit.text))
    first = max(i for i, s in enumerate(starts) if s <= a)
    last = max(i for i, s in enumerate(starts) if s <= max(b - 1, a))
    return last - first + 1


def count_overlap(
    overlap: dict[str, int], hit: SearchHit, gold: list[tuple[int, int, int]], rank: int
) -> None:
    """Count a result in the gold document: on a gold page ("page"), and with a chunk holding
    at least 80% of a gold span ("chunk"); and whether its pin-cite overlaps a gold span."""
    chunk = hit.chunk_provenance or hit.provenance
    pin = hit.provenance
    on_page = [(a, b) for page, a, b in gold if page == chunk.page]
    if not on_page:
        return
    hits_gold = any(pin.char_start < b and a < pin.char_end for a, b in on_page)
    held = any((min(b, chunk.char_end) - max(a, chunk.char_start)) >= 0.8 * (b - a) for a, b in on_page)
    for kind, counted in (("page", True), ("chunk", held)):
        for suffix in ("", "@1") if rank == 0 else ("",):
            if counted:
                overlap[kind + suffix] += 1
                overlap[kind + suffix + "_pin"] += int(hits_gold)


def p90(values: list[int]) -> int:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] if ordered else 0


def run(app: CaseTrack, top_k: int, limit: int | None) -> dict[str, Any]:
    """Every question through search; lines per result and overlap with the gold on CUAD."""
    names = {d["name"]: d["document_id"] for d in app.case_summary(CASE)["documents"]}
    cuad = cuad_queries(app)[:limit]
    court: list[dict[str, Any]] = [
        {"query": q, "doc": names.get(name), "gold": []} for name, q in COURT_QUESTIONS if name in names
    ]
    widths: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    overlap: dict[str, int] = defaultdict(int)
    started = time.monotonic()
    for kind, queries in (("cuad", cuad), ("court", court)):
        for q in queries:
            hits = app.search(CASE, q["query"], top_k=top_k).hits
            for rank, hit in enumerate(hits):
                for key in (kind, "all") + ((f"{kind}@1", "all@1") if rank == 0 else ()):
                    widths[key]["pin"].append(span_lines(hit, True))
                    widths[key]["chunk"].append(span_lines(hit, False))
                if hit.provenance.document_id == q["doc"]:
                    count_overlap(overlap, hit, q["gold"], rank)
    return {
        "widths": widths,
        "overlap": overlap,
        "queries": {"cuad": len(cuad), "court": len(court)},
        "seconds": round(time.monotonic() - started, 1),
    }


def table(result: dict[str, Any], top_k: int) -> str:
    rows = [
        "| results | n | pin-cite lines: median | p90 | chunk lines: median | p90 |",
        "|---|---|---|---|---|---|",
    ]
    labels = {
        "cuad": f"CUAD PDFs, top {top_k}",
        "court": f"US court PDFs, top {top_k}",
        "all": f"all, top {top_k}",
        "cuad@1": "CUAD PDFs, top 1",
        "court@1": "US court PDFs, top 1",
        "all@1": "all, top 1",
    }
    for key, label in labels.items():
        w = result["widths"].get(key)
        if not w:
            continue
        pin, chunk = w["pin"], w["chunk"]
        rows.append(
            f"| {label} | {len(pin)} | {statistics.median(pin):g} | {p90(pin)} | "
            f"{statistics.median(chunk):g} | {p90(chunk)} |"
        )
    o = result["overlap"]

    def share(key: str) -> str:
        return f"{o[key + '_pin'] / o[key]:.3f} ({o[key + '_pin']}/{o[key]})" if o.get(key) else "-"

    rows += [
        "",
        f"| CUAD results in the gold document | top {top_k}: pin-cite overlaps the gold span | top 1 |",
        "|---|---|---|",
        f"| on a gold page | {share('page')} | {share('page@1')} |",
        f"| chunk holds >= 80% of a gold span | {share('chunk')} | {share('chunk@1')} |",
    ]
    return "\n".join(rows)


def sweep(app: CaseTrack, top_k: int, limit: int | None) -> None:
    """Pin-cite width against overlap with the gold for other widen_lines / neighbour settings
    (a single sentence is cut to MAX_LINES = 6 lines in all of them)."""
    saved = (pincite.WIDEN_LINES, pincite.MAX_NEIGHBOURS, pincite.NEIGHBOUR_SHARE)
    rows = [
        "| widen_lines | neighbours | share | median lines | p90 | overlap (chunk holds gold) |",
        "|---|---|---|---|---|---|",
    ]
    for setting in ((6, 1, 0.6), (6, 2, 0.25), (6, 4, 0.05), (8, 4, 0.05), (12, 4, 0.05), (16, 6, 0.05)):
        pincite.WIDEN_LINES, pincite.MAX_NEIGHBOURS, pincite.NEIGHBOUR_SHARE = setting
        result = run(app, top_k, limit)
        pin, o = result["widths"]["all"]["pin"], result["overlap"]
        rows.append(
            f"| {setting[0]} | {setting[1]} | {setting[2]} | {statistics.median(pin):g} | {p90(pin)} | "
            f"{o['chunk_pin'] / max(o['chunk'], 1):.3f} |"
        )
    pincite.WIDEN_LINES, pincite.MAX_NEIGHBOURS, pincite.NEIGHBOUR_SHARE = saved
    print("\n".join(rows) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache", default="/tmp/cite-width-cache", help="data directory reused between runs")
    parser.add_argument("--models-dir", default=str(SHARED / "models"))
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="at most this many CUAD questions")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="the case takes the sorted CUAD PDFs from this one (0; 40 for a held-out slice)",
    )
    parser.add_argument("--ingest-only", action="store_true")
    parser.add_argument(
        "--sweep", action="store_true", help="also the width / overlap trade-off of other settings"
    )
    args = parser.parse_args()
    global FIRST
    FIRST = args.first
    app = CaseTrack(resolve_settings(Path(args.cache), args.models_dir, environ={}))
    build_case(app)
    if args.ingest_only:
        return
    if args.sweep:
        sweep(app, args.top_k, args.limit)
    result = run(app, args.top_k, args.limit)
    summary = app.case_summary(CASE)
    print(
        f"{time.strftime('%Y-%m-%d')}: `python bench/cite_width.py --top-k {args.top_k}`; case of "
        f"{summary['document_count']} documents ({summary['page_count']} pages, {summary['chunk_count']} chunks); "
        f"{result['queries']['cuad']} CUAD + {result['queries']['court']} court questions in {result['seconds']} s\n"
    )
    print(table(result, args.top_k))


if __name__ == "__main__":
    main()
