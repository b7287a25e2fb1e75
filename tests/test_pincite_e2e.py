"""Pin-cites on real files through the real pipeline: every result's page, paragraph, line and
character ranges are checked against the parsed page text (and, for a .txt, against the lines of
the file itself, whose blank lines count).

Real CUAD and US court PDFs, a DOCX and a TXT from ../shared/data; the real E1 model (only E1, to
keep ingest short: search then runs BM25 + E1, as in the constrained memory tier).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.domain import Page, ParsedDocument, SearchHit
from casetrack.parse.docx.parser import parse_docx
from casetrack.parse.options import ParseOptions
from casetrack.parse.pdf.parser import parse_pdf
from casetrack.parse.text.parser import parse_text
from casetrack.search.pincite.hit import pin_offsets
from casetrack.search.pincite.layout import line_starts
from casetrack.search.pincite.provenance import pin_provenance
from casetrack.search.pincite.snippet import has_margin_numbers, readable
from tests.conftest import DATA, MODELS, require

COURTS = DATA / "legal_docs_us_courts"
CUAD_PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
OPINION_PDF = COURTS / "recap_documents/ca5_00516242060.pdf"
ORDER_PDF = COURTS / "extra_from_history/recap_issues/gov.uscourts.cand.16711.199.0.pdf"
DOCX = COURTS / "word-docx.docx"
TXT = COURTS / "extra_from_history/opinion_text.txt"
CASE = "Pins"

QUERIES = {
    CUAD_PDF.name: [
        "termination of the hosting agreement",
        "monthly fees payable",
        "governing law",
        "limitation of liability for damages",
    ],
    OPINION_PDF.name: [
        "elements of promissory estoppel under Texas law",
        "bi-weekly paycheck deduction for life insurance",
        "why did the breach of contract claim fail",
        "Dearborn final offer guarantee issue limit",
    ],
    ORDER_PDF.name: ["motion to quash the subpoena", "why is the deposition transcript relevant"],
    DOCX.name: [
        "failure to obey order",
        "characterization of service",
        "the applicant's request for upgrade",
    ],
    TXT.name: [
        "indemnity agreement attorney's fees",
        "who argued the cause for the appellants",
        "what does the Miller Act require",
        "waiver of the attorney-client privilege",
    ],
}


def parse(path: Path) -> ParsedDocument:
    if path.suffix.lower() == ".pdf":
        return parse_pdf(path, ParseOptions())
    if path.suffix.lower() == ".docx":
        return parse_docx(path, ParseOptions())
    return parse_text(path, ParseOptions())


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CaseTrack, dict[str, ParsedDocument]]]:
    root = tmp_path_factory.mktemp("pins")
    models = root / "models"
    models.mkdir()
    (models / "multilingual-e5-small-enpt").symlink_to(
        MODELS / "multilingual-e5-small-enpt", target_is_directory=True
    )
    app = CaseTrack(resolve_settings(root / "home", models, environ={}))
    app.create_case(CASE, "contract", "en")
    files = [require(p) for p in (CUAD_PDF, OPINION_PDF, ORDER_PDF, DOCX)]
    # The opinion's first 240 lines (blank lines, indents and hyphenation as in the file) keep
    # ingest short.
    txt = root / TXT.name
    txt.write_text(
        "\n".join(require(TXT).read_text(encoding="utf-8").split("\n")[:240]) + "\n", encoding="utf-8"
    )
    files.append(txt)
    results = app.ingest(CASE, files)
    assert [r.status for r in results] == ["ingested"] * len(files), [r.error for r in results]
    yield app, {p.name: parse(p) for p in files}
    app.close()


def page_of(doc: ParsedDocument, hit: SearchHit) -> Page:
    pages = [p for p in doc.pages if p.number == hit.provenance.page]
    assert len(pages) == 1
    return pages[0]


def check(hit: SearchHit, doc: ParsedDocument) -> None:
    """The pin-cite's offsets, paragraphs and lines, applied to the page text, give the snippet."""
    pin, chunk = hit.provenance, hit.chunk_provenance
    assert chunk is not None and pin.page == chunk.page and pin.document_id == chunk.document_id
    page = page_of(doc, hit)
    assert page.text[chunk.char_start : chunk.char_end] == hit.text
    a, b = pin.char_start, pin.char_end
    assert chunk.char_start <= a < b <= chunk.char_end
    span = page.text[a:b]
    assert span == span.strip()
    assert a == 0 or not (page.text[a - 1].isalnum() and span[0].isalnum()), "starts inside a word"
    assert b == len(page.text) or not (page.text[b].isalnum() and span[-1].isalnum()), "ends inside a word"
    assert hit.snippet == readable(span, has_margin_numbers(hit.text)) and hit.snippet
    words = [w for w in span.split() if not w.isdigit()]  # margin and footnote numbers are left out
    assert sum(w in hit.snippet for w in words) >= 0.8 * len(words)
    first_para, last_para = page.paragraph_at(a), page.paragraph_at(b - 1)
    assert first_para is not None and last_para is not None
    assert (pin.paragraph_start, pin.paragraph_end) == (first_para.number, last_para.number)
    first_line, last_line = page.line_at(a), page.line_at(b - 1)
    assert first_line is not None and last_line is not None
    assert first_line.start <= a < first_line.end + 1 and last_line.start < b <= last_line.end
    if pin.lines_citable:
        assert (pin.line_start, pin.line_end) == (first_line.number, last_line.number)
        assert pin.citation().endswith(
            f"l. {pin.line_start}"
            if pin.line_start == pin.line_end
            else f"ll. {pin.line_start}-{pin.line_end}"
        )
    else:
        assert ", l" not in pin.citation()
    assert (pin.paragraph_start, pin.line_start) >= (chunk.paragraph_start, chunk.line_start)
    assert (pin.paragraph_end, pin.line_end) <= (chunk.paragraph_end, chunk.line_end)


