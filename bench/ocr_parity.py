"""Retrieval parity: the same questions asked of a document's native text and of its scan (read
by CaseTrack's OCR) find the same passage.

Two pairs, each in two cases built the same way (the document under test plus the same 10 CUAD
contracts as distractors), one with the native version, one with the scan:
  * the US Supreme Court slip opinion: `vector-pdf.pdf` pages 1-2 (its text layer) against
    `image-pdf.pdf` (the same two pages, scanned); 12 questions written from the text below;
  * the two ABBYY-scanned CUAD contracts (PRIMEENERGY..., WESTERN COPPER...): the PDFs as shipped
    (ABBYY's text layer, which is also CUAD's text) against image-only copies rendered at 300 DPI
    and read by CaseTrack's OCR; the CUAD questions about them, gold pages from
    benchmarks/cuad_pdf_page_gold.json.
hit@5: a top-5 result in the document under test on a gold page; both versions are scored the
same way, and a failed search scores as a miss.

Usage: python bench/ocr_parity.py [--cache /tmp/ocr-parity]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402

DATA = REPO.parent / "shared" / "data"
BENCH = DATA / "legal_span_bench"
COURTS = DATA / "legal_docs_us_courts"
ABBYY = ("PRIMEENERGY", "WESTERN COPPER")

SCOTUS_QUESTIONS = [
    ("Which states share water rights under the Red River Compact?", 1),
    ("How is the area the compact governs divided up?", 1),
    ("What share of the water above 3,000 cubic feet per second may one state take in subbasin 5?", 1),
    ("Why could Louisiana not store water during high flow periods?", 1),
    ("What kind of body is the petitioner and whom does it supply with water?", 1),
    ("When was the Tarrant case argued and decided?", 1),
    ("Why did Tarrant sue in federal court at the same time as it applied for the permit?", 2),
    ("How did the District Court and the Tenth Circuit rule?", 2),
    ("How does the OWRB read the equal rights language of section 5.05(b)(1)?", 2),
    ("Under which principles are interstate compacts construed?", 2),
    ("What three things persuaded the Court that the Compact grants no cross-border rights?", 2),
    ("What right do sovereign states have over their navigable waters?", 2),
]


def _distractors() -> list[Path]:
    found = sorted(BENCH.glob("cuad_pdf/**/*.[pP][dD][fF]"), key=lambda p: str(p))
    return [p for p in found if not p.name.upper().startswith(ABBYY)][:10]


def _render_scan(source: Path, out: Path, pages: list[int] | None = None, dpi: int = 300) -> Path:
    """An image-only copy of `source` (its pages rendered at `dpi`, no text layer)."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(source))
    try:
        wanted = pages if pages is not None else list(range(len(doc)))
        images = [doc[i].render(scale=dpi / 72, grayscale=True).to_pil().convert("L") for i in wanted]
    finally:
        doc.close()
    first, *rest = images
    first.save(out, "PDF", resolution=dpi, save_all=True, append_images=rest)
    return out


def _native_pages(source: Path, out: Path, pages: list[int]) -> Path:
    import pypdfium2

    doc, new = pypdfium2.PdfDocument(str(source)), pypdfium2.PdfDocument.new()
    new.import_pages(doc, pages)
    new.save(str(out))
    new.close()
    doc.close()
    return out


def _case(app: CaseTrack, name: str, files: list[Path]) -> None:
    if any(r.name == name for r in app.registry.list()):
        return
    app.create_case(name, "contract", "en")
    started = time.monotonic()
    results = app.ingest(name, files)
    bad = [f"{r.name}: {r.status} {r.error or ''}" for r in results if not r.ok]
    ocr = {r.name: (len(r.ocr_pages), r.ocr_confidence) for r in results if r.ocr_pages}
    print(
        f"  {name}: {len(files)} files in {time.monotonic() - started:.0f} s; OCR'd {ocr}"
        + (f"; not ingested: {bad}" if bad else ""),
        flush=True,
    )


