"""PDF → `ParsedDocument`: one `Page` per PDF page, lines and paragraphs as laid out.

The geometry (columns, lines, paragraphs) lives in `pdf/layout.py`; this module reads the file
page by page (opened and its failures mapped to the user-facing errors by `pdf/opening.py`),
decides per page whether the text layer is usable or the page needs OCR (`pdf/text_layer.py`),
builds every native page through `PageBuilder` and hands the others to tesseract
(parse/image/ocr_pages.py) when it can run; otherwise they stay `needs_ocr`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from casetrack.domain import ExtractionMethod, FileType, Page, ParsedDocument
from casetrack.errors import CorruptFileError, NoTextError, ParseError
from casetrack.parse.image.ocr_pages import ocr_pdf_page, ocr_problem
from casetrack.parse.image.page_cache import PageCache
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.pdf.chars import page_chars_and_images
from casetrack.parse.pdf.layout import layout_page
from casetrack.parse.pdf.opening import (
    REPAIR_HINT,
    check_not_empty,
    no_pages_error,
    none_of,
    open_pdf,
    page_list,
    scanned_error,
    short_reason,
)
from casetrack.parse.pdf.redaction import bad_redaction_boxes, bad_redaction_warning
from casetrack.parse.pdf.text_layer import page_area, text_layer_verdict

logger = logging.getLogger(__name__)


def parse_pdf(path: Path, options: ParseOptions) -> ParsedDocument:
    """Parse a PDF into pages with exact line and paragraph spans; scanned pages (or pages whose
    text layer is garbage) are OCR'd when `options` allow it and tesseract can run.

    Raises EmptyFileError, EncryptedFileError, CorruptFileError or NoTextError (every page
    is blank or needs OCR that cannot run); a page that fails on its own is left empty with a
    warning. `options.on_page(done, total)` after each page.
    """
    path = Path(path)
    check_not_empty(path)
    ocr = _Ocr(path, options)
    with open_pdf(path, options.password) as pdf:
        title = _title(pdf.metadata)
        pages, warnings, failures = _read_pages(pdf, path, ocr, options)
    resumed = ocr.cache.resumed_warning()
    if resumed:
        warnings.append(resumed)
    if not pages:
        raise no_pages_error(path, options.password)
    if all(not p.paragraphs for p in pages):
        raise _no_text_error(path, pages, failures, ocr.problem)
    return ParsedDocument(file_type=FileType.PDF, pages=tuple(pages), title=title, warnings=tuple(warnings))


def _read_pages(
    pdf: Any, path: Path, ocr: _Ocr, options: ParseOptions
) -> tuple[list[Page], list[str], list[str]]:
    """Every page read, the warnings they give and why each page that failed did."""
    pages: list[Page] = []
    warnings: list[str] = []
    failures: list[str] = []
    pdf_pages = page_list(pdf, path)
    for number, page in enumerate(pdf_pages, start=1):
        built, page_warnings, failure = _read_page(pdf, page, number, ocr, options.password)
        pages.append(built)
        warnings += page_warnings
        if failure is not None:
            failures.append(failure)
        options.on_page(number, len(pdf_pages))
    return pages, warnings, failures


def _read_page(
    pdf: Any, page: Any, number: int, ocr: _Ocr, password: str | None
) -> tuple[Page, list[str], str | None]:
    """One page: its text layer, else its OCR; its warnings (bad redactions too); why it failed,
    when it did (then it is left empty: one bad page must not lose the document)."""
    redacted = 0
    try:
        built, warning = _parse_page(page, number)
        if built.needs_ocr:
            page.close()
            _forget_objects(pdf)  # the scan's image stream, decoded to judge the page
            built, warning = ocr.page(built, number)
        elif built.paragraphs:
            redacted = bad_redaction_boxes(page, ocr.path, number - 1, password)
    except Exception as e:  # one bad page must not lose the document
        reason = short_reason(e)
        logger.warning(
            "%s p. %d: %s", ocr.path.name, number, reason, exc_info=logger.isEnabledFor(logging.DEBUG)
        )
        empty = PageBuilder(number).build(ExtractionMethod.NONE)
        return empty, [f"p. {number}: could not be read ({reason}); page left empty"], reason
    finally:
        page.close()  # drop cached chars and layout so long files stay small in memory
    warnings = [warning] if warning else []
    if redacted:
        warnings.append(bad_redaction_warning(number, redacted))
    return built, warnings, None


def _no_text_error(
    path: Path, pages: list[Page], failures: list[str], problem: ParseError | None
) -> ParseError:
    """Why a PDF none of whose pages has text cannot be indexed."""
    n = len(pages)
    if len(failures) == n:
        where = none_of(n, "could be read", "could not be read")
        return CorruptFileError(f"{path.name}: {where} ({failures[0]}).", REPAIR_HINT)
    if any(p.needs_ocr for p in pages):
        return scanned_error(path, n, problem)
    where = none_of(n, "contains any text", "contains no text")
    return NoTextError(f"{path.name}: {where}.", "There is nothing to index in it.")


def pdf_page_count(path: Path, password: str | None = None) -> int:
    """Number of pages, without reading any page content. Raises like `parse_pdf`."""
    path = Path(path)
    check_not_empty(path)
    with open_pdf(path, password) as pdf:
        return len(page_list(pdf, path))


def _forget_objects(pdf: Any) -> None:
    """Drop pdfminer's cache of decoded objects after a scanned page (its image stream stays in
    it: ~0.8 MB a page, 400 MB over a 500-page scan; measured flat at 111 MB from 8 to 32 pages
    with this); text pages keep theirs (shared fonts)."""
    cached = getattr(getattr(pdf, "doc", None), "_cached_objs", None)
    if isinstance(cached, dict):
        cached.clear()


class _Ocr:
    """The OCR of one PDF's scanned pages: checks once whether tesseract can run, keeps each
    page read in the resume cache, and turns a page's failure into a warning."""

    def __init__(self, path: Path, options: ParseOptions) -> None:
        self.path, self.options = path, options
        self.cache = PageCache(options.ocr_cache, path, options)
        self.problem: ParseError | None = None
        self._checked = False

    def page(self, scanned: Page, number: int) -> tuple[Page, str | None]:
        if not self._checked:
            self.problem, self._checked = ocr_problem(self.options), True
        if self.problem is not None:
            return scanned, f"p. {number}: no usable text layer (scanned?) and no OCR: {self.problem.message}"
        try:
            return ocr_pdf_page(self.path, number - 1, self.options, self.cache), None
        except ParseError as e:  # a page over its time limit, or one tesseract cannot read
            return scanned, f"p. {number}: OCR failed ({e.message}); page left out"


def _title(metadata: dict[str, Any]) -> str | None:
    title = metadata.get("Title") if isinstance(metadata, dict) else None
    if not isinstance(title, str):
        return None
    title = " ".join(title.split())
    return title[:300] or None


def _parse_page(page: Any, number: int) -> tuple[Page, str | None]:
    chars, images = page_chars_and_images(page)
    builder = PageBuilder(number)
    verdict = text_layer_verdict(chars, images, page_area(page))
    if verdict == "blank":
        return builder.build(ExtractionMethod.NONE), None
    if verdict == "ocr":
        return (
            builder.build(ExtractionMethod.NONE, needs_ocr=True),
            f"p. {number}: no usable text layer (scanned?); OCR needed",
        )
    for para in layout_page(chars, float(page.width), float(page.height)):
        builder.add_paragraph(para.lines, para.kind)
    if builder.is_empty:
        return builder.build(ExtractionMethod.NONE), None
    return builder.build(ExtractionMethod.NATIVE), None
