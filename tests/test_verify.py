"""verify_citation over a real case (a CUAD PDF, a Portuguese court decision as .txt, a DOCX),
ingested through the real pipeline: every verdict, the cited text, citations read back, and the
page text rebuilt from stored chunks."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.domain.views import VerifyJson
from casetrack.errors import CaseTrackError, DocumentNotFoundError
from casetrack.search.citecheck.citation import CiteSpec, cite_spec, parse_citation
from casetrack.search.citecheck.cited_text import page_from_rows
from tests.conftest import DATA, MODELS, require

PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
TXT = DATA / "lener_br/raw_text/RR474820145230056.txt"
DOCX = DATA / "docx/docx2python_tests/created-in-pages-paragraphs-only.docx"
CASE = "Hosting v. Astro"

TERM = (
    "This is a managed hosting agreement between AstroNutrition.com and deep systems. The effective term is "
    "12 months"
)
ACORDAM = (
    "ACORDAM os Ministros da Segunda Turma do Tribunal Superior do Trabalho, por unanimidade, não conhecer do "
    "recurso de revista."
)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CaseTrack]:
    root = tmp_path_factory.mktemp("verify")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case(CASE, "contract", "en")
    files = []
    for src in (require(PDF), require(TXT), require(DOCX)):
        files.append(root / src.name)
        shutil.copy(src, files[-1])
    results = app.ingest(CASE, files)
    assert [r.status for r in results] == ["ingested"] * 3, [r.error for r in results]
    yield app
    app.close()


def verify(app: CaseTrack, quote: str, cite: str, **fields: Any) -> VerifyJson:
    return app.verify_citation(CASE, quote, cite, **fields)


# -- verdicts ---------------------------------------------------------------------------------------


def test_exact_at_the_cited_lines_with_the_exact_pin_cite(app: CaseTrack) -> None:
    r = verify(app, TERM, f"{PDF.name}, p. 1, ll. 5-6")
    assert r["verdict"] == "exact" and r["differences"] == [] and r["meaning_changed"] is False
    assert r["found_at"] == f"{PDF.name}, p. 1, para. 3, ll. 5-6"
    assert (
        r["text_at_cite"].startswith("This is a managed hosting agreement") and "2006." in r["text_at_cite"]
    )
    assert (
        r["similarity"] == 1.0
        and r["cite_problem"] is None
        and r["cite_resolved"] == f"{PDF.name}, p. 1, ll. 5-6"
    )
    assert r["message"].startswith("Exact:")


def test_exact_ignores_case_quotes_hyphens_and_spacing(app: CaseTrack) -> None:
    quote = "“THIS IS A MANAGED   hosting agreement between AstroNutrition.com and deep sys- tems”"
    assert verify(app, quote, f"{PDF.name}, p. 1")["verdict"] == "exact"


def test_a_whole_page_cite_shows_only_the_lines_that_match(app: CaseTrack) -> None:
    r = verify(app, TERM, f"{PDF.name}, p. 1")
    assert r["verdict"] == "exact" and r["text_at_cite_trimmed"] is True
    assert r["text_at_cite"] == (
        "This is a managed hosting agreement between AstroNutrition.com and deep systems. "
        "The effective\nterm is 12 months beginning March 1, 2005 and ending February 28, 2006."
    )


@pytest.mark.parametrize(
    ("quote", "difference", "kind"),
    [
        (TERM.replace("12 months", "18 months"), {"quote": "18", "text": "12", "kind": "number"}, "number"),
        (
            "Managed hosting fees are $175 per month for a period of twelve months.",
            {"quote": "twelve", "text": "12", "kind": "number"},
            "number",
        ),
        (
            "Support of external development is not charged at a rate of $55 CAD per hour.",
            {"quote": "not", "text": "", "kind": "negation"},
            "negation",
        ),
        (
            "Support of external development shall be charged at a rate of $55 CAD per hour.",
            {"quote": "shall be", "text": "is", "kind": "modal"},
            "modal",
        ),
    ],
)
def test_close_flags_changes_of_meaning(
    app: CaseTrack, quote: str, difference: dict[str, str], kind: str
) -> None:
    r = verify(app, quote, f"{PDF.name}, p. 1")
    assert r["verdict"] == "close", r
    assert r["differences"] == [difference]
    assert r["meaning_changed"] is True and r["meaning_changes"] == [kind]
    assert r["found_at"] is not None and r["found_at"].startswith(f"{PDF.name}, p. 1, ")
    assert "the meaning changed" in r["message"]


def test_close_with_a_changed_name_is_a_plain_difference(app: CaseTrack) -> None:
    r = verify(
        app,
        "/s/ Ryan Thompson /s/ Michael Ku Ryan Thompson, Deep Systems Chester Ku, Astro Nutrition",
        f"{PDF.name}, p. 2, ll. 16-17",
    )
    assert r["verdict"] == "close" and r["meaning_changed"] is False
    assert r["differences"] == [{"quote": "Michael", "text": "Chester", "kind": "name"}]


def test_portuguese_negation_and_ocr_noise(app: CaseTrack) -> None:
    r = verify(app, ACORDAM.replace("não conhecer", "conhecer"), f"{TXT.name}, l. 41")
    assert r["verdict"] == "close" and r["meaning_changes"] == ["negation"]
    assert r["differences"] == [{"quote": "", "text": "não", "kind": "negation"}]
    noisy = verify(
        app, ACORDAM.replace("Ministros", "Minlstros").replace("Tribunal", "Trihunal"), f"{TXT.name}, l. 41"
    )
    assert noisy["verdict"] == "close" and noisy["meaning_changed"] is False
    assert {d["kind"] for d in noisy["differences"]} == {"spelling"}


def test_text_line_numbers_are_the_files_own(app: CaseTrack) -> None:
    r = verify(app, ACORDAM, f"{TXT.name}, l. 41")
    assert r["verdict"] == "exact" and r["found_at"] is not None and r["found_at"].endswith(", l. 41")
    assert r["text_at_cite"] == ACORDAM


def test_elsewhere_gives_the_right_cite(app: CaseTrack) -> None:
    wrong_page = verify(app, TERM, f"{PDF.name}, p. 2")
    assert wrong_page["verdict"] == "elsewhere"
    assert wrong_page["found_at"] == f"{PDF.name}, p. 1, para. 3, ll. 5-6"
    assert "Trac Issue Tracking" in wrong_page["text_at_cite"]  # what p. 2 does say
    assert wrong_page["message"].startswith("Elsewhere:") and wrong_page["found_at"] in wrong_page["message"]
    wrong_lines = verify(app, ACORDAM, f"{TXT.name}, ll. 11-13")
    assert wrong_lines["verdict"] == "elsewhere" and wrong_lines["found_at"].endswith(", l. 41")  # type: ignore[union-attr]
    assert "Tribunal Regional deu provimento" in wrong_lines["text_at_cite"]
    # One line off: the quote starts before the cited lines and ends in them.
    off_by_one = verify(app, TERM, f"{PDF.name}, p. 1, ll. 6-7")
    assert (
        off_by_one["verdict"] == "elsewhere"
        and off_by_one["found_at"] == f"{PDF.name}, p. 1, para. 3, ll. 5-6"
    )


def test_a_cite_to_a_place_that_does_not_exist(app: CaseTrack) -> None:
    r = verify(app, TERM, f"{PDF.name}, p. 9")
    assert r["verdict"] == "elsewhere" and r["text_at_cite"] == ""
    assert r["cite_problem"] == f"{PDF.name} has no page 9: it has 2 pages"
    lines = verify(app, TERM, f"{PDF.name}, p. 1, ll. 80-82")
    assert lines["cite_problem"] == f"p. 1 of {PDF.name} has no ll. 80-82: it has lines 1-27"
    unpaged = verify(app, ACORDAM, f"{TXT.name}, p. 3")
    assert unpaged["verdict"] == "elsewhere" and "has no pages" in (unpaged["cite_problem"] or "")


def test_not_found(app: CaseTrack) -> None:
    invented = verify(
        app,
        "The parties agree that the courts of Boston shall have exclusive jurisdiction over all "
        "disputes arising from this hosting agreement.",
        f"{PDF.name}, p. 1",
    )
    assert (
        invented["verdict"] == "not_found" and invented["found_at"] is None and invented["differences"] == []
    )
    assert invented["text_at_cite"] and invented["message"].startswith("Not found:")
    spliced = verify(
        app,
        "This is a managed hosting agreement between AstroNutrition.com and the Ministros da "
        "Segunda Turma do Tribunal Superior",
        f"{PDF.name}, p. 1",
    )
    assert spliced["verdict"] == "not_found"


def test_a_quote_over_a_page_break_leaves_out_the_running_header_and_footer(app: CaseTrack) -> None:
    # p. 1 ends "... of each month. / D/WLM/717334.1"; p. 2 starts "- 2 - / 03/01/05 ... / Co-located Facilities".
    quote = "The billing cycle is the 1st of each month. Co-located Facilities Servers are co-located at 700 West Georgia"
    for cite in (f"{PDF.name}, p. 1", f"{PDF.name}, pp. 1-2"):
        r = verify(app, quote, cite)
        assert r["verdict"] == "exact", r
        assert r["found_at"] == f"{PDF.name}, pp. 1-2"
    # Cited to p. 2, where most of it is: at the cite too (a quote at least half inside its cite
    # is at it), and found_at gives its full extent.
    on_two = verify(app, quote, f"{PDF.name}, p. 2")
    assert on_two["verdict"] == "exact" and on_two["found_at"] == f"{PDF.name}, pp. 1-2"
    assert (
        verify(app, "The billing cycle is the 1st of each month.", f"{PDF.name}, p. 2")["verdict"]
        == "elsewhere"
    )


def test_a_quote_that_leaves_words_out_with_an_ellipsis(app: CaseTrack) -> None:
    quote = (
        "This is a managed hosting agreement between AstroNutrition.com and deep systems. ... Managed hosting "
        "fees are $175 per month for a period of 12 months."
    )
    r = verify(app, quote, f"{PDF.name}, p. 1")
    assert r["verdict"] == "exact" and r["found_at"] == f"{PDF.name}, p. 1, paras. 3-15, ll. 5-24"
    altered = verify(app, quote.replace("$175", "$195"), f"{PDF.name}, p. 1")
    assert altered["verdict"] == "close" and altered["differences"] == [
        {"quote": "195", "text": "175", "kind": "number"}
    ]
    short = verify(
        app, "Management of SMTP, IMAP, DNS … database and HTTP server software", f"{PDF.name}, p. 1, l. 9"
    )
    assert short["verdict"] == "exact"


def test_docx_cites_stop_at_the_paragraph(app: CaseTrack) -> None:
    quote = "This document does not contain any bulleted lists."
    r = verify(app, quote, f"{DOCX.name}, para. 3")
    assert r["verdict"] == "exact" and r["found_at"] == f"{DOCX.name}, para. 3"
    assert verify(app, quote.replace("does not", "does"), f"{DOCX.name}, para. 3")["meaning_changes"] == [
        "negation"
    ]
    other = verify(app, quote, f"{DOCX.name}, para. 1")
    assert other["verdict"] == "elsewhere" and other["found_at"] == f"{DOCX.name}, para. 3"


def test_structured_fields_instead_of_a_citation_string(app: CaseTrack) -> None:
    r = app.verify_citation(CASE, TERM, document="premium managed", page=1, line_start=5, line_end=6)
    assert r["verdict"] == "exact" and r["cite_resolved"] == f"{PDF.name}, p. 1, ll. 5-6"
    assert r["citation"] == "premium managed, p. 1, ll. 5-6"
    # Fields win over the string's parts.
    assert app.verify_citation(CASE, TERM, f"{PDF.name}, p. 2", page=1)["verdict"] == "exact"


def test_every_chunk_verifies_at_its_own_citation(app: CaseTrack) -> None:
    """Citations as CaseTrack prints them read back: each chunk's text is exact at its citation."""
    store = app.open_case(CASE)
    try:
        ids = [
            str(c)
            for e in store.documents()
            for c in store.lance.document_chunks(e.doc_id, e.gen).column("chunk_id").to_pylist()
        ]
    finally:
        store.close()
    assert len(ids) >= 5
    for chunk_id in ids:
        chunk = app.get_chunk(CASE, chunk_id, 0)
        quote = " ".join(chunk["text"].split()[:60])
        r = verify(app, quote, chunk["citation"])
        assert r["verdict"] == "exact", (chunk["citation"], r["message"])
        assert r["elapsed_ms"] < 5000


