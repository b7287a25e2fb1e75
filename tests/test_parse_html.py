"""HTML: statutes as planalto.gov.br publishes them, court decision pages, encodings, revoked text."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from casetrack.domain import FileType, ParagraphKind, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError
from casetrack.parse import parse_file
from casetrack.parse.detect import detect_file_type
from casetrack.parse.html.charset import declared_encoding, decode_html
from casetrack.parse.html.parser import parse_html
from casetrack.parse.options import ParseOptions
from tests.layout_contract import assert_page_consistent

FIXTURES = Path(__file__).parent / "fixtures"
PLANALTO = FIXTURES / "planalto_lei_8112_fragment.htm"  # windows-1252, as planalto serves it


def texts(doc: ParsedDocument, kind: ParagraphKind | None = None) -> list[str]:
    page = doc.pages[0]
    return [page.text[p.start : p.end] for p in page.paragraphs if kind is None or p.kind is kind]


def html_file(tmp_path: Path, body: str, name: str = "page.html", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(body.encode(encoding))
    return path


def parsed(tmp_path: Path, body: str, keep: bool = False) -> ParsedDocument:
    doc = parse_html(html_file(tmp_path, body), ParseOptions(keep_revoked=keep))
    assert doc.file_type is FileType.HTML and len(doc.pages) == 1 and doc.pages[0].number is None
    assert_page_consistent(doc.pages[0])
    return doc


# --------------------------------------------------------------------------------------------
# A consolidated statute from planalto.gov.br
# --------------------------------------------------------------------------------------------


def test_planalto_statute_is_detected_and_decoded_from_windows_1252() -> None:
    assert b"Rep\xfablica" in PLANALTO.read_bytes()  # the fixture really is windows-1252
    assert detect_file_type(PLANALTO) is FileType.HTML
    doc = parse_file(PLANALTO)
    assert_page_consistent(doc.pages[0])
    assert doc.title == "L8112consol"
    paragraphs = texts(doc)
    # The layout table of the page header keeps its lines; <br> makes lines, <p> paragraphs.
    assert paragraphs[0] == "Presidência da República\nCasa Civil\nSubchefia para Assuntos Jurídicos"
    assert "Título I\nCapítulo Único\nDas Disposições Preliminares" in paragraphs
    assert paragraphs[-2:] == [
        "FERNANDO COLLOR\nJarbas Passarinho",
        "Este texto não substitui o publicado no DOU de 12.12.1990",
    ]
    text = doc.pages[0].text
    # Scripts and styles are not text; entities are decoded.
    assert "janela" not in text and "margin-top" not in text and "&nbsp;" not in text and "\xa0" not in text


def test_planalto_revoked_provisions_are_left_out_and_counted() -> None:
    doc = parse_file(PLANALTO)
    paragraphs = texts(doc)
    text = doc.pages[0].text
    # Struck wording is gone; the wording in force and planalto's own notes stay.
    assert "Art. 5º São requisitos" not in text and "ascensão" not in text and "faltar" not in text
    assert (
        "Art. 5o São requisitos básicos para investidura em cargo público: (Redação dada pela Lei nº 9.515, de 20.11.97)"
        in paragraphs
    )
    # A struck item followed by planalto's "(Revogado ...)" keeps its label, so the note still
    # says what it revokes.
    assert "III - (Revogado pela Lei nº 9.527, de 10.12.97)" in paragraphs
    assert "Parágrafo único. (Revogada pela Lei nº 9.527, de 10.12.97)" in paragraphs
    assert "Art. 8o (Vetado)." in paragraphs
    assert doc.warnings == (
        "5 revoked (struck-through) passages left out of the index; to index them marked [revogado: ...], "
        "turn the case's setting on with `casetrack case set CASE --keep-revoked`, then ingest the file again "
        "with --force",
    )


def test_planalto_revoked_provisions_kept_marked_on_request() -> None:
    doc = parse_file(PLANALTO, options=ParseOptions(keep_revoked=True))
    assert_page_consistent(doc.pages[0])
    paragraphs = texts(doc)
    assert "[revogado: Art. 5º São requisitos básicos para investidura em cargo público:]" in paragraphs
    assert "[revogado: III - ascensão;] (Revogado pela Lei nº 9.527, de 10.12.97)" in paragraphs
    assert (
        '[revogado: Parágrafo único. O servidor que "faltar" ao serviço perde a remuneração do dia.] '
        "(Revogada pela Lei nº 9.527, de 10.12.97)"
    ) in paragraphs
    assert doc.warnings == ("5 revoked (struck-through) passages indexed, marked [revogado: ...]",)


# --------------------------------------------------------------------------------------------
# A court decision page
# --------------------------------------------------------------------------------------------

DECISION = """<!DOCTYPE html>
<html lang="en-US">
<head>
  <meta charset="utf-8">
  <title>Smith v. Jones, No. 21-1234 (9th Cir. 2023) :: Opinion</title>
  <style>.struck { text-decoration: line-through; } body { font-family: serif; }</style>
  <script>window.dataLayer = [{"page": "opinion"}];</script>
