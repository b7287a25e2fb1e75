"""TXT, MD and RTF parsing: real line numbers, encodings, structure, span consistency."""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.domain import FileType, ParagraphKind, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError
from casetrack.parse.options import ParseOptions
from casetrack.parse.rtf.parser import parse_rtf, rtf_to_paragraphs
from casetrack.parse.text.parser import parse_markdown, parse_text
from tests.conftest import DATA, require
from tests.layout_contract import assert_page_consistent

LENER = DATA / "lener_br" / "raw_text"


def paragraph_texts(doc: ParsedDocument) -> list[tuple[ParagraphKind, str]]:
    return [(p.kind, page.text[p.start : p.end]) for page in doc.pages for p in page.paragraphs]


# --------------------------------------------------------------------------------------------
# Plain text
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["AC1TJAC.txt", "HC418951PR.txt", "ACORDAOTCU11602016.txt"])
def test_lener_line_numbers_are_the_files(name: str) -> None:
    path = require(LENER / name)
    file_lines = path.read_bytes().decode("utf-8").split("\n")
    doc = parse_text(path, ParseOptions())
    assert doc.file_type is FileType.TEXT and len(doc.pages) == 1
    page = doc.pages[0]
    assert page.number is None
    assert_page_consistent(page, source_line_numbers=True)
    for line in page.lines:
        assert page.text[line.start : line.end] == " ".join(file_lines[line.number - 1].split())
    # Every non-blank line of the file is there, none twice.
    assert len(page.lines) == sum(1 for line in file_lines if line.split())


def test_lener_accents_intact() -> None:
    page = parse_text(require(LENER / "AC1TJAC.txt"), ParseOptions()).pages[0]
    assert "PODER JUDICIÁRIO DO ESTADO DO ACRE" in page.text
    assert "Segunda Câmara Cível" in page.text
    assert "Acórdão n. : 5.582" in page.text
    first = page.lines[0]
    assert first.number == 1 and page.text[first.start : first.end] == "PODER JUDICIÁRIO DO ESTADO DO ACRE"


def test_all_lener_texts_parse() -> None:
    for path in sorted(require(LENER).glob("*.txt")):
        doc = parse_text(path, ParseOptions())
        assert_page_consistent(doc.pages[0], source_line_numbers=True)


def test_blank_lines_still_count(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"\n\nfirst\n\n\n  second  para\nstill second\n\nthird")
    page = parse_text(path, ParseOptions()).pages[0]
    assert_page_consistent(page, source_line_numbers=True)
    assert [ln.number for ln in page.lines] == [3, 6, 7, 9]
    assert page.text == "first\n\nsecond para\nstill second\n\nthird"
    assert [p.number for p in page.paragraphs] == [1, 2, 3]


def test_newline_styles(tmp_path: Path) -> None:
    for newline in (b"\r\n", b"\r", b"\n"):
        path = tmp_path / "n.txt"
        path.write_bytes(newline.join([b"one", b"", b"three", b"four"]) + newline)
        page = parse_text(path, ParseOptions()).pages[0]
        assert [ln.number for ln in page.lines] == [1, 3, 4]
        assert page.text == "one\n\nthree\nfour"


def test_form_feed_does_not_start_a_line(tmp_path: Path) -> None:
    # str.splitlines() would break at \x0c and shift every later line number.
    path = tmp_path / "ff.txt"
    path.write_bytes(b"page one\x0cpage two\nline two\n")
    page = parse_text(path, ParseOptions()).pages[0]
    assert [ln.number for ln in page.lines] == [1, 2]


