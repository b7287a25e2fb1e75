"""Opening a PDF with pdfplumber, and what goes wrong: pdfminer's failures (a password, an
encryption this version cannot read, a damaged file or page tree) mapped to the user-facing
error family, each with the command that fixes it; and the errors of a PDF with no text to read.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfplumber.utils.exceptions import PdfminerException

from casetrack.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    NoTextError,
    ParseError,
    ScanNotReadError,
)
from casetrack.logsafe import safe_for_log
from casetrack.parse.pdf.stream_limits import check_streams

logger = logging.getLogger(__name__)

_DECRYPT_HINT = (
    "Supply the password with --password (ingest) or save a decrypted copy "
    "(e.g. `qpdf --decrypt --password=PW in.pdf out.pdf`) and ingest that."
)
REPAIR_HINT = (
    "Re-save it with a PDF tool (e.g. `qpdf in.pdf repaired.pdf`, or print to PDF) and ingest the copy."
)


def check_not_empty(path: Path) -> None:
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
def open_pdf(path: Path, password: str | None) -> Iterator[Any]:
    check_streams(path)  # a stream that would inflate to gigabytes is refused before pdfminer inflates it
    try:
        pdf = pdfplumber.open(_pdf_source(path), password=password or "")
    except PdfminerException as e:
        raise _map_open_error(path, password, e.args[0] if e.args else e) from e
    except OSError as e:
        raise ParseError(
            f"{path.name} cannot be read: {e.strerror or e}.", "Check the file's permissions."
        ) from e
    except Exception as e:  # pdfminer raises anything on malformed input
        raise CorruptFileError(f"{path.name} is damaged: {short_reason(e)}.", REPAIR_HINT) from e
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
            f"{path.name} is encrypted in a way this version cannot read ({short_reason(cause)}).",
            "Save a decrypted copy (e.g. `qpdf --decrypt in.pdf out.pdf`) and ingest that.",
        )
    return CorruptFileError(f"{path.name} is damaged or not a PDF: {short_reason(cause)}.", REPAIR_HINT)


def page_list(pdf: Any, path: Path) -> list[Any]:
    try:
        return list(pdf.pages)
    except Exception as e:  # a broken page tree surfaces here
        cause = e.args[0] if isinstance(e, PdfminerException) and e.args else e
        raise CorruptFileError(
            f"{path.name}: its page list is damaged: {short_reason(cause)}.", REPAIR_HINT
        ) from e


def none_of(n: int, has: str, has_not: str) -> str:
    """The page-count phrase: "its only page has no X" or "none of its 3 pages has X"."""
    return f"its only page {has_not}" if n == 1 else f"none of its {n} pages {has}"


def scanned_error(path: Path, n: int, problem: ParseError | None = None) -> NoTextError:
    why = f" {problem.message}" if problem is not None else ""
    return (ScanNotReadError if problem is not None else NoTextError)(
        f"{path.name}: {none_of(n, 'has a text layer', 'has no text layer')}; it is a scanned "
        f"document and OCR could not read it.{why}",
        problem.hint if problem is not None else "Check `casetrack status` for OCR (tesseract) problems.",
    )


def no_pages_error(path: Path, password: str | None) -> ParseError:
    """pdfminer found no page. Ask pdfium, which walks damaged page trees pdfminer gives up
    on (or pdfplumber's metadata reading breaks), whether this is really a scan."""
    try:
        if _pdfium_sees_a_scan(path, password):
            return scanned_error(path, 1)
    except Exception:  # only a better message is at stake
        logger.debug("pdfium probe of %s failed", path.name, exc_info=True)
    return CorruptFileError(f"{path.name}: its pages cannot be read (damaged page tree).", REPAIR_HINT)


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


def short_reason(e: BaseException, limit: int = 100) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, PdfminerException) and e.args and isinstance(e.args[0], BaseException):
        return short_reason(e.args[0], limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"
