"""PDF pages as images for OCR, with pypdfium2.

`render_pdf_page(path, index, dpi=300)` renders one page (0-based) in 8-bit grey, as the page is
shown (its /Rotate applied, annotations drawn). A page whose render at `dpi` would have more than
`max_pixels` pixels (a poster, an engineering drawing, a 116-inch "hugemono" page) is rendered at
the highest whole DPI that fits, so memory stays bounded: MAX_PIXELS = 40 megapixels, 40 MB of grey,
is an A2 sheet at 300 DPI; a letter page at 300 DPI is 8.4 MP. `RenderedPage.dpi` is the resolution
used: pass it to `ocr_image`, and divide a pixel box by dpi / 72 for PDF points.

PDFium is not thread-safe (not even across documents): every call here holds PDFIUM_LOCK. Other
code that calls pypdfium2 in the same process should hold it too.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

from casetrack.errors import CorruptFileError, EncryptedFileError

MAX_PIXELS = 40_000_000
PDFIUM_LOCK = threading.RLock()  # module docstring: PDFium must not run in two threads at once
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD


@dataclass(frozen=True)
class RenderedPage:
    image: Image.Image  # mode "L"
    dpi: int  # the resolution used (lower than asked for a huge page)
    width_pt: float  # the page as shown (after /Rotate), in PDF points
    height_pt: float


@contextmanager
def _document(path: Path, password: str | None) -> Iterator[pdfium.PdfDocument]:
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(path, password=password or None)
        except pdfium.PdfiumError as e:
            if getattr(e, "err_code", None) == _PASSWORD_ERROR:
                raise EncryptedFileError(
                    f"{path.name} is password-protected.", "Ingest it again with its password."
                ) from e
            raise CorruptFileError(
                f"{path.name} could not be opened as a PDF ({e}).",
                "Check that it opens in a PDF viewer; re-save or re-export it.",
            ) from e
        except OSError as e:
            raise CorruptFileError(
                f"{path.name} could not be read ({e.strerror or e}).",
                "Check that the file exists and is readable.",
            ) from e
        try:
            yield doc
        finally:
            doc.close()


def pdf_page_count(path: Path, password: str | None = None) -> int:
    """How many pages the PDF has."""
    with _document(path, password) as doc:
        return len(doc)


def fitting_dpi(width_pt: float, height_pt: float, dpi: int, max_pixels: int = MAX_PIXELS) -> int:
    """`dpi`, or the highest whole DPI at which a page of this size stays within `max_pixels`."""
    area = max(width_pt, 1.0) * max(height_pt, 1.0) / (72.0 * 72.0)  # square inches
    if area * dpi * dpi <= max_pixels:
        return dpi
    return max(1, math.floor(math.sqrt(max_pixels / area)))


def render_pdf_page(
    path: Path, index: int, dpi: int = 300, password: str | None = None, max_pixels: int = MAX_PIXELS
) -> RenderedPage:
    """Page `index` (0-based) of the PDF at `path` in grey, at `dpi` or lower (module docstring)."""
    with _document(path, password) as doc:
        if not 0 <= index < len(doc):
            raise IndexError(f"{path.name} has {len(doc)} pages; page index {index} is out of range")
        page = doc[index]
        try:
            width_pt, height_pt = page.get_size()
            used = fitting_dpi(width_pt, height_pt, dpi, max_pixels)
            try:
                bitmap = page.render(scale=used / 72.0, grayscale=True)
            except pdfium.PdfiumError as e:
                raise CorruptFileError(
                    f"Page {index + 1} of {path.name} could not be drawn ({e}).",
                    "Re-save the PDF with a PDF viewer and ingest it again.",
                ) from e
            # to_pil() shares the bitmap's native buffer, freed with the bitmap: keep a copy.
            image = bitmap.to_pil().copy()
            bitmap.close()
        finally:
            page.close()
    return RenderedPage(image, used, float(width_pt), float(height_pt))
