"""Scanned pages into `Page`s through tesseract (casetrack/ocr), one page at a time, each kept
on disk as soon as it is read so an interrupted file resumes where it stopped.

An OCR'd page has the same layout as a native one (paragraphs of lines, parse/pagebuilder.py):
tesseract's paragraphs and lines become ours, in its reading order (block by block, so a
two-column scan reads column by column); each line keeps its mean word confidence. A scanned
transcript page whose margin numbers were read apart (ocr/margin.py) reads as a native one does:
top to bottom, each line "12 text" with its printed number first, for the transcript rule
(parse/transcript.py); any other page exactly as tesseract read it.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from casetrack import atomic_files
from casetrack.domain import ExtractionMethod, Page, Paragraph, ParagraphKind, Span
from casetrack.errors import ParseError
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder

log = logging.getLogger(__name__)

CACHE_VERSION = 2  # 2: transcript pages carry their margin numbers


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


class PageCache:
    """OCR'd pages of one file, one JSON file each (0600), written atomically; a no-op without
    a folder. Keyed by the file's size and modification time as well as the settings, so an
    edited file or other languages are read afresh."""

    def __init__(self, folder: str | None, source: Path, options: ParseOptions) -> None:
        self.folder = Path(folder) if folder else None
        try:
            stat = source.stat()
            stamp = f"{stat.st_size}-{int(stat.st_mtime)}"
        except OSError:
            stamp = "unknown"
        self.key = f"v{CACHE_VERSION}-{stamp}-{options.ocr_languages}-{options.ocr_dpi}"
        self.reused = 0  # pages taken from an interrupted ingest

    def resumed_warning(self) -> str | None:
        """The ingest report's note when pages came from an interrupted ingest."""
        if not self.reused:
            return None
        return f"OCR resumed: {self.reused} page(s) read before an interruption were reused, not read again"

    def _path(self, number: int) -> Path:
        assert self.folder is not None
        return self.folder / f"page-{number:05d}.json"

    def get(self, number: int) -> Page | None:
        if self.folder is None:
            return None
        try:
            data = json.loads(self._path(number).read_text(encoding="utf-8"))
            page = _page_from_json(data) if data.get("key") == self.key else None
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):  # a torn or foreign file: read the page again
            return None
        self.reused += page is not None
        return page

    def put(self, page: Page) -> None:
        if self.folder is None or page.number is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            target = self._path(page.number)
            atomic_files.write_json(target, {"key": self.key, **_page_json(page)})
        except OSError as e:  # only resuming is at stake
            log.warning("could not keep OCR'd page %s: %s", page.number, e)


def _page_json(page: Page) -> dict[str, Any]:
    return {
        "number": page.number,
        "text": page.text,
        "lines": [[s.number, s.start, s.end] for s in page.lines],
        "paragraphs": [[p.number, p.start, p.end, p.kind.value] for p in page.paragraphs],
        "method": page.extraction_method.value,
        "confidence": page.ocr_confidence,
        "line_confidences": list(page.line_confidences),
    }


def _page_from_json(data: dict[str, Any]) -> Page:
    return Page(
        number=data["number"],
        text=data["text"],
        lines=tuple(Span(n, s, e) for n, s, e in data["lines"]),
        paragraphs=tuple(Paragraph(n, s, e, ParagraphKind(k)) for n, s, e, k in data["paragraphs"]),
        extraction_method=ExtractionMethod(data["method"]),
        ocr_confidence=data["confidence"],
        line_confidences=tuple(float(c) for c in data["line_confidences"]),
    )
