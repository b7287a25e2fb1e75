"""Scanned transcripts (ocr/margin.py, wired in parse/image/ocr_pages.py): the deposition of
tests/transcript_maker.py printed, scanned (200 DPI grey, turned a degree or so, grain and
specks) and read back through `parse_file` with the real tesseract; the Supreme Court transcript
of the pdfplumber test suite rendered to an image-only PDF; and real scans that are no transcript
left exactly as they were read before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image
from rapidfuzz import fuzz

from casetrack.chunk.chunker import chunk_document
from casetrack.domain import ChunkDraft, Page, ParsedDocument
from casetrack.ocr import image_pages, ocr_image, render_pdf_page
from casetrack.ocr.layout import OcrLine
from casetrack.ocr.margin import MIN_NUMBERS, _chain, _trusted
from casetrack.parse import parse_file
from casetrack.parse.bates import with_bates
from casetrack.parse.image.ocr_pages import page_from_ocr
from casetrack.parse.options import ParseOptions
from casetrack.parse.transcript.pages import page_lines
from casetrack.search.pincite.layout import line_starts
from casetrack.search.pincite.provenance import pin_provenance
from tests import transcript_maker as tm
from tests.conftest import DATA, require
from tests.pdf_maker import page_images, scanned_pdf

SCOTUS = DATA / "pdf_robustness/pdfplumber_tests/pdfs/scotus-transcript-p1.pdf"
SCOTUS_LAYOUT = DATA / "pdf_robustness/pdfplumber_tests/comparisons/scotus-transcript-p1.txt"
TESS = DATA / "ocr" / "tesseract_test"
OCRMYPDF = DATA / "ocr" / "ocrmypdf_resources"
SIMILAR = 80  # rapidfuzz ratio: the OCR'd line is the printed one, a misread character or two aside


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")  # what the entry point sets (ocr/engine.py)


def squeeze(text: str) -> str:
    return " ".join(text.split())


def cited(doc: ParsedDocument) -> dict[tuple[int, int], list[str]]:
    """The text of each printed page:line, as parsed (more than one: a line read twice)."""
    out: dict[tuple[int, int], list[str]] = {}
    for page in doc.pages:
        assert len(page.line_pages) == len(page.lines)
        for tp, span in zip(page.line_pages, page.lines, strict=True):
            out.setdefault((tp, span.number), []).append(page.text[span.start : span.end])
    return out


def matched(
    doc: ParsedDocument, pages: tuple[tuple[int, tuple[str, ...]], ...]
) -> list[tuple[int, int, str]]:
    """The printed lines (blank ones aside) found at their own page:line, alone there."""
    got = cited(doc)
    return [
        (n, i, line)
        for n, lines in pages
        for i, line in enumerate(lines, start=1)
        if line.strip()
        and len(got.get((n, i), [])) == 1
        and fuzz.ratio(got[(n, i)][0], squeeze(line)) >= SIMILAR
    ]


def no_margin_numbers(doc: ParsedDocument) -> None:
    for page in doc.pages:
        lines = page_lines(page)
        assert not any(re.match(r"^\d{1,2}(\s|$)", line) for line in lines), lines


@pytest.mark.slow
def test_a_scanned_deposition_cites_its_printed_page_and_line(tmp_path: Path) -> None:
    pages = (tm.COVER, tm.EXCERPT[1])  # the cover (it names the deponent) and printed page 45
    native = tm.deposition_pdf(tmp_path / "native.pdf", pages)
    scan = tm.grey_tiff(tmp_path / "Smith_depo_scan.tif", tm.scanned_images(native, dpi=200))
    doc = parse_file(scan)
    assert doc.transcript == "Smith Dep."
    assert [p.transcript_page for p in doc.pages] == [1, 45]
    expected = [(n, i, line) for n, lines in pages for i, line in enumerate(lines, start=1) if line.strip()]
    assert matched(doc, pages) == expected  # all 44 printed lines, each at its own page:line
    no_margin_numbers(doc)
    for page in doc.pages:  # the running header and the reporter's footer are out of the text
        assert "OSTROWSKI REPORTING" not in page.text and not re.search(r"Page\s+\d", page.text)
    page = doc.pages[1]  # speaker turns are paragraphs, as on the native page
    starts = [page.text[p.start : p.end].split("\n", 1)[0] for p in page.paragraphs]
    assert starts[0] == "routing refrigerated loads to Joliet until further" and len(starts) >= 12


def test_a_scanned_supreme_court_transcript_keeps_its_margin(tmp_path: Path) -> None:
    """A real transcript page, scanned: tesseract alone drops its margin numbers (24 and 25 came
    out as lines of their own, the rest not at all) and the page was no transcript."""
    scan = scanned_pdf(tmp_path / "scotus-scan.pdf", page_images(require(SCOTUS), dpi=300))
    doc = parse_file(scan)
    assert doc.transcript == "Tr."
    printed = {}
    for line in require(SCOTUS_LAYOUT).read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\s+(\d{1,2})\s+(\S.*?)\s*$", line)
        if m and int(m[1]) <= 25:
            printed[int(m[1])] = squeeze(m[2])
    got = cited(doc)
    assert {line for page, line in got} == set(printed)
    same = [n for n, text in printed.items() if fuzz.ratio(got[(1, n)][0], text) >= SIMILAR]
    assert len(same) >= len(printed) - 2, (got, printed)  # the dashed rules of the caption read as noise
    assert "Official - Subject to Final Review" not in doc.pages[0].text
    no_margin_numbers(doc)


def unnumbered(pages: list[tuple[int | None, Image.Image]]) -> tuple[Page, ...]:
    """What the pipeline gave before margin numbers were read: tesseract's reading as it is."""
    return tuple(
        with_bates(
            [
                page_from_ocr(ocr_image(image, "eng", dpi=dpi, line_numbers=False), n)
                for n, (dpi, image) in enumerate(pages, start=1)
            ]
        )
    )