def test_errors_name_the_fix(app: CaseTrack) -> None:
    with pytest.raises(DocumentNotFoundError) as err:
        verify(app, TERM, "Nonexistent Lease.pdf, p. 3")
    assert "No document named 'Nonexistent Lease.pdf'" in err.value.message
    assert err.value.fix is not None and err.value.fix.tool == "list_documents"
    assert err.value.hint == f'List documents: casetrack case info "{CASE}"'
    with pytest.raises(CaseTrackError, match="The quote is empty"):
        verify(app, "  ... ", f"{PDF.name}, p. 1")
    with pytest.raises(CaseTrackError, match="names no document"):
        app.verify_citation(CASE, TERM, "p. 3")


# -- citations read back ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("citation", "spec"),
    [
        ("Contract.pdf, p. 12, para. 8, ll. 1-4", CiteSpec("Contract.pdf", 12, 12, 8, 8, 1, 4)),
        ("Contract.pdf, p. 12", CiteSpec("Contract.pdf", 12, 12)),
        ("Opinion.docx, para. 14", CiteSpec("Opinion.docx", paragraph_start=14, paragraph_end=14)),
        ("notes.txt, ll. 30-34", CiteSpec("notes.txt", line_start=30, line_end=34)),
        ("Contract.pdf, pp. 12-13", CiteSpec("Contract.pdf", 12, 13)),
        ("Brief.pdf, p. 2, paras. 3-5", CiteSpec("Brief.pdf", 2, 2, 3, 5)),
        ("notes.txt, l. 7", CiteSpec("notes.txt", line_start=7, line_end=7)),
        ("Smith, Jones & Co. Lease.pdf, p. 3", CiteSpec("Smith, Jones & Co. Lease.pdf", 3, 3)),
        ("Contract.pdf p. 12", CiteSpec("Contract.pdf", 12, 12)),
        ("a.pdf, page 3, lines 4 to 9", CiteSpec("a.pdf", 3, 3, line_start=4, line_end=9)),
        ("a.pdf, pp. 13–12", CiteSpec("a.pdf", 12, 13)),
        ("a.pdf, ¶ 5", CiteSpec("a.pdf", paragraph_start=5, paragraph_end=5)),
        ("Exhibit 12", CiteSpec("Exhibit 12")),
    ],
)
def test_parse_citation(citation: str, spec: CiteSpec) -> None:
    assert parse_citation(citation) == spec


