"""Page view: do the highlight boxes land on the cited lines? (issue 28)

A case is built from real files of ../shared/data (CUAD contract PDFs, US court PDFs, scanned
PDFs and a scanned image); pin-cites are drawn from it (a seeded sample: on each page with text,
one to four consecutive stored lines, as a search result cites them); each is shown through the
app's page view (`CaseTrack.page_view`), and its highlight boxes are checked against the cited
lines' characters as another reader finds them on the page:

* a page with a text layer: poppler (`pdftotext -bbox-layout`), another PDF engine than the
  pdfplumber/pdfminer that CaseTrack reads;
* a scan without one: tesseract's word boxes read straight from the page drawn at 300 DPI (no
  turn, no deskew, no line grouping of CaseTrack's).

The stored page's words are matched to that reader's words in order (difflib over folded words);
a cited line's characters are its matched words' boxes. A pin-cite is **on target** when every
cited line has at least 90% of its matched words' centres inside a highlight box and no word of
another line is under a highlight (more than 30% of that word's box covered). Pin-cites whose
lines that reader does not see (fewer than half the words matched) are counted apart.

    .venv/bin/python -m bench.page_view [--cites 240] [--cuad 14] [--seed 7] [--json out.json]

tests/test_page_view.py runs `score_cite` on a small case in the default tier.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MODELS = REPO.parent / "shared" / "models"
CASE = "Page view bench"
CUAD_DIR = DATA / "legal_span_bench" / "cuad_pdf"
COURTS = DATA / "legal_docs_us_courts"
SCANS = [
    COURTS / "image-pdf.pdf",  # a Supreme Court slip opinion, scanned (2 pages)
    COURTS / "image-pdf-2.pdf",
    DATA / "ocr" / "ocrmypdf_resources" / "skew.pdf",  # a skewed scan
    DATA / "ocr" / "tesseract_test" / "phototest.tif",  # an image file
]
COURT_PDFS = [
    COURTS / "recap_documents" / "ca5_00516242060.pdf",
    COURTS / "recap_documents" / "ca2_1-1.pdf",
    COURTS / "extra_from_history" / "recap_issues" / "gov.uscourts.cand.16711.199.0.pdf",
    COURTS / "recap_extract" / "gov.uscourts.cacd.652774.40.0.pdf",
    COURTS / "missouri.pdf",
]
CENTRE_SHARE = 0.9  # of a cited line's words whose centre a highlight must hold
STRAY_SHARE = 0.3  # of another line's word box a highlight may not cover
PAD = 1.0  # points: a box edge this close is on it (rounding, glyph bearings)

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class WordBox:
    key: str  # folded word
    box: tuple[float, float, float, float]  # x0, top, x1, bottom in the page view's frame


@dataclass
class CiteScore:
    document: str
    page: int | None
    lines: tuple[int, ...]
    source: str  # text_layer | ocr
    on_target: bool = False
    measurable: bool = True
    stray: bool = False
    missed_lines: list[int] = field(default_factory=list)
    seconds: float = 0.0


def _fold_words(text: str) -> list[str]:
    from casetrack.quote.fold import fold

    return [k for k in (fold(w).text for w in _WORD.findall(text)) if k]


def poppler_words(path: Path, page: int) -> tuple[list[WordBox], float, float]:
    """Every word poppler finds on page `page` (1-based), in points from the crop box's top left."""
    out = subprocess.run(
        ["pdftotext", "-bbox-layout", "-f", str(page), "-l", str(page), str(path), "-"],
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode("utf-8", "replace")
    xml = re.sub(r"<!DOCTYPE[^>]*>", "", out)
    root = ET.fromstring(xml)
    ns = {"h": "http://www.w3.org/1999/xhtml"}
    words: list[WordBox] = []
    width = height = 0.0
    for pg in root.iter("{http://www.w3.org/1999/xhtml}page"):
        width, height = float(pg.get("width", 0)), float(pg.get("height", 0))
        for w in pg.iterfind(".//h:word", ns):
            box = tuple(float(w.get(k, 0)) for k in ("xMin", "yMin", "xMax", "yMax"))
            for key in _fold_words(w.text or ""):
                words.append(WordBox(key, box))  # type: ignore[arg-type]
    return words, width, height


def tesseract_words(path: Path, index: int, file_type: str, languages: str = "eng") -> list[WordBox]:
    """Tesseract's words on the page drawn at 300 DPI (an image file: as it is), straight from
    its TSV: in points for a PDF (pixels for an image file)."""
    import pytesseract

    from casetrack.ocr import image_pages, render_pdf_page

    if file_type == "image":
        scan = next(s for s in image_pages(path) if s.index == index)
        image, scale = scan.image, 1.0
    else:
        rendered = render_pdf_page(path, index, dpi=300)
        image, scale = rendered.image, 72.0 / rendered.dpi
    data = pytesseract.image_to_data(
        image, lang=languages, config="--psm 3", output_type=pytesseract.Output.DICT
    )
    words: list[WordBox] = []
    for text, conf, left, top, w, h in zip(
        data["text"], data["conf"], data["left"], data["top"], data["width"], data["height"], strict=True
    ):
        if float(conf) < 0 or not str(text).strip():
            continue
        box = (left * scale, top * scale, (left + w) * scale, (top + h) * scale)
        for key in _fold_words(str(text)):
            words.append(WordBox(key, box))
    return words


def line_words(stored: Sequence[str], reader: Sequence[WordBox]) -> list[list[WordBox]]:
    """For each stored line, the reader's words matched to its words (in order, difflib)."""
    keys: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(stored):
        for w in _fold_words(text):
            keys.append(w)
            owner.append(i)
    matcher = difflib.SequenceMatcher(None, keys, [w.key for w in reader], autojunk=False)
    out: list[list[WordBox]] = [[] for _ in stored]
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            out[owner[block.a + k]].append(reader[block.b + k])
    return out


def _inside(point: tuple[float, float], box: Sequence[float]) -> bool:
    return box[0] - PAD <= point[0] <= box[2] + PAD and box[1] - PAD <= point[1] <= box[3] + PAD


def _covered(word: Sequence[float], box: Sequence[float]) -> float:
    w = max(0.0, min(word[2], box[2]) - max(word[0], box[0]))
    h = max(0.0, min(word[3], box[3]) - max(word[1], box[1]))
    area = max((word[2] - word[0]) * (word[3] - word[1]), 1e-6)
    return w * h / area


def score_cite(
    lines: Sequence[tuple[str, bool]], highlights: Sequence[Sequence[float]], reader: Sequence[WordBox]
) -> tuple[bool, bool, list[int]]:
    """(measurable, stray, indices of cited lines missed) for one pin-cite: `lines` are the
    page's stored lines (text, cited?) in order, `highlights` the view's boxes, `reader` the
    other reader's words."""
    matched = line_words([t for t, _ in lines], reader)
    missed: list[int] = []
    measurable = True
    for i, ((text, cited), words) in enumerate(zip(lines, matched, strict=True)):
        if not cited:
            continue
        expected = len(_fold_words(text))
        if expected and len(words) < 0.5 * expected:
            measurable = False
            continue
        centres = [((w.box[0] + w.box[2]) / 2, (w.box[1] + w.box[3]) / 2) for w in words]
        held = sum(any(_inside(c, h) for h in highlights) for c in centres)
        if centres and held < CENTRE_SHARE * len(centres):
            missed.append(i)
    stray = any(
        _covered(w.box, h) > STRAY_SHARE
        for (_text, cited), words in zip(lines, matched, strict=True)
        if not cited
        for w in words
        for h in highlights
    )
    return measurable, stray, missed


def _files(cuad: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    pdfs = sorted(p for p in CUAD_DIR.rglob("*") if p.suffix.lower() == ".pdf")
    small = [p for p in pdfs if p.stat().st_size < 400_000]
    chosen = rng.sample(small, min(cuad, len(small)))
    # The two CUAD scans with an ABBYY text layer (read by OCR or by their layer, as ingest decides).
    chosen += [p for p in pdfs if p.name.startswith(("PRIMEENERGY", "WESTERN COPPER")) and p not in chosen][
        :1
    ]
    return [p for p in (*chosen, *COURT_PDFS, *SCANS) if p.exists()]


Candidate = tuple[str, int, int, int, bool]  # doc id, page index, first and last line index, scanned?


def candidates(app: Any, seed: int) -> list[Candidate]:
    """One to four consecutive stored lines on each page with text (four cites on a scanned page:
    scans are few), the scanned pages' cites first, each group in a seeded order."""
    from casetrack.view.page import page_rows, stored_page

    rng = random.Random(seed)
    out: list[Candidate] = []
    with app.reading(CASE) as store:
        for entry in store.documents():
            for index in range(int(entry.meta.get("page_count") or 1)):
                page = stored_page(page_rows(store, entry, index))
                if page is None or not page.lines:
                    continue
                scanned = page.extraction_method == "ocr"
                for _ in range(4 if scanned else 1):
                    first = rng.randrange(len(page.lines))
                    last = min(len(page.lines) - 1, first + rng.randrange(4))
                    out.append((entry.doc_id, index, first, last, scanned))
    rng.shuffle(out)
    out.sort(key=lambda c: not c[4])
    return out


def reader_words(entry: Any, index: int, boxes_from: str | None) -> list[WordBox]:
    """The other reader's words of a page: poppler's where the PDF has a text layer, else tesseract's."""
    path = Path(str(entry.source_path))
    ftype = str(entry.meta.get("file_type"))
    if boxes_from == "text_layer":
        return poppler_words(path, index + 1)[0]
    pop = poppler_words(path, index + 1)[0] if ftype == "pdf" else []
    return pop if len(pop) > 20 else tesseract_words(path, index, ftype)


def score_one(
    app: Any, entry: Any, cand: Candidate, readers: dict[tuple[str, int, str], list[WordBox]]
) -> CiteScore:
    """Show one pin-cite through the app and score its highlight."""
    from casetrack.view.page import page_rows, stored_page
    from casetrack.view.targets import ViewRequest

    doc_id, index, first, last, _scanned = cand
    with app.reading(CASE) as store:
        page = stored_page(page_rows(store, entry, index))
    assert page is not None
    a, b = page.lines[first].start, page.lines[last].end
    t0 = time.perf_counter()
    view = app.page_view(CASE, ViewRequest(document=doc_id, page_index=index, char_start=a, char_end=b))
    seconds = time.perf_counter() - t0
    cited = tuple(ln.number for ln in view.lines if ln.cited)
    score = CiteScore(entry.name, view.page, cited, view.boxes_from or "none", seconds=seconds)
    if view.kind != "image":
        score.measurable = False
        return score
    key = (doc_id, index, view.boxes_from or "")
    if key not in readers:
        readers[key] = reader_words(entry, index, view.boxes_from)
    lines = [(ln.text, ln.cited) for ln in view.lines]
    highlights = [list(h.rounded()) for h in view.highlights]
    measurable, stray, missed = score_cite(lines, highlights, readers[key])
    score.measurable, score.stray = measurable, stray
    score.missed_lines = [view.lines[i].number for i in missed]
    score.on_target = measurable and not stray and not missed
    return score


def run(cites: int, cuad: int, seed: int) -> dict[str, object]:
    from casetrack.app import CaseTrack
    from casetrack.config import resolve_settings

    root = Path(tempfile.mkdtemp(prefix="ct-pageview-"))
    try:
        models = root / "models"
        models.mkdir()
        (models / "multilingual-e5-small-enpt").symlink_to(MODELS / "multilingual-e5-small-enpt")
        app = CaseTrack(resolve_settings(root / "home", models, environ={}))
        app.create_case(CASE, "contract", "en")
        files = _files(cuad, seed)
        started = time.perf_counter()
        results = app.ingest(CASE, files)
        ingest_s = time.perf_counter() - started
        failed = [(Path(r.path).name, r.error) for r in results if r.status != "ingested"]
        with app.reading(CASE) as store:
            entries = {e.doc_id: e for e in store.documents()}
        readers: dict[tuple[str, int, str], list[WordBox]] = {}
        scores = [score_one(app, entries[c[0]], c, readers) for c in candidates(app, seed)[:cites]]
        app.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return summary(scores, ingest_s, [p.name for p in files], failed)


def summary(
    scores: list[CiteScore], ingest_s: float, files: list[str], failed: list[tuple[str, str | None]]
) -> dict[str, object]:
    def part(items: list[CiteScore]) -> dict[str, object]:
        measured = [s for s in items if s.measurable]
        on = sum(s.on_target for s in measured)
        times = [s.seconds for s in items]
        return {
            "cites": len(items),
            "measured": len(measured),
            "on_target": on,
            "share_on_target": round(on / len(measured), 4) if measured else None,
            "stray": sum(s.stray for s in measured),
            "missed": sum(bool(s.missed_lines) for s in measured),
            "view_s_median": round(statistics.median(times), 3) if times else None,
            "view_s_max": round(max(times), 3) if times else None,
        }

    return {
        "files": files,
        "failed_ingest": failed,
        "ingest_s": round(ingest_s, 1),
        "all": part(scores),
        "text_layer": part([s for s in scores if s.source == "text_layer"]),
        "ocr": part([s for s in scores if s.source == "ocr"]),
        "off_target": [
            {
                "document": s.document,
                "page": s.page,
                "lines": s.lines,
                "source": s.source,
                "stray": s.stray,
                "missed": s.missed_lines,
            }
            for s in scores
            if s.measurable and not s.on_target
        ][:30],
        "unmeasured": [
            {"document": s.document, "page": s.page, "lines": s.lines, "source": s.source}
            for s in scores
            if not s.measurable
        ][:30],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cites", type=int, default=240)
    parser.add_argument("--cuad", type=int, default=14, help="CUAD PDFs in the case")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    out = run(args.cites, args.cuad, args.seed)
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
