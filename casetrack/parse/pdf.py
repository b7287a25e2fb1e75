"""PDF → `ParsedDocument`: one `Page` per PDF page, lines and paragraphs as laid out.

The geometry (columns, lines, paragraphs) lives in `pdf_layout`; this module opens the file,
maps pdfminer's failures to the user-facing error family, decides per page whether the text
layer is usable or the page needs OCR, builds every native page through `PageBuilder` and hands
the others to tesseract (parse/ocr_pages.py) when it can run; otherwise they stay `needs_ocr`.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfplumber.utils.exceptions import PdfminerException

from casetrack.domain import ExtractionMethod, FileType, Page, ParsedDocument
from casetrack.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    NoTextError,
    ParseError,
    ScanNotReadError,
)
from casetrack.logsafe import safe_for_log
from casetrack.parse.ocr_pages import PageCache, ocr_pdf_page, ocr_problem
from casetrack.parse.options import PageProgress, ParseOptions, no_progress
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.pdf_chars import CID_RE, JUNK_RE, Box, page_chars_and_images
from casetrack.parse.pdf_layout import layout_page
from casetrack.parse.pdf_redaction import bad_redaction_boxes, bad_redaction_warning

logger = logging.getLogger(__name__)

# A scanned page often carries a stamp (Bates number, "CONFIDENTIAL", fax header): when an
# image covers most of the page, fewer letters and digits than this mean "scan with a stamp".
# Short text next to a small image (a logo, a figure) is kept.
MIN_ALNUM_CHARS_OVER_SCAN = 100
_SCAN_AREA_FRACTION = 0.5
# A page an image covers whole ("far shorter than its ink suggests"): measured over the scans
# in ../shared/data, a court header or filing stamp over a scan carries 36-102 letters and
# digits, a real OCR text layer (ABBYY, ocrmypdf) 320 or more; under this many the page is OCR'd.
MIN_ALNUM_CHARS_OVER_FULL_SCAN = 250
_FULL_SCAN_AREA_FRACTION = 0.9

_DECRYPT_HINT = (
    "Supply the password with --password (ingest) or save a decrypted copy "
    "(e.g. `qpdf --decrypt --password=PW in.pdf out.pdf`) and ingest that."
)
_REPAIR_HINT = (
    "Re-save it with a PDF tool (e.g. `qpdf in.pdf repaired.pdf`, or print to PDF) and ingest the copy."
)
# Leaders and rules ("......", "____") are neither letters nor garbage.
_FILLER_RE = re.compile(r"[\s._\-=*·…–—]")


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
    _check_not_empty(path)
    pages: list[Page] = []
    warnings: list[str] = []
    failures: list[str] = []
    title: str | None = None
    ocr = _Ocr(path, options)
    with _open_pdf(path, password) as pdf:
        title = _title(pdf.metadata)
        pdf_pages = _pages(pdf, path)
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
                reason = _short_reason(e)
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
        raise _no_pages_error(path, password)
    if all(not p.paragraphs for p in pages):
        n = len(pages)
        if len(failures) == n:
            where = _none_of(n, "could be read", "could not be read")
            raise CorruptFileError(f"{path.name}: {where} ({failures[0]}).", _REPAIR_HINT)
        if any(p.needs_ocr for p in pages):
            raise _scanned_error(path, n, ocr.problem)
        where = _none_of(n, "contains any text", "contains no text")
        raise NoTextError(f"{path.name}: {where}.", "There is nothing to index in it.")
    return ParsedDocument(file_type=FileType.PDF, pages=tuple(pages), title=title, warnings=tuple(warnings))


def pdf_page_count(path: Path, password: str | None = None) -> int:
    """Number of pages, without reading any page content. Raises like `parse_pdf`."""
    path = Path(path)
    _check_not_empty(path)
    with _open_pdf(path, password) as pdf:
        return len(_pages(pdf, path))


# --------------------------------------------------------------------------------------------
# opening and errors
# --------------------------------------------------------------------------------------------


def _forget_objects(pdf: Any) -> None:
    """Drop pdfminer's cache of decoded objects after a scanned page (its image stream stays in
    it: ~0.8 MB a page, 400 MB over a 500-page scan; measured flat at 111 MB from 8 to 32 pages
    with this); text pages keep theirs (shared fonts)."""
    cached = getattr(getattr(pdf, "doc", None), "_cached_objs", None)
    if isinstance(cached, dict):
        cached.clear()


def _check_not_empty(path: Path) -> None:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise ParseError(
            f"{path.name} cannot be read: {e.strerror or e}.", "Check that the file exists."
        ) from e
    if size == 0:
        raise EmptyFileError(
            f"{path.name} is empty (0 bytes).", "Copy or download the file again and ingest it."
        )


# Readers accept bytes before the "%PDF-" header (Acrobat looks in the first 1,024); pdfminer
# reads cross-reference offsets from byte 0 and then finds no /Root.
_HEADER_WINDOW = 1024


def _pdf_source(path: Path) -> Path | io.BytesIO:
    """The file, or its bytes from the header on when something comes before "%PDF-" (a mail
    gateway's or scanner's prefix): cross-reference offsets count from the header."""
    try:
        with path.open("rb") as f:
            head = f.read(_HEADER_WINDOW)
            at = head.find(b"%PDF-")
            if at <= 0:
                return path
            f.seek(at)
            logger.info("%s: %d bytes before the PDF header skipped", safe_for_log(path.name), at)
            return io.BytesIO(f.read())
    except OSError:
        return path  # opening it below says what is wrong


@contextmanager
def _open_pdf(path: Path, password: str | None) -> Iterator[Any]:
    try:
        pdf = pdfplumber.open(_pdf_source(path), password=password or "")
    except PdfminerException as e:
        raise _map_open_error(path, password, e.args[0] if e.args else e) from e
    except OSError as e:
        raise ParseError(
            f"{path.name} cannot be read: {e.strerror or e}.", "Check the file's permissions."
        ) from e
    except Exception as e:  # pdfminer raises anything on malformed input
        raise CorruptFileError(f"{path.name} is damaged: {_short_reason(e)}.", _REPAIR_HINT) from e
    try:
        yield pdf
    finally:
        try:
            pdf.close()
        except Exception:  # close walks the page tree, which may be what is broken
            logger.debug("closing %s failed", path.name, exc_info=True)
            pdf.stream.close()


def _map_open_error(path: Path, password: str | None, cause: BaseException) -> ParseError:
    if isinstance(cause, PDFPasswordIncorrect):
        if password:
            return EncryptedFileError(f"{path.name}: the password given does not open it.", _DECRYPT_HINT)
        return EncryptedFileError(f"{path.name} is password-protected.", _DECRYPT_HINT)
    if isinstance(cause, PDFEncryptionError):
        return EncryptedFileError(
            f"{path.name} is encrypted in a way this version cannot read ({_short_reason(cause)}).",
            "Save a decrypted copy (e.g. `qpdf --decrypt in.pdf out.pdf`) and ingest that.",
        )
    return CorruptFileError(f"{path.name} is damaged or not a PDF: {_short_reason(cause)}.", _REPAIR_HINT)


def _pages(pdf: Any, path: Path) -> list[Any]:
    try:
        return list(pdf.pages)
    except Exception as e:  # a broken page tree surfaces here
        cause = e.args[0] if isinstance(e, PdfminerException) and e.args else e
        raise CorruptFileError(
            f"{path.name}: its page list is damaged: {_short_reason(cause)}.", _REPAIR_HINT
        ) from e


def _none_of(n: int, has: str, has_not: str) -> str:
    """The page-count phrase: "its only page has no X" or "none of its 3 pages has X"."""
    return f"its only page {has_not}" if n == 1 else f"none of its {n} pages {has}"


def _scanned_error(path: Path, n: int, problem: ParseError | None = None) -> NoTextError:
    why = f" {problem.message}" if problem is not None else ""
    return (ScanNotReadError if problem is not None else NoTextError)(
        f"{path.name}: {_none_of(n, 'has a text layer', 'has no text layer')}; it is a scanned "
        f"document and OCR could not read it.{why}",
        problem.hint if problem is not None else "Check `casetrack status` for OCR (tesseract) problems.",
    )


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


def _no_pages_error(path: Path, password: str | None) -> ParseError:
    """pdfminer found no page. Ask pdfium, which walks damaged page trees pdfminer gives up
    on (or pdfplumber's metadata reading breaks), whether this is really a scan."""
    try:
        if _pdfium_sees_a_scan(path, password):
            return _scanned_error(path, 1)
    except Exception:  # only a better message is at stake
        logger.debug("pdfium probe of %s failed", path.name, exc_info=True)
    return CorruptFileError(f"{path.name}: its pages cannot be read (damaged page tree).", _REPAIR_HINT)


def _pdfium_sees_a_scan(path: Path, password: str | None) -> bool:
    """Whether pdfium finds pages with images and no text (under the OCR package's pdfium lock:
    pdfium is not thread-safe)."""
    import pypdfium2
    import pypdfium2.raw as pdfium_c

    from casetrack.ocr import PDFIUM_LOCK

    with PDFIUM_LOCK:
        doc = pypdfium2.PdfDocument(path, password=password or None)
        try:
            n = len(doc)
            with_text = sum(doc[i].get_textpage().count_chars() > 0 for i in range(n))
            with_images = sum(
                any(True for _ in doc[i].get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE])) for i in range(n)
            )
        finally:
            doc.close()
    return bool(n and with_images and not with_text)


