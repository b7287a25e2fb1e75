"""PDF parsing on real files: layout (columns, lines, paragraphs), needs-OCR pages, errors."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from casetrack.domain import ExtractionMethod, FileType, ParagraphKind, ParsedDocument
from casetrack.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    NoTextError,
    ParseError,
    ScanNotReadError,
)
from casetrack.parse.options import ParseOptions
from casetrack.parse.pdf import layout as pdf_layout
from casetrack.parse.pdf import parser as pdf_module
from casetrack.parse.pdf.chars import Word, clean_text
from casetrack.parse.pdf.columns import reading_blocks
from casetrack.parse.pdf.parser import parse_pdf, pdf_page_count
from tests.conftest import DATA, require
from tests.layout_contract import assert_page_consistent

ROBUST = DATA / "pdf_robustness"
PLUMBER = ROBUST / "pdfplumber_tests" / "pdfs"
BENCH = DATA / "legal_span_bench"
COURTS = DATA / "legal_docs_us_courts"

LINKPLUS = "cuad_pdf/Part_I/Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf"


def flat(text: str) -> str:
    """Page text as one line: hyphenated words and dash-broken numbers rejoined, whitespace
    collapsed ("adip-\niscing" → "adipiscing", "2018–\n23" → "2018–23")."""
    return " ".join(text.replace("-\n", "").replace("–\n", "–").split())


def alnum(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


# --------------------------------------------------------------------------------------------
# real documents
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def linkplus() -> ParsedDocument:
    return parse_pdf(require(BENCH / LINKPLUS), ParseOptions())


def test_cuad_pdf_pages_match_manifest(linkplus: ParsedDocument) -> None:
    manifest = json.loads((BENCH / "cuad_pdf_manifest.json").read_text())
    expected = next(m["pages"] for m in manifest if m["pdf"] == LINKPLUS)
    assert linkplus.file_type is FileType.PDF
    assert linkplus.page_count == expected == len(linkplus.pages)
    assert [p.number for p in linkplus.pages] == list(range(1, expected + 1))
    assert pdf_page_count(BENCH / LINKPLUS) == expected
    assert all(p.extraction_method is ExtractionMethod.NATIVE and not p.needs_ocr for p in linkplus.pages)
    for page in linkplus.pages:
        assert_page_consistent(page)


def test_cuad_gold_sentences_are_on_their_gold_pages(linkplus: ParsedDocument) -> None:
    gold = json.loads((BENCH / "benchmarks/cuad_pdf_page_gold.json").read_text())["spans"]
    tests = json.loads((BENCH / "benchmarks/cuad.json").read_text())["tests"]
    pages = [alnum(p.text) for p in linkplus.pages]
    checked = 0
    for g in gold:
        if g["pdf"] != LINKPLUS or not g.get("pages"):
            continue
        snippet = next(s for s in tests[g["test_index"]]["snippets"] if s["span"] == g["span"])
        source = (BENCH / "corpus" / snippet["file_path"]).read_text(encoding="utf-8")
        target = alnum(source[g["span"][0] : g["span"][1]])
        first, last = g["pages"]
        if first != last or len(target) < 20:
            continue
        found = [i + 1 for i, text in enumerate(pages) if target in text]
        assert found and found[0] == first, (g["span"], g["pages"], found)
        checked += 1
    assert checked >= 3


def test_cuad_paragraphs_and_headings(linkplus: ParsedDocument) -> None:
    page = linkplus.pages[0]
    paragraphs = {page.text[p.start : p.end]: p.kind for p in page.paragraphs}
    assert paragraphs.get("RECITALS") is ParagraphKind.HEADING
    recital = next(t for t in paragraphs if t.startswith("WHEREAS, LKPL has developed"))
    assert paragraphs[recital] is ParagraphKind.BODY
    assert recital.count("\n") == 2  # three visual lines, one paragraph
    # Citation: the line holding a phrase is found by offset.
    at = page.text.index("hardware manufacturing capacities")
    line = page.line_at(at)
    assert line is not None and page.text[line.start : line.end].startswith("with hardware manufacturing")


def test_federal_register_columns_are_not_interleaved() -> None:
    doc = parse_pdf(require(PLUMBER / "federal-register-2020-17221.pdf"), ParseOptions())
    assert len(doc.pages) == 15
    for page in doc.pages:
        assert_page_consistent(page)
    text = flat(doc.pages[0].text)
    # Sentences running down the middle and the right column of a three-column page.
    assert (
        "Since AD 2018–23–51 was issued, the agency has determined that final corrective action is "
        "necessary to address the unsafe condition." in text
    )
    assert (
        "CBI is commercial or financial information that is both customarily and actually treated "
        "as private by its owner." in text
    )
    # The left column's boxed notice is read before the middle column starts.
    assert text.index("rule making prior to the adoption of the final rules.") < text.index(
        "AGENCY: Federal Aviation"
    )


def test_latex_two_columns_under_a_full_width_title() -> None:
    doc = parse_pdf(
        require(ROBUST / "py-pdf_sample-files/026-latex-multicolumn/multicolumn.pdf"), ParseOptions()
    )
    page = doc.pages[0]
    assert_page_consistent(page)
    text = flat(page.text)
    assert text.startswith("Two-Column Document with Lorem Ipsum Your Name")
    assert (
        "Lorem ipsum dolor sit amet, consectetuer adipiscing elit. Ut purus elit, vestibulum ut, placerat ac, "
        "adipiscing vitae, felis. Curabitur dictum gravida mauris." in text
    )
    # Whole left column, then the right one.
    assert text.index("Vivamus viverra fermentum felis.") < text.index("Phasellus adipiscing semper elit.")
    assert page.paragraphs[0].kind is ParagraphKind.HEADING
    # Page 3 holds a table with narrow cells: its rows stay rows, not columns.
    assert "Austria 8.9 83,879 Vienna German" in doc.pages[2].text.split("\n")


def test_scotus_transcript_keeps_its_numbered_lines() -> None:
    doc = parse_pdf(require(PLUMBER / "scotus-transcript-p1.pdf"), ParseOptions())
    page = doc.pages[0]
    assert_page_consistent(page)
    lines = [page.text[ln.start : ln.end] for ln in page.lines]
    assert "1 IN THE SUPREME COURT OF THE UNITED STATES" in lines
    assert "12 The above-entitled matter came on for oral" in lines
    assert "13 argument before the Supreme Court of the United States" in lines
    assert lines.index("12 The above-entitled matter came on for oral") + 1 == lines.index(
        "13 argument before the Supreme Court of the United States"
    )


def test_rotated_page_reads_as_lines() -> None:
    doc = parse_pdf(require(PLUMBER / "nics-background-checks-2015-11-rotated.pdf"), ParseOptions())
    lines = doc.pages[0].text.split("\n")
    assert "NICS Firearm Background Checks" in lines
    assert any(line.startswith("Alabama 18,870 23,022") for line in lines)


@pytest.mark.slow
def test_scanned_pages_inside_a_text_pdf_are_flagged_without_ocr_and_read_with_it() -> None:
    doc = parse_pdf(require(COURTS / "vector-pdf.pdf"), ParseOptions(ocr_languages=None))
    assert doc.needs_ocr_pages == [29, 30]
    for page in doc.pages[28:]:
        assert page.needs_ocr and page.extraction_method is ExtractionMethod.NONE
        assert page.text == "" and not page.paragraphs
    assert any(w.startswith("p. 29:") and "OCR" in w for w in doc.warnings)
    assert "TARRANT REGIONAL WATER" in doc.pages[0].text
    read = parse_pdf(require(COURTS / "vector-pdf.pdf"), ParseOptions())
    assert read.needs_ocr_pages == [] and read.pages[0].extraction_method is ExtractionMethod.NATIVE
    appendix = read.pages[29]  # a map with its legend, scanned
    assert (
        appendix.extraction_method is ExtractionMethod.OCR
        and "Tarrant Regional Water District" in appendix.text
    )
    assert appendix.ocr_confidence is not None and len(appendix.line_confidences) == len(appendix.lines)


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------


def test_password_protected() -> None:
    path = require(PLUMBER / "password-example.pdf")
    with pytest.raises(EncryptedFileError) as err:
        parse_pdf(path, ParseOptions())
    assert err.value.message == "password-example.pdf is password-protected."
    assert err.value.hint and "--password" in err.value.hint and "qpdf --decrypt" in err.value.hint
    with pytest.raises(EncryptedFileError, match="password given"):
        parse_pdf(path, ParseOptions(password="wrong"))
    doc = parse_pdf(path, ParseOptions(password="test"))
    assert len(doc.pages) == 4
    assert "Backup4all" in doc.pages[0].text


def test_owner_password_only_opens_without_password() -> None:
    for name in ("r2-owner-password.pdf", "r4-owner-password.pdf", "r6-owner-password.pdf"):
        doc = parse_pdf(require(ROBUST / "pypdf_resources/encryption" / name), ParseOptions())
        assert "pdf encryption test password" in flat(doc.pages[0].text)


@pytest.mark.parametrize("path", [PLUMBER / "empty.pdf", COURTS / "empty.pdf"], ids=["plumber", "courts"])
def test_zero_byte_file(path: Path) -> None:
    with pytest.raises(EmptyFileError, match="empty"):
        parse_pdf(require(path), ParseOptions())


@pytest.mark.slow
def test_an_image_only_pdf_is_read_by_ocr_or_says_why_not() -> None:
    with pytest.raises(ScanNotReadError) as err:
        parse_pdf(require(COURTS / "image-pdf.pdf"), ParseOptions(ocr_languages=None))
    assert (
        "none of its 2 pages has a text layer" in err.value.message
        and "OCR is turned off" in err.value.message
    )
    with pytest.raises(ScanNotReadError) as err:
        parse_pdf(require(COURTS / "image-pdf.pdf"), ParseOptions(ocr_languages="eng+xyz"))
    assert err.value.hint and "tesseract-ocr-xyz" in err.value.hint
    doc = parse_pdf(require(COURTS / "image-pdf.pdf"), ParseOptions())
    assert [p.extraction_method for p in doc.pages] == [ExtractionMethod.OCR] * 2
    assert "TARRANT REGIONAL WATER DIST. v. HERRMANN" in doc.pages[1].text
    assert all(p.ocr_confidence and p.ocr_confidence > 90 for p in doc.pages)


def test_a_garbage_text_layer_is_ocrd() -> None:
    # Every glyph is an unmapped (cid:N) code: the page goes to OCR (Arabic read as English:
    # a confidence that says not to trust it).
    with pytest.raises(NoTextError, match="scanned"):
        parse_pdf(require(ROBUST / "pdfjs_subset/complex_ttf_font.pdf"), ParseOptions(ocr_languages=None))
    doc = parse_pdf(require(ROBUST / "pdfjs_subset/complex_ttf_font.pdf"), ParseOptions())
    assert doc.pages[0].extraction_method is ExtractionMethod.OCR
    assert doc.pages[0].ocr_confidence is not None and doc.pages[0].ocr_confidence < 50


@pytest.mark.parametrize(
    "name",
    [
        "issue7665.pdf",
        "issue6108.pdf",
        "issue18986.pdf",
        "issue1293r.pdf",
        "issue5599.pdf",
        "pdfjsbad1586.pdf",
        "xref_command_missing.pdf",
    ],
)
def test_malformed_pdfjs_files_parse_or_fail_cleanly(name: str) -> None:
    path = ROBUST / "pdfjs_subset" / name
    if not path.exists():
        pytest.skip(f"test data missing: {path}")
    try:
        doc = parse_pdf(path, ParseOptions())
    except (CorruptFileError, NoTextError) as e:
        assert e.hint and "\n" not in e.message
    else:
        assert doc.pages


def test_a_failing_page_is_left_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pdf_layout.layout_page  # what the parser calls, until the patch below
    calls = {"n": 0}

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise ValueError("boom")
        return real(*args, **kwargs)

    monkeypatch.setattr(pdf_module, "layout_page", flaky)
    doc = parse_pdf(require(BENCH / LINKPLUS), ParseOptions())
    assert doc.pages[1].text == "" and doc.pages[1].extraction_method is ExtractionMethod.NONE
    assert doc.pages[2].text
    assert any(w.startswith("p. 2: could not be read (boom)") for w in doc.warnings)


# --------------------------------------------------------------------------------------------
# geometry on synthetic words
# --------------------------------------------------------------------------------------------


def _text_lines(x0: float, top: float, n: int, words: int = 7, word_width: float = 30.0) -> list[Word]:
    out = []
    for i in range(n):
        for j in range(words):
            x = x0 + j * (word_width + 3)
            out.append(Word(x, top + i * 12, x + word_width, top + i * 12 + 10, f"w{i}_{j}", 10.0, False))
    return out


def test_aligned_paragraph_gaps_do_not_interleave_columns() -> None:
    title = [Word(200, 40, 400, 52, "TITLE", 12.0, True)]
    left = _text_lines(50, 80, 5) + _text_lines(50, 160, 5)  # gap between paragraphs at y≈140
    right = _text_lines(320, 80, 5) + _text_lines(320, 160, 5)  # the same gap
    blocks = reading_blocks(title + left + right)
    order = [w for block in blocks for w in block]
    assert order[0].text == "TITLE"
    left_ids = {id(w) for w in left}
    firsts_right = min(i for i, w in enumerate(order) if id(w) not in left_ids and w.text != "TITLE")
    assert all(id(w) in left_ids for w in order[1:firsts_right])
    assert len(order) == 1 + len(left) + len(right)


def test_table_with_narrow_cells_is_not_split_into_columns() -> None:
    rows = []
    for i in range(8):
        top = 100 + i * 14
        rows += [
            Word(50, top, 110, top + 10, f"Name{i}", 10.0, False),
            Word(300, top, 330, top + 10, f"{i}.5", 10.0, False),
            Word(400, top, 440, top + 10, f"{i},000", 10.0, False),
        ]
    assert len(reading_blocks(rows)) == 1


def test_cid_codes_are_stripped() -> None:
    assert clean_text("Agree(cid:12)ment(cid:3)") == "Agreement"


# --------------------------------------------------------------------------------------------
# robustness corpus
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    # The small files (~180 of 263, every kind of error); every file of the folder goes through
    # `casetrack ingest-folder` in the slow tier (tests/test_robustness_ingest.py).
    ("max_bytes", "at_least"),
    [pytest.param(50_000, 100, id="under-50KB", marks=pytest.mark.slow)],
)
def test_every_robustness_pdf_parses_or_raises_a_parse_error(max_bytes: int | None, at_least: int) -> None:
    files = sorted(require(ROBUST).rglob("*.pdf"))
    assert len(files) > 200
    files = [p for p in files if max_bytes is None or p.stat().st_size < max_bytes]
    outcomes: dict[str, int] = {}
    started = time.monotonic()
    for path in files:
        try:
            doc = parse_pdf(path, ParseOptions())
        except ParseError as e:
            assert e.message and "\n" not in e.message
            kind = type(e).__name__
        else:
            assert doc.pages
            kind = "parsed"
        outcomes[kind] = outcomes.get(kind, 0) + 1
    print(f"{len(files)} PDFs in {time.monotonic() - started:.1f} s: {outcomes}")
    assert outcomes.get("parsed", 0) > at_least


def test_bytes_before_the_pdf_header_are_skipped(tmp_path: Path) -> None:
    """A real court filing starts with "%%EOF" before "%PDF-" (qpdf and Acrobat open it; pdfminer
    read its offsets from byte 0 and found no /Root)."""
    source = require(DATA / "legal_docs_us_courts" / "missouri.pdf")
    doc = parse_pdf(source, ParseOptions())
    assert len(doc.pages) == 5 and "St. Charles County" in doc.pages[0].text
    prefixed = tmp_path / "prefixed.pdf"
    clean = source.read_bytes()[source.read_bytes().find(b"%PDF-") :]
    prefixed.write_bytes(b"From: scanner@example.org\r\n\r\n" + clean)
    assert [p.text for p in parse_pdf(prefixed, ParseOptions()).pages] == [p.text for p in doc.pages]
    assert pdf_page_count(prefixed) == 5