</head>
<body>
  <nav><ul><li><a href="/">Home</a></li><li><a href="/opinions">Opinions</a></li></ul></nav>
  <div role="navigation">Skip to content</div>
  <main>
    <h1>Smith v. Jones</h1>
    <p class="caption">United States Court of Appeals<br/>for the Ninth Circuit</p>
    <table class="parties">
      <tr><th>Appellant</th><th>Appellee</th></tr>
      <tr><td>John Smith</td><td>Acme &amp; Co.</td></tr>
    </table>
    <h2>OPINION</h2>
    <p>The district court held that &sect;&nbsp;1983 did not apply.
       We <em>reverse</em>.</p>
    <p>First, the statute reads: &#8220;no person shall <del>ever</del> be deprived&#8221;.<br>
    It was amended in 2019.<br><br>Second, the <s>old</s> <span style="color:red; TEXT-DECORATION: line-through">former</span> rule <span class="struck">was</span> is gone.</p>
    <ol><li>Reversed in part<li>Remanded</ol>
    <pre>
  Exhibit A    Page 4
  Exhibit B    Page 9
    </pre>
  </main>
  <footer><p>Filed 03/04/2023</p></footer>
  <noscript>Enable JavaScript</noscript>
</body>
</html>
"""


def test_decision_page_structure(tmp_path: Path) -> None:
    doc = parsed(tmp_path, DECISION)
    assert doc.title == "Smith v. Jones, No. 21-1234 (9th Cir. 2023) :: Opinion"
    assert texts(doc, ParagraphKind.HEADING) == ["Smith v. Jones", "OPINION"]
    assert texts(doc, ParagraphKind.TABLE) == ["Appellant | Appellee", "John Smith | Acme & Co."]
    assert texts(doc, ParagraphKind.LIST_ITEM) == ["Reversed in part", "Remanded"]
    paragraphs = texts(doc)
    assert "United States Court of Appeals\nfor the Ninth Circuit" in paragraphs
    assert "The district court held that § 1983 did not apply. We reverse." in paragraphs
    assert "Exhibit A Page 4\nExhibit B Page 9" in paragraphs  # <pre> keeps its lines
    assert paragraphs[-1] == "Filed 03/04/2023"
    text = doc.pages[0].text
    for dropped in ("Home", "Skip to content", "dataLayer", "font-family", "Enable JavaScript"):
        assert dropped not in text


def test_decision_page_struck_text_and_double_br(tmp_path: Path) -> None:
    doc = parsed(tmp_path, DECISION)
    paragraphs = texts(doc)
    # <del>, <s>, inline line-through and a <style> class; two <br>s start a new paragraph.
    assert "First, the statute reads: “no person shall be deprived”.\nIt was amended in 2019." in paragraphs
    assert "Second, the rule is gone." in paragraphs
    assert doc.warnings == (
        "3 revoked (struck-through) passages left out of the index; to index them marked [revoked: ...], "
        "turn the case's setting on with `casetrack case set CASE --keep-revoked`, then ingest the file again "
        "with --force",
    )
    kept = texts(parsed(tmp_path, DECISION, keep=True))
    # Neighbouring struck elements are one passage; the marker follows <html lang>.
    assert "Second, the [revoked: old former] rule [revoked: was] is gone." in kept
    assert (
        "First, the statute reads: “no person shall [revoked: ever] be deprived”.\nIt was amended in 2019."
        in kept
    )


def test_marker_language_is_guessed_without_a_lang_attribute(tmp_path: Path) -> None:
    doc = parsed(
        tmp_path, "<p>O contrato <s>não</s> será rescindido pela parte que o descumprir.</p>", keep=True
    )
    assert texts(doc) == ["O contrato [revogado: não] será rescindido pela parte que o descumprir."]


def test_struck_text_spanning_paragraphs_and_lines(tmp_path: Path) -> None:
    body = "<p>Art. 1º Mantido.</p><strike><p>Art. 2º Velho<br>texto.</p><p>Art. 3º Idem.</p></strike><p>Art. 4º Novo.</p>"
    assert texts(parsed(tmp_path, body)) == ["Art. 1º Mantido.", "Art. 4º Novo."]
    doc = parsed(tmp_path, body, keep=True)
    assert texts(doc) == [
        "Art. 1º Mantido.",
        "[revogado: Art. 2º Velho texto.]",
        "[revogado: Art. 3º Idem.]",
        "Art. 4º Novo.",
    ]
    assert "2 revoked" in doc.warnings[0]


def test_tolerates_unclosed_and_stray_tags(tmp_path: Path) -> None:
    body = (
        "<body><p>Um<p>Dois<div>Três</p></div><ul><li>a<li>b</ul></br>Quatro</body>"
        "<table><tr><td>Só uma célula<tr><td>x<td>y</table><p>Fim"
    )
    doc = parsed(tmp_path, body)
    assert texts(doc) == ["Um", "Dois", "Três", "a", "b", "Quatro", "Só uma célula", "x | y", "Fim"]


def test_layout_table_keeps_its_paragraphs(tmp_path: Path) -> None:
    long = "palavra " * 60
    body = f"<table><tr><td><p>Menu</p></td><td><p>Ementa.</p><p>{long}</p></td></tr></table>"
    assert texts(parsed(tmp_path, body)) == ["Menu", "Ementa.", long.strip()]


# --------------------------------------------------------------------------------------------
# Encodings
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'<meta charset="windows-1252">', "cp1252"),
        (b"<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=ISO-8859-1'>", "cp1252"),
        (b'<?xml version="1.0" encoding="iso-8859-15"?><html>', "iso8859-15"),
        (b'<meta charset="utf-16">', "utf-8"),
        (b'<meta charset="no-such-charset">', None),
        (b"<p>no declaration</p>", None),
    ],
)
def test_declared_encoding(head: bytes, expected: str | None) -> None:
    assert declared_encoding(head) == expected


def test_decoding_order() -> None:
    text = "<meta charset=iso-8859-1><p>“Ação” — pág. 3</p>"
    # iso-8859-1 is read as windows-1252 (the curly quotes are 0x93/0x94 there), as browsers do.
    assert decode_html(text.encode("cp1252")).text == text
    # A byte-order mark wins over the declaration.
    assert decode_html(codecs.BOM_UTF8 + text.encode("utf-8")).encoding == "utf-8"
    assert decode_html(codecs.BOM_UTF16_LE + text.encode("utf-16-le")).text == text
    # A page re-saved as UTF-8 that still declares its old code page.
    assert decode_html(text.encode("utf-8")).text == text
    # No declaration: the repo's guess (cp1252 for Brazilian Windows files).
    plain = "<p>Petição inicial</p>"
    assert decode_html(plain.encode("cp1252")).text == plain


def test_utf16_page_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "decisao.htm"
    path.write_bytes(codecs.BOM_UTF16_LE + "<html><body><p>Acórdão</p></body></html>".encode("utf-16-le"))
    assert detect_file_type(path) is FileType.HTML
    assert texts(parse_file(path)) == ["Acórdão"]


# --------------------------------------------------------------------------------------------
# Detection and errors
# --------------------------------------------------------------------------------------------


def test_detection(tmp_path: Path) -> None:
    def kind(name: str, data: bytes) -> FileType:
        path = tmp_path / name
        path.write_bytes(data)
        return detect_file_type(path)

    assert kind("saved.txt", b"<!-- saved from url -->\n<!DOCTYPE html><html><p>x</p>") is FileType.HTML
    assert kind("noext", b"  <HTML><BODY>x</BODY></HTML>") is FileType.HTML
    assert kind("fragment.htm", b"Ementa: <b>recurso</b> provido.") is FileType.HTML
    assert kind("plain.html", b"Just words, no tags at all.") is FileType.TEXT
    assert kind("notes.md", b"<html> in a Markdown file stays Markdown") is FileType.MARKDOWN
    assert kind("notes.txt", b"Use <b> for bold.") is FileType.TEXT
    with pytest.raises(CorruptFileError, match="HTML"):
        kind("broken.html", bytes(range(256)) * 4)


def test_page_without_text(tmp_path: Path) -> None:
    path = html_file(
        tmp_path, "<html><head><title>App</title><script>render()</script></head><body></body></html>"
    )
    with pytest.raises(EmptyFileError, match="JavaScript") as e:
        parse_html(path, ParseOptions())
    assert e.value.hint
