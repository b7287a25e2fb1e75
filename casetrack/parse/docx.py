"""DOCX: body paragraphs, headings, numbered lists, table rows and notes, via docx2python.

docx2python turns the XML into paragraphs of text runs and already keeps tracked insertions
while dropping deletions (it reads w:t, never w:delText) and leaves comments out of the body.
What it does not give us we read from the same lxml tree it parsed (each `Par.elem`):

* tables: a paragraph's w:tc/w:tr ancestors (docx2python's own nesting is unreliable),
  see `docx_walker`;
* pages: Word's w:lastRenderedPageBreak marks, swapped for a sentinel character before
  docx2python walks the tree, so breaks inside a paragraph land at the right offset,
  see `docx_pages`;
* list numbers: numbering.xml rendered the way Word shows them ("2.1.1.", "(a)"); docx2python
  only gives the last level ("1)"), which loses legal clause numbers, see `docx_numbering`;
* headings: style names from styles.xml (style ids are localised, e.g. "Ttulo1"), see
  `docx_styles`.

Headers, footers and comments are skipped; footnotes and endnotes go at the end. Struck-through
runs are marked in the XML too and left out or kept marked (`docx_strike`, `revoked`). This module
opens the package, marks its page breaks and turns every failure into a ParseError.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docx2python import docx2python
from lxml import etree

from casetrack.domain import FileType, Page, ParagraphKind, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError, ParseError
from casetrack.parse.docx_pages import PageAssembler, mark_page_breaks
from casetrack.parse.docx_strike import document_language, mark_struck_runs
from casetrack.parse.docx_walker import DocxWalker
from casetrack.parse.options import ParseOptions
from casetrack.parse.revoked import RevokedText

logger = logging.getLogger(__name__)


def _corrupt(name: str, why: str) -> CorruptFileError:
    return CorruptFileError(
        f"{name} is a damaged or invalid DOCX file ({why}).",
        hint="Open it in Word, save it again (File > Save As > .docx) and re-ingest it.",
    )


_R_NAMESPACE = b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_ROOT_TAG = re.compile(rb"<(?![?!])[^\s>/]+")
_MAIN_PART_REL = re.compile(rb"<Relationship\b[^>]*>")


def _main_part_name(zf: zipfile.ZipFile) -> str:
    """The main document part, found the way Word does: through the package relationships."""
    try:
        rels = zf.read("_rels/.rels")
    except KeyError:
        return "word/document.xml"
    for m in _MAIN_PART_REL.finditer(rels):
        tag = m.group(0)
        if re.search(rb'Type="[^"]*/officeDocument"', tag):
            target = re.search(rb'Target="([^"]*)"', tag)
            if target:
                return target.group(1).decode("utf-8").lstrip("/")
    return "word/document.xml"


def _declare_r_prefix(data: bytes) -> bytes:
    """Declare the `r:` prefix on a part's root element if it does not.

    docx2python's run merging reads `elem.nsmap["r"]` and raises KeyError on parts (often
    footnotes/endnotes written by non-Word tools) that never declare it.
    """
    if b"xmlns:r=" in data[:4096]:
        return data
    m = _ROOT_TAG.search(data)
    if m is None:
        return data
    return data[: m.end()] + b' xmlns:r="' + _R_NAMESPACE + b'"' + data[m.end() :]


_SAFE_XML = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


@dataclass
class _Package:
    source: Path | io.BytesIO
    page_mode: str | None
    language: str = "en"  # of the marker kept struck-through text gets (only read when any is)


def _styles_root(zf: zipfile.ZipFile, main_name: str) -> Any | None:
    name = main_name.rsplit("/", 1)[0] + "/styles.xml" if "/" in main_name else "styles.xml"
    try:
        data = zf.read(name)
        # Most documents have no struck style: skip parsing the part a second time.
        return etree.fromstring(data, _SAFE_XML) if b"strike" in data else None
    except (KeyError, etree.XMLSyntaxError):
        return None  # docx2python reports a broken styles part itself


def _prepare_package(path: Path, fix_r_prefix: bool = False) -> _Package:
    """The package docx2python should read: the file itself, or an in-memory copy.

    Page breaks are marked in the raw XML because docx2python merges a run's w:t elements
    when it loads a part, which moves a w:lastRenderedPageBreak to the end of the run.
    """
    with zipfile.ZipFile(path) as zf:
        main_name = _main_part_name(zf)
        try:
            root = etree.fromstring(zf.read(main_name), _SAFE_XML)
        except KeyError as e:
            raise _corrupt(path.name, f"no main document part {main_name}") from e
        struck = mark_struck_runs(root, _styles_root(zf, main_name))
        page_mode = mark_page_breaks(root)
        if page_mode is None and not struck and not fix_r_prefix:
            return _Package(path, None)
        main_xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        out = io.BytesIO()
        # Stored, not deflated: the copy lives for one parse, and images need no recompression.
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
            for info in zf.infolist():
                data = main_xml if info.filename == main_name else zf.read(info)
                if fix_r_prefix and info.filename.endswith(".xml"):
                    data = _declare_r_prefix(data)
                dst.writestr(zipfile.ZipInfo(info.filename, info.date_time), data)
    out.seek(0)
    return _Package(out, page_mode, document_language(root) if struck else "en")


def _parse_package(package: _Package, name: str, revoked: RevokedText) -> tuple[tuple[Page, ...], str | None]:
    with warnings.catch_warnings():
        # docx2python warns about XML comments, odd tags and missing metadata: noise here.
        warnings.simplefilter("ignore")
        with docx2python(package.source, html=False, duplicate_merged_cells=False) as content:
            walker = DocxWalker(content, name, revoked)
            out = PageAssembler(paged=package.page_mode is not None)
            walker.body(out)
            for lines in walker.notes_paragraphs():
                out.add([lines], ParagraphKind.FOOTNOTE)
            return out.finish(), walker.title()


def parse_docx(path: Path, options: ParseOptions | None = None) -> ParsedDocument:
    """Parse a DOCX file: one Page per rendered page if Word recorded them, else one Page.

    Struck-through text is left out, or kept marked with `options.keep_revoked` (revoked.py)."""
    keep_revoked = options.keep_revoked if options is not None else False
    name = path.name
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError as e:
        raise ParseError(
            f"{name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e
    if not head:
        raise EmptyFileError(f"{name} is empty (0 bytes).", hint="Check that the file was copied completely.")
    if not head.startswith(b"PK"):
        # Encrypted DOCX and legacy .doc are OLE2 files; detection says which, with a hint.
        from casetrack.parse.detect import detect_file_type

        detect_file_type(path)
        raise _corrupt(name, "not a ZIP package")

    try:
        package = _prepare_package(path)
        revoked = RevokedText(keep_revoked, package.language)
        try:
            pages, title = _parse_package(package, name, revoked)
        except KeyError as first:
            logger.debug("retrying %s with the r: namespace prefix declared (%r)", name, first)
            package = _prepare_package(path, fix_r_prefix=True)
            revoked = RevokedText(keep_revoked, package.language)
            pages, title = _parse_package(package, name, revoked)
    except (ParseError, MemoryError):  # too big to unpack: the parse process's cap says so (isolated.py)
        raise
    except zipfile.BadZipFile as e:
        raise _corrupt(name, f"bad ZIP archive: {e}") from e
    except KeyError as e:
        raise _corrupt(name, f"missing part or name {e}") from e
    except etree.XMLSyntaxError as e:
        raise _corrupt(name, f"broken XML: {e}") from e
    except RecursionError as e:
        raise _corrupt(name, "XML nested too deeply") from e
    except Exception as e:  # lxml and docx2python raise many types; the batch must go on
        logger.debug("docx2python failed on %s", path, exc_info=True)
        raise _corrupt(name, f"{type(e).__name__}: {e}") from e

    if not any(page.paragraphs for page in pages):
        raise EmptyFileError(f"{name} has no text.", hint="Check that the right file was ingested.")
    doc_warnings: list[str] = []
    if package.page_mode == "explicit":
        doc_warnings.append(
            "Page numbers come from explicit page and section breaks only (Word's own pagination "
            "was not saved in the file), so they can be lower than the printed page numbers."
        )
    note = revoked.warning()
    if note:
        doc_warnings.append(note)
    return ParsedDocument(file_type=FileType.DOCX, pages=pages, title=title, warnings=tuple(doc_warnings))