def test_cp1252_file(tmp_path: Path) -> None:
    path = tmp_path / "peticao.txt"
    path.write_bytes("EXCELENTÍSSIMO SENHOR JUIZ\n\nAção de cobrança – “urgente”\n".encode("cp1252"))
    doc = parse_text(path, ParseOptions())
    assert doc.pages[0].text == "EXCELENTÍSSIMO SENHOR JUIZ\n\nAção de cobrança – “urgente”"
    assert doc.warnings == ()


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16-le", "utf-16-be", "utf-16"])
@pytest.mark.parametrize("name", ["AC1TJAC.txt", "ACO2821STF.txt", "HC418951PR.txt"])
def test_lener_saved_by_windows_tools_reads_as_the_original(tmp_path: Path, name: str, encoding: str) -> None:
    # Notepad's "ANSI" and "Unicode" (UTF-16, with or without BOM) saves of the same decision.
    src = require(LENER / name)
    path = tmp_path / name
    path.write_bytes(src.read_text("utf-8").encode(encoding))
    page, reference = parse_text(path, ParseOptions()).pages[0], parse_text(src, ParseOptions()).pages[0]
    assert page.text == reference.text
    assert [line.number for line in page.lines] == [line.number for line in reference.lines]
    assert parse_text(path, ParseOptions()).warnings == ()


def test_decomposed_accents_are_normalised(tmp_path: Path) -> None:
    path = tmp_path / "mac.txt"
    path.write_text("Ac\u0327a\u0303o\n", encoding="utf-8")
    assert parse_text(path, ParseOptions()).pages[0].text == "Ação"


def test_empty_and_blank_text(tmp_path: Path) -> None:
    empty = tmp_path / "e.txt"
    empty.write_bytes(b"")
    with pytest.raises(EmptyFileError):
        parse_text(empty, ParseOptions())
    blank = tmp_path / "b.txt"
    blank.write_bytes(b"\n \n\t\n")
    with pytest.raises(EmptyFileError):
        parse_text(blank, ParseOptions())


def test_large_file(tmp_path: Path) -> None:
    src = require(LENER / "AC1TJAC.txt").read_bytes()
    path = tmp_path / "big.txt"
    copies = 5_000_000 // len(src) + 1
    path.write_bytes(src * copies)
    page = parse_text(path, ParseOptions()).pages[0]
    per_copy = src.count(b"\n")
    last = page.lines[-1]
    assert last.number > per_copy * (copies - 1)
    assert page.text[last.start : last.end] == " ".join(
        src.decode().split("\n")[last.number - 1 - per_copy * (copies - 1)].split()
    )


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------

MARKDOWN = """# Contrato de Locação

Cláusula com texto
em duas linhas.
- primeiro item
  continua
* segundo item
1. item numerado

Título Setext
=============

| Parte | Papel |
|-------|-------|
| Ana   | Locadora |

```
# não é título
```
"""


def test_markdown_structure(tmp_path: Path) -> None:
    path = tmp_path / "c.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    doc = parse_markdown(path, ParseOptions())
    assert doc.file_type is FileType.MARKDOWN and doc.title == "Contrato de Locação"
    page = doc.pages[0]
    assert_page_consistent(page, source_line_numbers=True)
    assert paragraph_texts(doc) == [
        (ParagraphKind.HEADING, "# Contrato de Locação"),
        (ParagraphKind.BODY, "Cláusula com texto\nem duas linhas."),
        (ParagraphKind.LIST_ITEM, "- primeiro item\ncontinua"),
        (ParagraphKind.LIST_ITEM, "* segundo item"),
        (ParagraphKind.LIST_ITEM, "1. item numerado"),
        (ParagraphKind.HEADING, "Título Setext\n============="),
        (ParagraphKind.TABLE, "| Parte | Papel |\n|-------|-------|\n| Ana | Locadora |"),
        (ParagraphKind.BODY, "```\n# não é título\n```"),
    ]
    lines = MARKDOWN.split("\n")
    for line in page.lines:
        assert page.text[line.start : line.end] == " ".join(lines[line.number - 1].split())


# --------------------------------------------------------------------------------------------
# RTF
# --------------------------------------------------------------------------------------------