def test_cite_spec_merges_fields_and_describes_itself() -> None:
    spec = cite_spec("p. 12, ll. 1-4", document="C.pdf")
    assert spec == CiteSpec("C.pdf", 12, 12, line_start=1, line_end=4)
    assert (
        spec.describe() == "C.pdf, p. 12, ll. 1-4"
        and spec.describe("Contract.pdf") == "Contract.pdf, p. 12, ll. 1-4"
    )
    assert cite_spec(document="C.pdf", page=3, line_start=4).describe() == "C.pdf, p. 3, l. 4"
    with pytest.raises(CaseTrackError):
        cite_spec(document="C.pdf", page=0)


# -- page text from stored chunks ---------------------------------------------------------------


def row(
    seq: int, text: str, start: int, para: int, line: int, line_end: int, numbers: list[int] | None
) -> dict[str, Any]:
    return {
        "seq": seq,
        "text": text,
        "char_start": start,
        "char_end": start + len(text),
        "page": None,
        "page_index": 0,
        "paragraph_start": para,
        "paragraph_end": para + text.count("\n\n"),
        "line_start": line,
        "line_end": line_end,
        "line_numbers": numbers,
    }


PAGE = "First line of one.\nSecond line.\n\nThird para line.\nFourth line here.\n\nLast one."


