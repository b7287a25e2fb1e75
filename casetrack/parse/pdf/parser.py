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
from casetrack.parse.options import PageProgress, ParseOptions, no_progress
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


def parse_pdf(
    path: Path,
    password: str | None = None,
    options: ParseOptions | None = None,
    on_page: PageProgress = no_progress,
) -> ParsedDocument:
    """Parse a PDF into pages with exact line and paragraph spans; scanned pages (or pages whose
    text layer is garbage) are OCR'd when `options` allow it and tesseract can run.

    Raises EmptyFileError, EncryptedFileError, CorruptFileError or NoTextError (every page
    is blank or needs OCR that cannot run); a page that fails on its own is left empty with a
    warning. `on_page(done, total)` after each page.
    """
    path = Path(path)
    options = options or ParseOptions(password=password)
    password = password or options.password
    check_not_empty(path)
    pages: list[Page] = []
    warnings: list[str] = []
    failures: list[str] = []
    title: str | None = None
    ocr = _Ocr(path, options)
    with open_pdf(path, password) as pdf:
        title = _title(pdf.metadata)
        pdf_pages = page_list(pdf, path)
        for number, page in enumerate(pdf_pages, start=1):
            redacted = 0
            try:
                built, warning = _parse_page(page, number)
                if built.needs_ocr:
                    page.close()
                    _forget_objects(pdf)  # the scan's image stream, decoded to judge the page
                    built, warning = ocr.page(built, number)
                elif built.paragraphs:
                    redacted = bad_redaction_boxes(page, path, number - 1, password)
            except Exception as e:  # one bad page must not lose the document
                reason = short_reason(e)
                logger.warning(
                    "%s p. %d: %s", path.name, number, reason, exc_info=logger.isEnabledFor(logging.DEBUG)
                )
                failures.append(reason)
                built = PageBuilder(number).build(ExtractionMethod.NONE)
                warning = f"p. {number}: could not be read ({reason}); page left empty"
            finally:
                page.close()  # drop cached chars and layout so long files stay small in memory
            pages.append(built)
            if warning:
                warnings.append(warning)
            if redacted:
                warnings.append(bad_redaction_warning(number, redacted))
            on_page(number, len(pdf_pages))
    resumed = ocr.cache.resumed_warning()
    if resumed:
        warnings.append(resumed)
    if not pages:
        raise no_pages_error(path, password)
    if all(not p.paragraphs for p in pages):
        n = len(pages)
        if len(failures) == n:
            where = none_of(n, "could be read", "could not be read")
            raise CorruptFileError(f"{path.name}: {where} ({failures[0]}).", REPAIR_HINT)
        if any(p.needs_ocr for p in pages):
            raise scanned_error(path, n, ocr.problem)
        where = none_of(n, "contains any text", "contains no text")
        raise NoTextError(f"{path.name}: {where}.", "There is nothing to index in it.")
    return ParsedDocument(file_type=FileType.PDF, pages=tuple(pages), title=title, warnings=tuple(warnings))


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