RTF = (
    rb"{\rtf1\ansi\ansicpg1252\deff0\uc1"
    rb"{\fonttbl{\f0\froman\fcharset0 Times New Roman;}{\f1\fswiss\fcharset204 Arial Cyr;}}"
    rb"{\colortbl;\red0\green0\blue0;}"
    rb"{\stylesheet{\ql Normal;}{\s1\ql\outlinelevel0 heading 1;}}"
    rb"{\info{\title Contrato de Loca\'e7\'e3o}{\author Fulano}}"
    rb"{\header\pard Cabe\'e7alho repetido\par}"
    b"\r\n"
    rb"\pard\plain\s1 Cl\'e1usula Primeira\par"
    b"\r\n"
    rb"\pard\plain A loca\'e7\'e3o ter\u225?\u160? in\'edcio em 1\u186? de mar\u231?o."
    rb"{\super\chftn}{\footnote\pard\plain{\super\chftn} Nota de rodap\'e9.}"
    rb"\line Segunda linha do par\'e1grafo.\par"
    rb'{\*\bkmkstart x}{\field{\*\fldinst HYPERLINK "http://x"}{\fldrslt texto do link}}\par'
    rb"\pard\intbl Nome\cell Valor\cell\row"
    rb"\pard{\listtext 1.\tab}Item um\par"
    rb"{\f1 \'cf\'f0\'e8\'e2\'e5\'f2}\par"
    rb"{\v oculto}{\deleted apagado}vis\'edvel \{chaves\} \u-10179?\u-8694?\par"
    rb"{\pict\pngblip 89504e470d0a}\par"
    rb"}"
)


def test_rtf_text_and_structure(tmp_path: Path) -> None:
    path = tmp_path / "contrato.rtf"
    path.write_bytes(RTF)
    doc = parse_rtf(path, ParseOptions())
    assert doc.file_type is FileType.RTF and doc.title == "Contrato de Locação"
    assert len(doc.pages) == 1 and doc.pages[0].number is None
    assert_page_consistent(doc.pages[0])
    assert paragraph_texts(doc) == [
        (ParagraphKind.HEADING, "Cláusula Primeira"),
        (ParagraphKind.BODY, "A locação terá início em 1º de março.[1]\nSegunda linha do parágrafo."),
        (ParagraphKind.BODY, "texto do link"),
        (ParagraphKind.TABLE, "Nome | Valor"),
        (ParagraphKind.LIST_ITEM, "1. Item um"),
        (ParagraphKind.BODY, "Привет"),
        (ParagraphKind.BODY, "visível {chaves} \U0001f60a"),
        (ParagraphKind.FOOTNOTE, "[1] Nota de rodapé."),
    ]
    assert "Cabeçalho" not in doc.pages[0].text and "Fulano" not in doc.pages[0].text


def test_rtf_unicode_skip_count() -> None:
    # \uc2: each \u is followed by two fallback characters to skip.
    paragraphs, _, _ = rtf_to_paragraphs(rb"{\rtf1\uc2 a\u231 cxb\u231\'e7\'e7c\par}")
    assert paragraphs == [(["a\u00e7b\u00e7c"], ParagraphKind.BODY)]


def test_rtf_truncated_keeps_text_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "cut.rtf"
    path.write_bytes(rb"{\rtf1\ansi Texto que termina {\b no meio")
    doc = parse_rtf(path, ParseOptions())
    assert doc.pages[0].text == "Texto que termina no meio"
    assert doc.warnings and "truncated" in doc.warnings[0]


def test_rtf_malformed(tmp_path: Path) -> None:
    not_rtf = tmp_path / "x.rtf"
    not_rtf.write_bytes(b"just text")
    with pytest.raises(CorruptFileError):
        parse_rtf(not_rtf, ParseOptions())
    bad_bin = tmp_path / "y.rtf"
    bad_bin.write_bytes(rb"{\rtf1 a\bin9999 xyz}")
    with pytest.raises(CorruptFileError):
        parse_rtf(bad_bin, ParseOptions())
    bad_escape = tmp_path / "z.rtf"
    bad_escape.write_bytes(rb"{\rtf1 a\'zz b}")
    with pytest.raises(CorruptFileError):
        parse_rtf(bad_escape, ParseOptions())


def test_rtf_without_text(tmp_path: Path) -> None:
    path = tmp_path / "e.rtf"
    path.write_bytes(rb"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\pard\par}")
    with pytest.raises(EmptyFileError):
        parse_rtf(path, ParseOptions())
