"""Components layer: OCR of scanned pages and images with tesseract (pytesseract), with lines, boxes and confidences.

engine     — is tesseract installed, which languages, the install command (`engine_info`,
             `ocr_languages`, `require_languages`); OcrUnavailableError, OcrTimeoutError.
recognize  — `ocr_image(image, languages)` -> `OcrPage`: upright (OSD), deskewed, tesseract TSV;
             `margin_text` reads the top and bottom strips (Bates stamps).
layout     — `OcrPage` / `OcrParagraph` / `OcrLine`, the TSV parser and its noise rule, `source_box`.
margin     — a scanned transcript's printed margin line numbers (`OcrPage.margin`), read apart;
             `numbered_paragraphs(page)`: the lines as "12 text", as a native transcript has them.
orient     — grey conversion, orientation (OSD) and skew (projection profile).
render     — `render_pdf_page(path, index, dpi)` with pypdfium2, huge pages capped at MAX_PIXELS.
images     — `image_pages(path)`: PNG/JPEG/TIFF pages one at a time, decompression bombs refused.
headers    — the pixel sizes an image file declares, read without decoding.

Typical use: `for page in image_pages(path): ocr_image(page.image, ocr_languages("en"), dpi=page.dpi)`;
`r = render_pdf_page(path, i); ocr_image(r.image, langs, dpi=r.dpi)`. Set `RECOMMENDED_ENV`
(OMP_THREAD_LIMIT=1) in the environment at start-up (engine docstring).
"""

from casetrack.errors import ImageTooLargeError, OcrFailedError, OcrTimeoutError, OcrUnavailableError
from casetrack.ocr.engine import RECOMMENDED_ENV, EngineInfo, engine_info, ocr_languages, require_languages
from casetrack.ocr.images import PIXEL_LIMIT, ScanPage, image_page_count, image_pages
from casetrack.ocr.layout import LineNumbers, OcrLine, OcrPage, OcrParagraph, source_box
from casetrack.ocr.margin import numbered_paragraphs
from casetrack.ocr.recognize import margin_text, ocr_image
from casetrack.ocr.render import MAX_PIXELS, PDFIUM_LOCK, RenderedPage, pdf_page_count, render_pdf_page

__all__ = [
    "MAX_PIXELS",
    "PDFIUM_LOCK",
    "PIXEL_LIMIT",
    "RECOMMENDED_ENV",
    "EngineInfo",
    "ImageTooLargeError",
    "LineNumbers",
    "OcrFailedError",
    "OcrLine",
    "OcrPage",
    "OcrParagraph",
    "OcrTimeoutError",
    "OcrUnavailableError",
    "RenderedPage",
    "ScanPage",
    "engine_info",
    "image_page_count",
    "image_pages",
    "margin_text",
    "numbered_paragraphs",
    "ocr_image",
    "ocr_languages",
    "pdf_page_count",
    "render_pdf_page",
    "require_languages",
    "source_box",
]