def _short_reason(e: BaseException, limit: int = 100) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, PdfminerException) and e.args and isinstance(e.args[0], BaseException):
        return _short_reason(e.args[0], limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _title(metadata: dict[str, Any]) -> str | None:
    title = metadata.get("Title") if isinstance(metadata, dict) else None
    if not isinstance(title, str):
        return None
    title = " ".join(title.split())
    return title[:300] or None


# --------------------------------------------------------------------------------------------
# one page
# --------------------------------------------------------------------------------------------


def _parse_page(page: Any, number: int) -> tuple[Page, str | None]:
    chars, images = page_chars_and_images(page)
    builder = PageBuilder(number)
    verdict = _text_layer_verdict(chars, images, _area(page))
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


def _text_layer_verdict(chars: Sequence[dict[str, Any]], images: Sequence[Box], page_area: float) -> str:
    """The page's kind: "text", "blank" (nothing on it) or "ocr" (a scan, or garbage text)."""
    raw = "".join(c["text"] for c in chars)
    n_cid = len(CID_RE.findall(raw)) if "(cid:" in raw else 0
    visible = CID_RE.sub("\x00", raw) if n_cid else raw
    visible = _FILLER_RE.sub("", visible)
    n_junk = len(JUNK_RE.findall(visible))
    n_alnum = sum(ch.isalnum() for ch in visible)
    if visible:
        # Glyphs without a Unicode mapping come out as (cid:N), U+FFFD, control or private-
        # use characters; when they dominate, the text layer reads as gibberish.
        if n_junk / len(visible) > 0.5 or (len(visible) >= 40 and n_alnum / len(visible) < 0.25):
            return "ocr"
    if n_alnum == 0:
        return "ocr" if images else ("text" if visible else "blank")
    covered = _image_area(images) / page_area
    if n_alnum < MIN_ALNUM_CHARS_OVER_SCAN and covered >= _SCAN_AREA_FRACTION:
        return "ocr"
    if n_alnum < MIN_ALNUM_CHARS_OVER_FULL_SCAN and covered >= _FULL_SCAN_AREA_FRACTION:
        return "ocr"
    return "text"


def _area(page: Any) -> float:
    return max(float(page.width) * float(page.height), 1.0)


def _image_area(images: Sequence[Box]) -> float:
    return sum(max(b.x1 - b.x0, 0.0) * max(b.bottom - b.top, 0.0) for b in images)
