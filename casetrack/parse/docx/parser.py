"""DOCX: body paragraphs, headings, numbered lists, table rows and notes, via docx2python.

docx2python turns the XML into paragraphs of text runs and already keeps tracked insertions
while dropping deletions (it reads w:t, never w:delText) and leaves comments out of the body.
What it does not give us we read from the same lxml tree it parsed (each `Par.elem`):

* tables: a paragraph's w:tc/w:tr ancestors (docx2python's own nesting is unreliable),
  see `docx/walker.py`;
* pages: Word's w:lastRenderedPageBreak marks, swapped for a sentinel character before
  docx2python walks the tree, so breaks inside a paragraph land at the right offset,
  see `docx/pages.py`;
* list numbers: numbering.xml rendered the way Word shows them ("2.1.1.", "(a)"); docx2python
  only gives the last level ("1)"), which loses legal clause numbers, see `docx/numbering.py`;
* headings: style names from styles.xml (style ids are localised, e.g. "Ttulo1"), see
  `docx/styles.py`.

Headers and footers are skipped; footnotes and endnotes go at the end, then the comments, each a
paragraph that names its author, date and the text it is attached to (`docx/comments.py`). Struck-through
runs are marked in the XML too and left out or kept marked (`docx/strike.py`, `revoked.py`). This module
hands the package (docx/package.py) to docx2python and turns every failure into a ParseError.
"""

from __future__ import annotations

import logging
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

from docx2python import docx2python
from lxml import etree

from casetrack.domain import FileType, Page, ParagraphKind, ParsedDocument
from casetrack.errors import EmptyFileError, ParseError
from casetrack.parse.detect import detect_file_type
from casetrack.parse.docx.comments import Comment, read_comments
from casetrack.parse.docx.package import Package, corrupt, main_part_name, prepare_package
from casetrack.parse.docx.pages import PageAssembler
from casetrack.parse.docx.walker import DocxWalker
from casetrack.parse.options import ParseOptions
from casetrack.parse.revoked import RevokedText

logger = logging.getLogger(__name__)


def _parse_package(package: Package, name: str, revoked: RevokedText) -> tuple[tuple[Page, ...], str | None]:
    with warnings.catch_warnings():
        # docx2python warns about XML comments, odd tags and missing metadata: noise here.
        warnings.simplefilter("ignore")
        with docx2python(package.source, html=False, duplicate_merged_cells=False) as content:
            walker = DocxWalker(content, name, revoked)
            out = PageAssembler(paged=package.page_mode is not None)
            walker.body(out)
            for lines in walker.notes_paragraphs():
                out.add([lines], ParagraphKind.FOOTNOTE)
            for comment in _comments(package, name):
                out.add([comment.lines()], ParagraphKind.FOOTNOTE)
            return out.finish(), walker.title()


def _comments(package: Package, name: str) -> list[Comment]:
    """The package's comments; none (and a line in the log) when its comments part is damaged."""
    try:
        with zipfile.ZipFile(package.source) as zf:
            main = main_part_name(zf)
        return read_comments(package.source, main)
    except (KeyError, zipfile.BadZipFile, etree.XMLSyntaxError, ValueError) as e:
        logger.info("comments of %s not read: %s", name, e)
        return []


def parse_docx(path: Path, options: ParseOptions) -> ParsedDocument:
    """Parse a DOCX file: one Page per rendered page if Word recorded them, else one Page.

    Struck-through text is left out, or kept marked with `options.keep_revoked` (revoked.py)."""
    _check_zip_start(path)
    read = _read(path, options.keep_revoked)
    if not any(page.paragraphs for page in read.pages):
        raise EmptyFileError(f"{path.name} has no text.", hint="Check that the right file was ingested.")
    return ParsedDocument(file_type=FileType.DOCX, pages=read.pages, title=read.title, warnings=read.warnings)


def _check_zip_start(path: Path) -> None:
    """Raises unless the file starts as a ZIP package does."""
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
        detect_file_type(path)
        raise corrupt(name, "not a ZIP package")


@dataclass(frozen=True)
class _Read:
    pages: tuple[Page, ...]
    title: str | None
    warnings: tuple[str, ...]


def _read(path: Path, keep_revoked: bool) -> _Read:
    """The package read, every way it can fail as a CorruptFileError (ParseErrors as they are)."""
    name = path.name
    try:
        return _read_package(path, keep_revoked)
    except (ParseError, MemoryError):  # too big to unpack: the parse process's cap says so (isolated.py)
        raise
    except zipfile.BadZipFile as e:
        raise corrupt(name, f"bad ZIP archive: {e}") from e
    except KeyError as e:
        raise corrupt(name, f"missing part or name {e}") from e
    except etree.XMLSyntaxError as e:
        raise corrupt(name, f"broken XML: {e}") from e
    except RecursionError as e:
        raise corrupt(name, "XML nested too deeply") from e
    except Exception as e:  # lxml and docx2python raise many types; the batch must go on
        logger.debug("docx2python failed on %s", path, exc_info=True)
        raise corrupt(name, f"{type(e).__name__}: {e}") from e


def _read_package(path: Path, keep_revoked: bool) -> _Read:
    """Pages, title and warnings; once more with the `r:` prefix declared in every part when
    docx2python trips on a part that lacks it (a KeyError)."""
    package = prepare_package(path)
    revoked = RevokedText(keep_revoked, package.language)
    try:
        pages, title = _parse_package(package, path.name, revoked)
    except KeyError as first:
        logger.debug("retrying %s with the r: namespace prefix declared (%r)", path.name, first)
        package = prepare_package(path, fix_r_prefix=True)
        revoked = RevokedText(keep_revoked, package.language)
        pages, title = _parse_package(package, path.name, revoked)
    doc_warnings: list[str] = []
    if package.page_mode == "explicit":
        doc_warnings.append(
            "Page numbers come from explicit page and section breaks only (Word's own pagination "
            "was not saved in the file), so they can be lower than the printed page numbers."
        )
    note = revoked.warning()
    if note:
        doc_warnings.append(note)
    return _Read(pages, title, tuple(doc_warnings))
