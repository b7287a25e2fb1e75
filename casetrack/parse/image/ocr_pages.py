"""Scanned pages into `Page`s through tesseract (casetrack/ocr), one page at a time, each kept
on disk as soon as it is read (image/page_cache.py) so an interrupted file resumes where it stopped.

An OCR'd page has the same layout as a native one (paragraphs of lines, parse/pagebuilder.py):
tesseract's paragraphs and lines become ours, in its reading order (block by block, so a
two-column scan reads column by column); each line keeps its mean word confidence. A scanned
transcript page whose margin numbers were read apart (ocr/margin.py) reads as a native one does:
top to bottom, each line "12 text" with its printed number first, for the transcript rule
(parse/transcript/); any other page exactly as tesseract read it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from casetrack.domain import ExtractionMethod, Page
from casetrack.errors import ParseError
from casetrack.parse.image.page_cache import PageCache
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder


def ocr_problem(options: ParseOptions) -> ParseError | None:
    """Why scanned pages cannot be OCR'd now (OCR off, tesseract or a language missing), as
    the error a file with only such pages gets; None when OCR can run."""
    from casetrack.ocr import RECOMMENDED_ENV, require_languages

    for key, value in RECOMMENDED_ENV.items():  # tesseract inherits it (one thread a page: faster on 2 cores)
        os.environ.setdefault(key, value)
    if not options.ocr_languages:
        return ParseError(
            "OCR is turned off for this ingest (CASETRACK_OCR_LANGUAGES or --ocr-languages is empty).",
            "Unset it, or set it to eng, por or eng+por, and run `casetrack reocr`.",
        )
    try:
        require_languages(options.ocr_languages)
    except ParseError as e:
        return e
    return None


def page_from_ocr(ocr: Any, number: int | None) -> Page:
    """A `Page` from casetrack.ocr's OcrPage: its paragraphs and lines, each line's confidence
    (a transcript page's lines with their printed margin numbers, module docstring)."""
    from casetrack.ocr import numbered_paragraphs

    builder = PageBuilder(number)
    for paragraph in numbered_paragraphs(ocr):
        lines = list(paragraph.lines)
        builder.add_paragraph([line.text for line in lines], confidences=[line.confidence for line in lines])
    method = ExtractionMethod.OCR if not builder.is_empty else ExtractionMethod.NONE
    return builder.build(method, ocr_confidence=ocr.confidence if not builder.is_empty else None)


def ocr_image_page(image: Any, number: int | None, options: ParseOptions, dpi: int | None) -> Page:
    """OCR one page image (turned upright, deskewed) into a `Page`; `dpi` None: unknown."""
    from casetrack.ocr import ocr_image

    assert options.ocr_languages
    return page_from_ocr(
        ocr_image(image, options.ocr_languages, timeout=options.ocr_page_timeout, dpi=dpi), number
    )


def ocr_pdf_page(path: Path, index: int, options: ParseOptions, cache: PageCache) -> Page:
    """Page `index` (0-based) of a PDF rendered at `options.ocr_dpi` and OCR'd, or its copy
    from `cache` when an earlier, interrupted ingest already read it."""
    from casetrack.ocr import render_pdf_page

    number = index + 1
    kept = cache.get(number)
    if kept is not None:
        return kept
    rendered = render_pdf_page(path, index, dpi=options.ocr_dpi, password=options.password)
    try:
        page = ocr_image_page(rendered.image, number, options, rendered.dpi)
    finally:
        rendered.image.close()
    cache.put(page)
    return page