def test_page_rebuilt_from_overlapping_chunks_and_gaps() -> None:
    # Two chunks that overlap ("Second line.") and a third after a gap of "\n\n".
    second, third_end, last = PAGE.index("Second"), PAGE.index("\n\nLast"), PAGE.index("Last")
    a = row(0, PAGE[: PAGE.index("\n\nThird")], 0, 1, 1, 2, [1, 2])
    b = row(1, PAGE[second:third_end], second, 1, 2, 5, [2, 4, 5])
    c = row(2, PAGE[last:], last, 3, 7, 7, [7])
    page = page_from_rows([c, a, b])
    assert page.text == PAGE and page.base == 0
    assert [(n.number, PAGE[n.start : n.end]) for n in page.lines] == [
        (1, "First line of one."),
        (2, "Second line."),
        (4, "Third para line."),
        (5, "Fourth line here."),
        (7, "Last one."),
    ]
    assert [(n.number, PAGE[n.start : n.end]) for n in page.paragraphs] == [
        (1, "First line of one.\nSecond line."),
        (2, "Third para line.\nFourth line here."),
        (3, "Last one."),
    ]
    assert page.span_of(page.lines, 4, 5) == (PAGE.index("Third"), PAGE.index("here.") + 5)


def test_the_cited_text_of_a_pdf_page_matches_the_parser(app: CaseTrack, tmp_path: Path) -> None:
    from casetrack.parse import parse_file

    parsed = parse_file(require(PDF))
    for page in parsed.pages:
        for line in page.lines:
            r = verify(app, "zzz qqq xxx www", f"{PDF.name}, p. {page.number}, l. {line.number}")
            assert r["text_at_cite"] == page.text[line.start : line.end].strip()
