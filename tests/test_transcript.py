"""Deposition and hearing transcripts (parse/transcript/, parse/pdf/condensed.py): real files
made on the spot (tests/transcript_maker.py: a stamped, line-numbered deposition PDF, the same
condensed four pages to a sheet, a court reporter's .txt) and the Supreme Court transcript of the
pdfplumber test suite, read through `parse_file` and the parser's child process; their chunks'
page:line cites; and real documents that are no transcript left exactly as they were."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pdfplumber
import pytest

from casetrack.chunk.chunker import chunk_document
from casetrack.domain import ParsedDocument
from casetrack.parse import parse_file
from casetrack.parse.bates import with_bates
from casetrack.parse.isolated import IsolatedParser
from casetrack.parse.options import ParseOptions
from casetrack.parse.pdf.chars import dedupe_chars, words_from_chars
from casetrack.parse.pdf.condensed import condensed_blocks
from casetrack.parse.pdf.parser import parse_pdf
from casetrack.parse.transcript.pages import page_lines, with_transcripts
from casetrack.search.pincite.layout import line_starts
from casetrack.search.pincite.provenance import pin_provenance
from tests import transcript_maker as tm
from tests.conftest import DATA, require

SCOTUS = DATA / "pdf_robustness/pdfplumber_tests/pdfs/scotus-transcript-p1.pdf"
SCOTUS_LAYOUT = DATA / "pdf_robustness/pdfplumber_tests/comparisons/scotus-transcript-p1.txt"
# Real documents that are no transcript: a CUAD contract, a US court opinion, an order on pleading
# paper (lines numbered 1-28 in the margin: not a transcript, left as parsed).
NOT_TRANSCRIPTS = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_I/Franchise/RgcResourcesInc_20151216_8-K_EX-10.3_9372751_EX-10.3_Franchise "
    "Agreement.pdf",
    DATA / "legal_docs_us_courts/recap_documents/ca10_010110462922.pdf",
    DATA / "legal_docs_us_courts/extra_from_history/recap_issues/gov.uscourts.cand.16711.199.0.pdf",
)
NO_OCR = ParseOptions(ocr_languages=None)


def squeeze(text: str) -> str:
    return " ".join(text.split())


def printed_lines(doc: ParsedDocument) -> list[tuple[int, int, str]]:
    """(transcript page, printed line, text) of every line of the document, in reading order."""
    out = []
    for page in doc.pages:
        assert len(page.line_pages) == len(page.lines)
        out += [
            (tp, span.number, page.text[span.start : span.end])
            for tp, span in zip(page.line_pages, page.lines, strict=True)
        ]
    return out


def expected(pages: tuple[tuple[int, tuple[str, ...]], ...]) -> list[tuple[int, int, str]]:
    """What the maker printed, blank lines aside."""
    return [
        (n, i, squeeze(line)) for n, lines in pages for i, line in enumerate(lines, start=1) if line.strip()
    ]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("transcripts")
    return {
        "deposition": tm.deposition_pdf(root / "Smith_depo.pdf"),
        "condensed": tm.condensed_pdf(root / "Smith_condensed.pdf"),
        "hearing": tm.hearing_txt(root / "hearing_2023-06-14.txt"),
    }


@pytest.fixture(scope="module")
def parsed(made: dict[str, Path]) -> dict[str, ParsedDocument]:
    return {name: parse_file(path) for name, path in made.items()}


def test_deposition_lines_are_the_printed_ones_without_margin_numbers_headers_or_footers(
    parsed: dict[str, ParsedDocument],
) -> None:
    doc = parsed["deposition"]
    assert doc.transcript == "Smith Dep."
    assert printed_lines(doc) == expected(tm.DEPOSITION)
    for i, page in enumerate(doc.pages, start=1):
        assert page.bates == tm.bates(i)  # read before the footer left the text
        assert page.number == i and page.transcript_page == tm.DEPOSITION[i - 1][0]
        assert not re.search(r"(?m)^\d{1,2} ", page.text)  # no margin number left in front of a line
        for furniture in (f"Page {page.transcript_page}", tm.FOOTER, tm.bates(i)):
            assert furniture not in page.text
    # Speaker turns are paragraphs: "Q." and "A." and "MR. PELLEGRINO:" each open one.
    page = doc.pages[2]
    starts = [page.text[p.start : p.end].split("\n", 1)[0] for p in page.paragraphs]
    assert starts[:3] == [
        "routing refrigerated loads to Joliet until further",
        "Q. Mr. Smith, I'm handing you what has been marked",
        "A. Yes. That is the temperature log for cold room",
    ]
    assert "MR. PELLEGRINO: Objection, calls for a legal" in starts


def test_condensed_sheet_reads_each_page_whole_in_printed_order(parsed: dict[str, ParsedDocument]) -> None:
    doc = parsed["condensed"]
    assert doc.transcript == "Smith Dep." and len(doc.pages) == 2
    assert printed_lines(doc) == expected(tm.DEPOSITION)  # no line holds two pages' text
    assert [sorted(set(p.line_pages)) for p in doc.pages] == [[1, 44, 45, 46], [47, 48]]
    assert doc.pages[0].transcript_page == 1


def test_hearing_txt_is_cited_tr_with_its_printed_pages(parsed: dict[str, ParsedDocument]) -> None:
    doc = parsed["hearing"]
    assert doc.transcript == "Tr." and len(doc.pages) == 1 and doc.pages[0].number is None
    assert printed_lines(doc) == expected(tm.HEARING)
    assert "\f" not in doc.pages[0].text


def test_scotus_transcript_matches_the_printed_margin() -> None:
    doc = parse_file(require(SCOTUS))
    assert doc.transcript == "Tr."
    page = doc.pages[0]
    # The printed page as pdfplumber's own layout rendering shows it: "<margin number>  <text>".
    printed = {}
    for line in require(SCOTUS_LAYOUT).read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\s+(\d{1,2})\s+(\S.*?)\s*$", line)
        if m and int(m[1]) <= 25:
            printed[int(m[1])] = squeeze(m[2])
    got = {span.number: page.text[span.start : span.end] for span in page.lines}
    assert got == printed and len(got) >= 15
    assert set(page.line_pages) == {1}
    assert "Official - Subject to Final Review" not in page.text
    assert "Alderson Reporting Company" not in page.text


def test_non_transcripts_are_left_exactly_as_parsed() -> None:
    for path in NOT_TRANSCRIPTS:
        doc = parse_file(require(path), options=NO_OCR)
        plain = parse_pdf(path, NO_OCR)
        assert doc == replace(plain, pages=tuple(with_bates(plain.pages))), path.name
        assert doc.transcript is None and not any(p.line_pages for p in doc.pages)
        assert with_transcripts(doc) is doc
        with pdfplumber.open(path) as pdf:  # and no page is taken for a condensed sheet
            for page in pdf.pages[:2]:
                assert condensed_blocks(words_from_chars(dedupe_chars(page.chars))) is None


def test_pleading_paper_is_no_transcript_but_the_rule_sees_its_margin() -> None:
    doc = parse_file(require(NOT_TRANSCRIPTS[2]), options=NO_OCR)
    first = page_lines(doc.pages[0])
    assert sum(1 for line in first if re.match(r"^\d{1,2}( |$)", line)) >= 20  # numbered 1-28 ...
    assert doc.transcript is None  # ... but an order that mentions a "deposition transcript" is none


def test_transcript_fields_survive_the_parser_child_process(
    made: dict[str, Path], parsed: dict[str, ParsedDocument]
) -> None:
    parser = IsolatedParser()
    try:
        doc = parser.parse(made["deposition"])
    finally:
        parser.close()
    assert doc == parsed["deposition"]
    assert doc.transcript == "Smith Dep." and doc.pages[2].line_pages == (45,) * len(doc.pages[2].lines)


def test_chunks_cite_page_and_line_as_the_transcript_prints_them(parsed: dict[str, ParsedDocument]) -> None:
    doc = parsed["deposition"]
    drafts = chunk_document(doc)
    assert all(d.transcript == "Smith Dep." and len(d.line_pages) == len(d.line_numbers) for d in drafts)
    chunk = next(d for d in drafts if d.page == 3)
    prov = chunk.provenance("Smith_depo.pdf", "d1")
    assert prov.transcript_cite() == "Smith Dep. 45:1-25"
    assert prov.citation() == "Smith Dep. 45:1-25 (Smith_depo.pdf, p. 3, HFL0001203)"
    # The pin-cite of "Q. Mr. Smith, I'm handing you ... this document?" is 45:3-4.
    start = chunk.text.index("Q.   Mr. Smith".replace("   ", " "))
    end = chunk.text.index("this document?") + len("this document?")
    pin = pin_provenance(prov, chunk.text, start, end, list(chunk.line_numbers), None, list(chunk.line_pages))
    assert pin.citation() == "Smith Dep. 45:3-4 (Smith_depo.pdf, p. 3, HFL0001203)"
    assert pin.citation_short() == "Smith Dep. 45:3-4"


def test_pin_across_a_transcript_page_break(tmp_path: Path) -> None:
    # The hearing's two pages printed as pages 12 and 13 of a longer transcript.
    doc = parse_file(
        tm.hearing_txt(tmp_path / "hearing.txt", ((12, tm.HEARING[0][1]), (13, tm.HEARING[1][1])))
    )
    assert {tp for p in doc.pages for tp in p.line_pages} == {12, 13}
    drafts = chunk_document(doc)
    chunk = next(d for d in drafts if 12 in d.line_pages and 13 in d.line_pages)
    prov = chunk.provenance("hearing.txt", "d2")
    assert prov.citation_short() == f"Tr. 12:{chunk.line_numbers[0]}-13:{chunk.line_numbers[-1]}"
    starts = line_starts(chunk.text)
    first = chunk.line_pages.index(13) - 1  # page 12's last line
    start, end = starts[first], chunk.text.index("Supply versus Bayview") + 10
    pin = pin_provenance(prov, chunk.text, start, end, list(chunk.line_numbers), None, list(chunk.line_pages))
    assert chunk.text[start:].startswith("June 14, 2023, 2:05 p.m.")
    assert pin.transcript_cite() == "Tr. 12:17-13:3"
    assert pin.citation() == "Tr. 12:17-13:3 (hearing.txt)"


def test_chunks_prefer_to_start_at_a_printed_page(tmp_path: Path) -> None:
    long_pages = tuple((n, lines) for n, lines in tm.EXCERPT)
    doc = parse_file(tm.hearing_txt(tmp_path / "long.txt", long_pages))
    assert doc.transcript == "Tr."  # a Q. and A. transcript that does not name its deponent
    drafts = chunk_document(doc)
    # Each printed page (~300 tokens) is a chunk of its own: none runs on into the next page.
    assert [(d.line_pages[0], d.line_numbers[0], d.line_pages[-1]) for d in drafts] == [
        (n, 1, n) for n, _ in tm.EXCERPT
    ]