def _cuad_questions(names: set[str]) -> list[tuple[str, str, list[int]]]:
    """(pdf name, query, gold pages) for the CUAD questions about the ABBYY contracts."""
    tests = json.loads((BENCH / "benchmarks/cuad.json").read_text())["tests"]
    gold = json.loads((BENCH / "benchmarks/cuad_pdf_page_gold.json").read_text())["spans"]
    out: dict[int, tuple[str, str, list[int]]] = {}
    for g in gold:
        name = Path(g["pdf"]).name
        if name not in names or not g.get("pages"):
            continue
        pages = list(range(g["pages"][0], g["pages"][1] + 1))
        doc, query, have = out.get(g["test_index"], (name, tests[g["test_index"]]["query"], []))
        out[g["test_index"]] = (doc, query, sorted(set(have + pages)))
    return [out[k] for k in sorted(out)]


def _hit(app: CaseTrack, case: str, query: str, document: str, pages: list[int]) -> bool:
    try:
        hits = app.search(case, query, top_k=5).hits
    except Exception as e:  # a failed search is a miss
        print(f"  search failed in {case}: {e}", flush=True)
        return False
    return any(h.provenance.document == document and h.provenance.page in pages for h in hits)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache", default="/tmp/ocr-parity")
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared" / "models"))
    args = parser.parse_args()
    cache = Path(args.cache)
    files = cache / "files"
    files.mkdir(parents=True, exist_ok=True)
    app = CaseTrack(resolve_settings(cache, args.models_dir, environ={}))
    distractors = _distractors()
    scotus_native = (
        _native_pages(COURTS / "vector-pdf.pdf", files / "tarrant.pdf", [0, 1])
        if not (files / "tarrant.pdf").exists()
        else files / "tarrant.pdf"
    )
    scan_dir = files / "scan"
    scan_dir.mkdir(exist_ok=True)
    scotus_scan = scan_dir / "tarrant.pdf"
    if not scotus_scan.exists():
        scotus_scan.write_bytes((COURTS / "image-pdf.pdf").read_bytes())
    abbyy = [p for p in sorted(BENCH.glob("cuad_pdf/**/*.[pP][dD][fF]")) if p.name.upper().startswith(ABBYY)]
    abbyy_scans = [
        scan_dir / p.name if (scan_dir / p.name).exists() else _render_scan(p, scan_dir / p.name)
        for p in abbyy
    ]
    _case(app, "parity-native", [scotus_native, *abbyy, *distractors])
    _case(app, "parity-scan", [scotus_scan, *abbyy_scans, *distractors])
    questions = [("tarrant.pdf", q, [page]) for q, page in SCOTUS_QUESTIONS]
    questions += _cuad_questions({p.name for p in abbyy})
    rows = []
    for label, subset in (
        ("SCOTUS slip opinion pp. 1-2", questions[: len(SCOTUS_QUESTIONS)]),
        ("ABBYY-scanned CUAD contracts", questions[len(SCOTUS_QUESTIONS) :]),
    ):
        native = sum(_hit(app, "parity-native", q, d, p) for d, q, p in subset)
        scan = sum(_hit(app, "parity-scan", q, d, p) for d, q, p in subset)
        both = sum(
            _hit(app, "parity-native", q, d, p) == _hit(app, "parity-scan", q, d, p) for d, q, p in subset
        )
        rows.append((label, len(subset), native, scan, both))
    print(f"\n{time.strftime('%Y-%m-%d')}: `python bench/ocr_parity.py`\n")
    print("| pair | questions | native hit@5 | scan (OCR) hit@5 | same outcome |")
    print("|---|---|---|---|---|")
    for label, n, native, scan, both in rows:
        print(
            f"| {label} | {n} | {native}/{n} = {native / n:.3f} | {scan}/{n} = {scan / n:.3f} | {both}/{n} |"
        )
    summary: dict[str, Any] = {
        label: {"n": n, "native": native, "scan": scan} for label, n, native, scan, _ in rows
    }
    (cache / "parity.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