def test_a_real_scan_that_is_no_transcript_is_read_as_before() -> None:
    path = require(TESS / "phototest.tif")
    doc = parse_file(path)
    (scan,) = image_pages(path)
    assert doc.transcript is None and ocr_image(scan.image, "eng", dpi=scan.dpi).margin is None
    assert doc.pages == unnumbered([(scan.dpi, scan.image)])


def test_a_margin_chain_keeps_numbers_in_step_with_their_rows() -> None:
    rows = [(n, 100.0 + 60.0 * n) for n in range(1, 26)]
    misread = [*rows[:9], (4, rows[9][1]), *rows[10:], (3, 2000.0)]  # "10" read as 4, a speck read as 3
    assert _chain(misread, 60.0) == rows[:9] + rows[10:]
    lines = [OcrLine("text", 95.0, (300, int(y) - 15, 900, int(y) + 15)) for _, y in rows]
    assert _trusted(rows, 60.0, lines)
    assert not _trusted(rows[: MIN_NUMBERS - 1], 60.0, lines)  # too few for a transcript page
    assert not _trusted(rows[5:], 60.0, lines)  # starting at 6: no page's margin
    paragraphs = [(n, 100.0 + 600.0 * n) for n in range(1, 12)]  # a contract's numbered paragraphs
    assert not _trusted(paragraphs, 600.0, lines)


# -- the slow tier: a whole scanned deposition, its cites; real scans of other kinds ------------------

PASSAGES = (
    (44, 1, 2),
    (44, 7, 10),
    (44, 17, 20),
    (45, 3, 4),
    (45, 10, 12),
    (45, 17, 18),
    (46, 7, 9),
    (46, 12, 14),
    (47, 5, 7),
    (47, 9, 11),
    (48, 1, 3),
    (48, 18, 19),
)


def passage(drafts: list[ChunkDraft], head: str, tail: str) -> tuple[ChunkDraft, int, int]:
    """The chunk holding the OCR'd lines most like `head` and, after it, `tail`, and the span from
    the start of the one to the end of the other."""
    best: tuple[float, ChunkDraft, int, int] | None = None
    for draft in drafts:
        starts = line_starts(draft.text)
        texts = [draft.text[at:].split("\n", 1)[0] for at in starts]
        for i, text in enumerate(texts):
            for j in range(i, min(i + 6, len(texts))):
                score = min(fuzz.ratio(text, head), fuzz.ratio(texts[j], tail))
                if best is None or score > best[0]:
                    best = score, draft, starts[i], starts[j] + len(texts[j])
    assert best is not None and best[0] >= SIMILAR, (head, tail, best)
    return best[1], best[2], best[3]


@pytest.mark.slow
def test_a_whole_scanned_deposition_pdf_pin_cites_as_printed(tmp_path: Path) -> None:
    native = tm.deposition_pdf(tmp_path / "native.pdf")
    scan = scanned_pdf(tmp_path / "Smith_depo_scan.pdf", tm.scanned_images(native, dpi=200), dpi=200)
    doc = parse_file(scan)
    assert doc.transcript == "Smith Dep."
    assert [p.transcript_page for p in doc.pages] == [n for n, _ in tm.DEPOSITION]
    found = matched(doc, tm.DEPOSITION)
    total = sum(1 for _, lines in tm.DEPOSITION for line in lines if line.strip())
    assert len(found) >= total - 3, sorted(
        set((n, i, line) for n, lines in tm.DEPOSITION for i, line in enumerate(lines, 1) if line.strip())
        - set(found)
    )
    no_margin_numbers(doc)
    drafts = chunk_document(doc)
    for page, first, last in PASSAGES:  # each passage found by its printed words, then pin-cited
        lines = dict(tm.DEPOSITION)[page]
        head, tail = squeeze(lines[first - 1]), squeeze(lines[last - 1])
        chunk, start, end = passage(drafts, head, tail)
        prov = chunk.provenance("Smith_depo_scan.pdf", "d1")
        pin = pin_provenance(
            prov, chunk.text, start, end, list(chunk.line_numbers), None, list(chunk.line_pages)
        )
        assert pin.citation_short() == f"Smith Dep. {page}:{first}-{last}", (page, first, last)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["c02-22.pdf", "multipage.pdf", "skew.pdf"])
def test_real_scanned_pdfs_that_are_no_transcript_are_read_as_before(name: str) -> None:
    path = require(OCRMYPDF / name)
    doc = parse_file(path)
    rendered = [render_pdf_page(path, i, dpi=ParseOptions().ocr_dpi) for i in range(len(doc.pages))]
    assert doc.transcript is None
    assert doc.pages == unnumbered([(r.dpi, r.image) for r in rendered])


@pytest.mark.slow
def test_a_real_scanned_tiff_whose_margin_is_read_and_refused_is_read_as_before() -> None:
    path = require(
        TESS / "8071_093.3B.tif"
    )  # its left strip is inked: the digits pass runs and finds no chain
    doc = parse_file(path)
    scans = [(s.dpi, s.image) for s in image_pages(path)]
    assert doc.transcript is None and doc.pages == unnumbered(scans)
