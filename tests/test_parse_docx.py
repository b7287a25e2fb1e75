"""DOCX parsing over the real corpus: never crash, and the features lawyers rely on."""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

import pytest

from casetrack.domain import FileType, ParagraphKind, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError, EncryptedFileError, ParseError
from casetrack.parse.docx.numbering import format_number
from casetrack.parse.docx.parser import parse_docx
from casetrack.parse.options import ParseOptions
from tests.conftest import DATA, require
from tests.layout_contract import assert_page_consistent

CORPUS = DATA / "docx"


def assert_document_consistent(doc: ParsedDocument) -> None:
    assert doc.file_type is FileType.DOCX and doc.pages
    for index, page in enumerate(doc.pages):
        assert_page_consistent(page, continued_paragraph_numbers=index > 0)
    numbers = [page.number for page in doc.pages]
    if numbers != [None]:
        assert numbers == list(range(1, len(numbers) + 1))
    # Paragraph numbers run through the document; a paragraph split by a page break keeps
    # its number on the next page.
    paragraph_numbers = [p.number for page in doc.pages for p in page.paragraphs]
    assert paragraph_numbers == sorted(paragraph_numbers)
    assert paragraph_numbers[0] == 1
    assert all(b - a in (0, 1) for a, b in zip(paragraph_numbers, paragraph_numbers[1:], strict=False))


def texts(doc: ParsedDocument, kind: ParagraphKind | None = None) -> list[str]:
    return [
        page.text[p.start : p.end]
        for page in doc.pages
        for p in page.paragraphs
        if kind is None or p.kind is kind
    ]


def full_text(doc: ParsedDocument) -> str:
    return "\n\n".join(page.text for page in doc.pages)


# --------------------------------------------------------------------------------------------
# The whole corpus
# --------------------------------------------------------------------------------------------

ALL_DOCX = sorted(CORPUS.rglob("*.docx")) if CORPUS.exists() else []


def test_corpus_present() -> None:
    if not ALL_DOCX:
        pytest.skip(f"test data missing: {CORPUS}")
    assert len(ALL_DOCX) == 118