def test_every_result_is_pinned_to_lines_of_its_page(
    built: tuple[CaseTrack, dict[str, ParsedDocument]],
) -> None:
    app, parsed = built
    widths = []
    for name, queries in QUERIES.items():
        for query in queries:
            hits = app.search(CASE, query, top_k=3, documents=[name]).hits
            assert hits, (name, query)
            for hit in hits:
                check(hit, parsed[name])
                starts = line_starts(hit.text)
                a, b = pin_offsets(hit)
                widths.append(sum(1 for s in starts if a <= s < b) + (a not in starts))
    widths.sort()
    assert widths[len(widths) // 2] <= 6, widths


def test_docx_pins_stop_at_the_paragraph(built: tuple[CaseTrack, dict[str, ParsedDocument]]) -> None:
    app, _ = built
    hits = app.search(CASE, "failure to obey order", documents=[DOCX.name]).hits
    assert hits and all(", l" not in h.citation and ", para" in h.citation for h in hits)


def test_txt_pins_cite_the_files_own_line_numbers(built: tuple[CaseTrack, dict[str, ParsedDocument]]) -> None:
    app, _ = built
    file_lines = TXT.read_text(encoding="utf-8").split("\n")  # the copy holds its first 240 lines
    for query in QUERIES[TXT.name]:
        for hit in app.search(CASE, query, top_k=3, documents=[TXT.name]).hits:
            pin = hit.provenance
            assert pin.lines_citable and pin.page is None
            a, b = pin_offsets(hit)
            span = hit.text[a:b]
            first, last = span.split("\n")[0], span.split("\n")[-1]
            assert first.strip() in " ".join(file_lines[pin.line_start - 1].split()), (query, pin.line_start)
            assert last.strip() in " ".join(file_lines[pin.line_end - 1].split()), (query, pin.line_end)
            # Rows stored before line_numbers: never a wrong line, at worst no line at all.
            old = pin_provenance(hit.chunk_provenance or pin, hit.text, a, b, None)
            if old.lines_citable:
                assert (old.line_start, old.line_end) == (pin.line_start, pin.line_end)


def test_snippets_join_line_break_hyphenation(built: tuple[CaseTrack, dict[str, ParsedDocument]]) -> None:
    app, _ = built
    hits = app.search(CASE, "appellee International Fidelity Insurance Co. surety", documents=[TXT.name]).hits
    pinned = [h for h in hits if "Interna-\ntional" in h.text[slice(*pin_offsets(h))]]
    assert pinned and all("International Fidelity" in h.snippet for h in pinned)


def test_context_never_repeats_the_snippet(built: tuple[CaseTrack, dict[str, ParsedDocument]]) -> None:
    app, parsed = built
    for name, query in [
        (OPINION_PDF.name, "elements of promissory estoppel"),
        (TXT.name, "reasonable fee award"),
    ]:
        for hit in app.search(CASE, query, top_k=3, documents=[name], context_chars=300).hits:
            page = page_of(parsed[name], hit)
            a, b = hit.provenance.char_start, hit.provenance.char_end
            # The text right before / after the pin-cite on its page (then the next page's), with
            # no sentence of the overlapping neighbour chunk repeated.
            if hit.context_after:
                rest = readable(page.text[b : b + 2000])
                n = min(len(rest), len(hit.context_after)) - 20
                assert n <= 0 or hit.context_after[:n] == rest[:n]
                assert hit.snippet[-40:] not in hit.context_after
            if hit.context_before:
                rest = readable(page.text[max(0, a - 2000) : a])
                n = min(len(rest), len(hit.context_before)) - 20
                assert n <= 0 or hit.context_before[-n:] == rest[-n:]
                assert hit.snippet[:40] not in hit.context_before


def test_get_chunk_pinned_to_a_query(built: tuple[CaseTrack, dict[str, ParsedDocument]]) -> None:
    app, _ = built
    query = "elements of promissory estoppel under Texas law"
    hit = app.search(CASE, query, top_k=1, documents=[OPINION_PDF.name]).hits[0]
    plain = app.get_chunk(CASE, hit.chunk_id)
    assert plain["citation"] == hit.chunk_citation and "chunk_citation" not in plain
    pinned = app.get_chunk(CASE, hit.chunk_id, query=query)
    assert pinned["citation"] == hit.citation and pinned["chunk_citation"] == hit.chunk_citation
    assert pinned["snippet"] == hit.snippet and pinned["text"] == hit.text
    assert pinned["chunk_source"] == plain["source"]


def test_entity_mentions_cite_their_own_line(built: tuple[CaseTrack, dict[str, ParsedDocument]]) -> None:
    app, parsed = built
    result = app.find_entity(CASE, "Dearborn")
    mentions = [m for m in result.mentions if m.document == OPINION_PDF.name]
    assert mentions
    store = app.open_case(CASE)
    try:
        for m in mentions:
            row = store.lance.fetch_chunks([m.chunk_id])[m.chunk_id]
            page = next(p for p in parsed[OPINION_PDF.name].pages if p.number == row["page"])
            line = page.line_at(int(row["char_start"]) + m.match_start)
            assert line is not None and m.citation.endswith(f", l. {line.number}"), m.citation
            assert m.matched_text in page.text[line.start : line.end]
    finally:
        store.close()