@pytest.mark.parametrize("path", ALL_DOCX, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_docx_parses_or_raises_a_parse_error(path: Path) -> None:
    try:
        doc = parse_docx(path, ParseOptions())
    except ParseError as e:
        # The corpus's only failures are documents whose body has no text at all.
        assert isinstance(e, EmptyFileError), e
        assert e.hint
        return
    assert_document_consistent(doc)
    text = full_text(doc)
    # No docx2python markup leaks into the text.
    for marker in (
        "----",
        "<a href",
        "footnote1)",
        "endnote1)",
        "</latex>",
        "font-family:",
        "\ufdd0",
        "\ufdd1",
    ):
        assert marker not in text, marker


@pytest.mark.slow
def test_corpus_summary() -> None:
    if not ALL_DOCX:
        pytest.skip(f"test data missing: {CORPUS}")
    parsed, empty = 0, 0
    for path in ALL_DOCX:
        try:
            parse_docx(path, ParseOptions())
            parsed += 1
        except EmptyFileError:
            empty += 1
    assert (parsed, empty) == (95, 23)


# --------------------------------------------------------------------------------------------
# Features
# --------------------------------------------------------------------------------------------


def test_features_file_lists_the_notes_we_test() -> None:
    features = json.loads(require(CORPUS / "_docx_features.json").read_text())
    assert features["mammoth_tests/footnotes.docx"]["footnote_refs"] == 2
    assert features["mammoth_tests/endnotes.docx"]["endnote_refs"] == 2
    assert features["docx2python_tests/example.docx"]["footnote_refs"] == 2


def test_footnotes() -> None:
    doc = parse_docx(require(CORPUS / "mammoth_tests" / "footnotes.docx"), ParseOptions())
    assert texts(doc) == ["Ouch[1].[2]", "[1] A tachyon walks into a bar.", "[2] Fin."]
    assert [p.kind for p in doc.pages[0].paragraphs] == [
        ParagraphKind.BODY,
        ParagraphKind.FOOTNOTE,
        ParagraphKind.FOOTNOTE,
    ]


def test_endnotes_use_words_default_roman_numbers() -> None:
    # This file's endnotes part never declares the r: prefix, which crashes docx2python's
    # run merging unless we declare it.
    doc = parse_docx(require(CORPUS / "mammoth_tests" / "endnotes.docx"), ParseOptions())
    assert texts(doc) == ["Ouch[i].[ii]", "[i] A tachyon walks into a bar.", "[ii] Fin."]


def test_footnotes_endnotes_headings_lists_and_tables_together() -> None:
    doc = parse_docx(require(CORPUS / "docx2python_tests" / "example.docx"), ParseOptions())
    assert_document_consistent(doc)
    assert texts(doc, ParagraphKind.HEADING) == ["Heading 1", "Heading 2"]
    assert texts(doc, ParagraphKind.FOOTNOTE) == [
        "[1] First footnote",
        "[2] Second footnote",
        "[i] First endnote",
        "[ii] Second endnote",
    ]
    items = texts(doc, ParagraphKind.LIST_ITEM)
    assert items[:6] == [
        "I. expect I",
        "A. expect A",
        "B. expect B",
        "1. expect 1",
        "a) expect a",
        "b) expect b",
    ]
    assert "• bullet no indent" in items
    assert texts(doc, ParagraphKind.TABLE) == ["Nested | Table", "A | B"]
    body = full_text(doc)
    assert "Header text" not in body and "Footer text" not in body
    # Footnotes come last.
    assert doc.pages[-1].paragraphs[-1].kind is ParagraphKind.FOOTNOTE


def test_tables_one_paragraph_per_row() -> None:
    doc = parse_docx(require(CORPUS / "mammoth_tests" / "tables.docx"), ParseOptions())
    assert [(p.kind, doc.pages[0].text[p.start : p.end]) for p in doc.pages[0].paragraphs] == [
        (ParagraphKind.BODY, "Above"),
        (ParagraphKind.TABLE, "Top left | Top right"),
        (ParagraphKind.TABLE, "Bottom left | Bottom right"),
        (ParagraphKind.BODY, "Below"),
    ]


def test_headings() -> None:
    doc = parse_docx(require(CORPUS / "python-docx_tests" / "par-known-styles.docx"), ParseOptions())
    assert texts(doc, ParagraphKind.HEADING)
    doc = parse_docx(require(CORPUS / "docxreview_fixtures" / "test_page_breaks.docx"), ParseOptions())
    assert texts(doc, ParagraphKind.HEADING) == ["Introduction", "Methods"]


def test_numbered_headings_from_styles() -> None:
    # styled-numbering.md: numbering comes from the Heading styles, not the paragraphs.
    doc = parse_docx(require(CORPUS / "docxfix_word_corpus" / "styled-numbering.docx"), ParseOptions())
    headings = texts(doc, ParagraphKind.HEADING)
    assert [h.split(" ", 1)[0] for h in headings] == ["1", "1.1", "(a)", "(i)"]
    assert headings[0] == "1 One" and headings[1] == "1.1 Two"


def test_legal_list_numbers_as_word_shows_them() -> None:
    # legal-list.md: "paragraphs numbered 1., 1.1., 2., 2.1, and 2.1.1"
    doc = parse_docx(require(CORPUS / "docxfix_word_corpus" / "legal-list.docx"), ParseOptions())
    items = texts(doc, ParagraphKind.LIST_ITEM)
    assert [i.split(" ", 1)[0] for i in items] == ["1.", "1.1.", "2.", "2.1.", "2.1.1."]


def test_list_start_values_and_formats() -> None:
    # Each item says what Word displays for it: "II. expect II", "(viii) expect viii", ...
    doc = parse_docx(require(CORPUS / "docx2python_tests" / "example_numbering.docx"), ParseOptions())
    items = texts(doc, ParagraphKind.LIST_ITEM)
    assert len(items) == 10
    for item in items:
        label, _, rest = item.partition(" ")
        assert rest == f"expect {label.strip('().')}", item


def test_tracked_insertion_kept() -> None:
    # single-insertion.md: "single insertion " inserted between "Lorem ipsum dolor " and "sit amet"
    doc = parse_docx(require(CORPUS / "docxfix_word_corpus" / "single-insertion.docx"), ParseOptions())
    assert texts(doc)[0].startswith("Lorem ipsum dolor single insertion sit amet")


def test_tracked_deletion_dropped() -> None:
    # single-deletion.md: " dolor sit amet" deleted
    doc = parse_docx(require(CORPUS / "docxfix_word_corpus" / "single-deletion.docx"), ParseOptions())
    text = texts(doc)[0]
    assert text.startswith("Lorem ipsum, consectetuer")
    assert "dolor sit amet" not in text


def test_tracked_move() -> None:
    # mixed-insert-delete.md: "dolor sit amet " moved before "ipsum"
    doc = parse_docx(require(CORPUS / "docxfix_word_corpus" / "mixed-insert-delete.docx"), ParseOptions())
    assert texts(doc)[0].startswith("Lorem dolor sit amet ipsum, consectetuer")
    doc = parse_docx(require(CORPUS / "docxreview_fixtures" / "test_moved_text.docx"), ParseOptions())
    assert texts(doc) == [
        "The sample size was 200 patients.",
        "Results were statistically significant.",
        "was stated at the beginning.",
        "Summary: The conclusion of the study.",
    ]


@pytest.mark.parametrize(
    ("name", "comments"),
    [
        (
            "docxfix_word_corpus/comment-thread.docx",
            [
                '[Comment 1] Author, on "dolor sit amet":\nA comment.',
                '[Comment 2] Author, on "dolor sit amet":\nA reply comment.',
            ],
        ),
        (
            "mammoth_tests/comments.docx",
            ["A tachyon walks into a bar.", "Fin."],
        ),
    ],
)
def test_comments_come_after_the_body_each_a_paragraph_naming_it(name: str, comments: list[str]) -> None:
    """A comment is searchable and cited as a comment: a paragraph after the body (never inside
    it), whose first line names the comment, its author and the text it is attached to."""
    doc = parse_docx(require(CORPUS / name), ParseOptions())
    page = doc.pages[-1]
    paragraphs = [page.text[p.start : p.end] for p in page.paragraphs]
    first = next(i for i, text in enumerate(paragraphs) if text.startswith("[Comment 1]"))
    assert not any("[Comment" in text for text in paragraphs[:first])  # the body holds none
    for comment in comments:
        assert any(comment in text for text in paragraphs[first:]), comment
        assert not any(comment in text for text in paragraphs[:first])
    assert all(p.kind is ParagraphKind.FOOTNOTE for p in page.paragraphs[first:])


def test_headers_and_footers_skipped() -> None:
    body = full_text(
        parse_docx(require(CORPUS / "python-docx_tests" / "hdr-header-footer.docx"), ParseOptions())
    )
    assert "Header for section" not in body and "Footer for section" not in body


def test_text_box_not_duplicated() -> None:
    # Word writes a text box twice (mc:Choice and a VML mc:Fallback).
    doc = parse_docx(require(CORPUS / "mammoth_tests" / "text-box.docx"), ParseOptions())
    assert full_text(doc).count("Datum plane") == 1


def test_soft_line_breaks_are_lines() -> None:
    doc = parse_docx(require(CORPUS / "docx2python_tests" / "soft_line_breaks.docx"), ParseOptions())
    page = doc.pages[0]
    assert any(len([ln for ln in page.lines if p.start <= ln.start < p.end]) > 1 for p in page.paragraphs)


def test_unpaged_document_is_one_page_without_number() -> None:
    doc = parse_docx(require(CORPUS / "mammoth_tests" / "single-paragraph.docx"), ParseOptions())
    assert [p.number for p in doc.pages] == [None] and doc.page_count == 0


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------


def test_rendered_page_breaks_make_pages() -> None:
    doc = parse_docx(require(CORPUS / "docxreview_fixtures" / "test_page_breaks.docx"), ParseOptions())
    assert_document_consistent(doc)
    pages = [[page.text[p.start : p.end] for p in page.paragraphs] for page in doc.pages]
    assert [page.number for page in doc.pages] == [1, 2, 3]
    assert pages == [
        ["Introduction", "First paragraph of content"],
        ["This paragraph is on page two", "Methods", "Methods description"],
        [
            "This is on page three",
            # its comment, after the body (on the last page, as footnotes are)
            '[Comment 1] Max Mustermann, 2024-01-15, on "First paragraph of content":\nExpand introduction',
        ],
    ]
    assert [p.number for p in doc.pages[1].paragraphs] == [3, 4, 5]
    assert doc.warnings == ()


def test_page_break_inside_a_paragraph_splits_it_at_the_right_place() -> None:
    # The file marks each rendered break with ">>" before and "<<" after it.
    doc = parse_docx(require(CORPUS / "python-docx_tests" / "par-rendered-page-breaks.docx"), ParseOptions())
    assert_document_consistent(doc)
    assert doc.page_count == 6
    for page in doc.pages[1:]:
        for para in page.paragraphs[:1]:
            assert page.text[para.start : para.end].startswith("<<")
    for page in doc.pages[:-1]:
        if page.paragraphs:
            last = page.paragraphs[-1]
            assert page.text[last.start : last.end].endswith(">>")
    # The split paragraph keeps its number: "p. 2, para. 2" is the rest of paragraph 2.
    assert doc.pages[0].paragraphs[-1].number == doc.pages[1].paragraphs[0].number == 2


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def make_docx(path: Path, body: str) -> Path:
    """A minimal Word package whose body is the given WordprocessingML."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.wordprocessingml.document.main+xml"/></Types>',
        )
        zf.writestr(
            "_rels/.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            'relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        )
        zf.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document xmlns:w="{W_NS}" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            f"<w:body>{body}</w:body></w:document>",
        )
    return path


def p(text: str, inner: str = "") -> str:
    return f'<w:p>{inner}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


def test_explicit_breaks_only_give_pages_with_a_warning(tmp_path: Path) -> None:
    body = (
        p("Um")
        + '<w:p><w:r><w:t>Dois</w:t><w:br w:type="page"/><w:t>Tres</w:t></w:r></w:p>'
        + '<w:p><w:pPr><w:sectPr><w:type w:val="nextPage"/></w:sectPr></w:pPr><w:r><w:t>Quatro</w:t></w:r></w:p>'
        + "<w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>Cinco</w:t></w:r></w:p>"
        + '<w:p><w:pPr><w:sectPr><w:type w:val="continuous"/></w:sectPr></w:pPr><w:r><w:t>Seis</w:t></w:r></w:p>'
        + p("Sete")
    )
    doc = parse_docx(make_docx(tmp_path / "explicit.docx", body), ParseOptions())
    assert_document_consistent(doc)
    pages = [[(pa.number, page.text[pa.start : pa.end]) for pa in page.paragraphs] for page in doc.pages]
    assert pages == [
        [(1, "Um"), (2, "Dois")],
        [(2, "Tres"), (3, "Quatro")],
        [(4, "Cinco"), (5, "Seis"), (6, "Sete")],
    ]
    assert doc.warnings and "explicit page and section breaks" in doc.warnings[0]


def test_rendered_breaks_win_over_explicit_ones(tmp_path: Path) -> None:
    body = (
        '<w:p><w:r><w:t>Um</w:t><w:br w:type="page"/></w:r></w:p>'
        + "<w:p><w:r><w:lastRenderedPageBreak/><w:t>Dois</w:t></w:r></w:p>"
        + p("Tres")
    )
    doc = parse_docx(make_docx(tmp_path / "rendered.docx", body), ParseOptions())
    assert [[page.text] for page in doc.pages] == [["Um"], ["Dois\n\nTres"]]
    assert doc.warnings == ()


def test_table_row_across_pages_moves_as_a_whole(tmp_path: Path) -> None:
    def cell(text: str, brk: bool) -> str:
        mark = "<w:lastRenderedPageBreak/>" if brk else ""
        return f"<w:tc><w:p><w:r>{mark}<w:t>{text}</w:t></w:r></w:p></w:tc>"

    table = (
        "<w:tbl>"
        + f"<w:tr>{cell('a1', False)}{cell('b1', False)}</w:tr>"
        + f"<w:tr>{cell('a2', True)}{cell('b2', True)}</w:tr>"
        + "</w:tbl>"
    )
    doc = parse_docx(make_docx(tmp_path / "table.docx", p("Antes") + table + p("Depois")), ParseOptions())
    assert_document_consistent(doc)
    assert [page.text for page in doc.pages] == ["Antes\n\na1 | b1", "a2 | b2\n\nDepois"]


def test_single_cell_rows_keep_their_paragraphs(tmp_path: Path) -> None:
    table = f"<w:tbl><w:tr><w:tc>{p('Cláusula 1')}{p('Cláusula 2')}</w:tc></w:tr></w:tbl>"
    doc = parse_docx(make_docx(tmp_path / "box.docx", table), ParseOptions())
    assert texts(doc) == ["Cláusula 1", "Cláusula 2"]


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_empty_docx() -> None:
    with pytest.raises(EmptyFileError, match="has no text"):
        parse_docx(require(CORPUS / "mammoth_tests" / "empty.docx"), ParseOptions())


def test_zip_without_a_document(tmp_path: Path) -> None:
    path = tmp_path / "no_body.docx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(CorruptFileError):
        parse_docx(path, ParseOptions())


def test_broken_xml(tmp_path: Path) -> None:
    src = require(CORPUS / "mammoth_tests" / "single-paragraph.docx")
    path = tmp_path / "broken.docx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(path, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "word/document.xml":
                data = data[: len(data) // 2]
            zout.writestr(info, data)
    with pytest.raises(CorruptFileError):
        parse_docx(path, ParseOptions())


def test_junk_and_truncated_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.docx"
    junk.write_bytes(random.Random(1).randbytes(4000))
    with pytest.raises(ParseError):
        parse_docx(junk, ParseOptions())
    truncated = tmp_path / "truncated.docx"
    truncated.write_bytes(require(CORPUS / "docx2python_tests" / "example.docx").read_bytes()[:5000])
    with pytest.raises(CorruptFileError):
        parse_docx(truncated, ParseOptions())


def test_encrypted_docx_says_so(tmp_path: Path) -> None:
    from tests.test_parse_detect import ole_file

    path = tmp_path / "secret.docx"
    path.write_bytes(ole_file(["EncryptedInfo", "EncryptedPackage"]))
    with pytest.raises(EncryptedFileError):
        parse_docx(path, ParseOptions())


def test_format_number() -> None:
    assert [format_number(n, "lowerRoman") for n in (1, 4, 9, 14, 40)] == ["i", "iv", "ix", "xiv", "xl"]
    assert [format_number(n, "upperLetter") for n in (1, 26, 27)] == ["A", "Z", "AA"]
    assert format_number(3, "decimalZero") == "03"
    assert format_number(3, "ordinalTitle") == "3"


# --------------------------------------------------------------------------------------------
# Struck-through (revoked) text
# --------------------------------------------------------------------------------------------


def test_struck_run_left_out_and_counted() -> None:
    path = require(CORPUS / "mammoth_tests" / "strikethrough.docx")  # <w:strike/> on a run
    doc = parse_docx(path, ParseOptions())
    assert texts(doc) == ["Sold out"]
    assert doc.warnings == (
        "1 revoked (struck-through) passage left out of the index; to index it marked [revoked: ...], "
        "turn the case's setting on with `casetrack case set CASE --keep-revoked`, then ingest the file again "
        "with --force",
    )
    kept = parse_docx(path, ParseOptions(keep_revoked=True))
    assert texts(kept) == ["[revoked: Today's Special: Salmon] Sold out"]
    assert kept.warnings == ("1 revoked (struck-through) passage indexed, marked [revoked: ...]",)


def test_double_strike_too() -> None:
    path = require(CORPUS / "docx2python_tests" / "run_styles.docx")  # w:strike and w:dstrike
    paragraphs = texts(parse_docx(path, ParseOptions()))
    assert "Underline" in paragraphs and "Superscript" in paragraphs
    assert "Strikethrough" not in paragraphs and "Double Strikethough" not in paragraphs
    kept = texts(parse_docx(path, ParseOptions(keep_revoked=True)))
    assert "[revoked: Double Strikethough]" in kept  # two struck runs, one passage


def r(text: str, rpr: str = "") -> str:
    return f'<w:r><w:rPr>{rpr}</w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>'


STRIKE = "<w:strike/>"


def make_docx_with_styles(path: Path, body: str, styles: str) -> Path:
    make_docx(path, body)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("word/styles.xml", f'<?xml version="1.0"?><w:styles xmlns:w="{W_NS}">{styles}</w:styles>')
    return path


def test_statute_in_portuguese(tmp_path: Path) -> None:
    body = (
        f"<w:p>{r('Art. 5º Texto original do artigo.', STRIKE)}</w:p>"
        f"<w:p>{r('Art. 5º Texto em vigor. ')}{r('(Redação dada pela Lei nº 9.515, de 1997)')}</w:p>"
        f"<w:p>{r('III - ascensão;', STRIKE)}{r(' (Revogado pela Lei nº 9.527, de 1997)')}</w:p>"
        f"<w:p>{r('O contrato ')}{r('não ', STRIKE)}{r('será', STRIKE)}{r(' rescindido.')}</w:p>"
    )
    path = make_docx(tmp_path / "lei.docx", body)
    doc = parse_docx(path, ParseOptions())
    assert_document_consistent(doc)
    assert texts(doc) == [
        "Art. 5º Texto em vigor. (Redação dada pela Lei nº 9.515, de 1997)",
        "III - (Revogado pela Lei nº 9.527, de 1997)",  # the label stays with planalto's note
        "O contrato rescindido.",
    ]
    assert doc.warnings[0].startswith("3 revoked (struck-through) passages left out")
    kept = parse_docx(path, ParseOptions(keep_revoked=True))
    assert_document_consistent(kept)
    assert texts(kept) == [
        "[revogado: Art. 5º Texto original do artigo.]",
        "Art. 5º Texto em vigor. (Redação dada pela Lei nº 9.515, de 1997)",
        "[revogado: III - ascensão;] (Revogado pela Lei nº 9.527, de 1997)",
        "O contrato [revogado: não será] rescindido.",
    ]


def test_strike_from_styles_and_direct_override(tmp_path: Path) -> None:
    styles = (
        '<w:style w:type="character" w:styleId="Base"><w:rPr><w:dstrike/></w:rPr></w:style>'
        '<w:style w:type="character" w:styleId="Revogado"><w:basedOn w:val="Base"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="Riscado"><w:rPr><w:strike/></w:rPr></w:style>'
    )
    char_style = '<w:rStyle w:val="Revogado"/>'
    not_struck = '<w:strike w:val="0"/>'
    riscado = '<w:pPr><w:pStyle w:val="Riscado"/></w:pPr>'
    body = (
        f"<w:p>{r('Keep ')}{r('gone', char_style)}{r(' end')}</w:p>"
        f"<w:p>{riscado}{r('all struck')}</w:p>"
        f"<w:p>{riscado}{r('shown', not_struck)}</w:p>"
    )
    doc = parse_docx(make_docx_with_styles(tmp_path / "styles.docx", body, styles), ParseOptions())
    assert texts(doc) == ["Keep end", "shown"]
    assert doc.warnings[0].startswith("2 revoked")


def test_struck_text_across_a_page_break_keeps_the_page(tmp_path: Path) -> None:
    body = (
        f"<w:p>{r('Um ')}{r('velho', STRIKE)}"
        f"<w:r><w:rPr><w:strike/></w:rPr><w:lastRenderedPageBreak/><w:t>riscado</w:t></w:r>{r(' Dois')}</w:p>"
    )
    # Each page's part of the passage is marked on its own page.
    for keep, expected in (
        (False, ["Um", "Dois"]),
        (True, ["Um [revogado: velho]", "[revogado: riscado] Dois"]),
    ):
        doc = parse_docx(make_docx(tmp_path / "break.docx", body), ParseOptions(keep_revoked=keep))
        assert_document_consistent(doc)
        assert [page.text for page in doc.pages] == expected
