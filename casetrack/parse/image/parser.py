"""Images (PNG, JPEG, TIFF incl. multi-page fax TIFFs) → `ParsedDocument`: one OCR'd page per
image page, read one at a time (ocr/images.py refuses decompression bombs before decoding)."""

from __future__ import annotations

from pathlib import Path

from casetrack.domain import ExtractionMethod, FileType, Page, ParsedDocument
from casetrack.errors import CorruptFileError, NoTextError, ParseError, ScanNotReadError
from casetrack.parse.image.ocr_pages import ocr_image_page, ocr_problem
from casetrack.parse.image.page_cache import PageCache
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder


def parse_image(path: Path, options: ParseOptions) -> ParsedDocument:
    """OCR every page of an image file. Raises NoTextError when OCR cannot run (with the command
    that installs it) or nothing could be read, CorruptFileError for damaged or oversized images.
    `options.on_page(done, total)` after each page."""
    from casetrack.ocr import image_page_count, image_pages

    problem = ocr_problem(options)
    if problem is not None:
        raise ScanNotReadError(
            f"{path.name} is an image: it needs OCR, which cannot run: {problem.message}", problem.hint
        )
    total = image_page_count(path)
    cache = PageCache(options.ocr_cache, path, options)
    pages: list[Page] = []
    warnings: list[str] = []
    scans = image_pages(path)
    while True:  # decoded one at a time; a page read before comes from the cache
        try:
            scan = next(scans, None)
        except CorruptFileError as e:  # a damaged page after good ones: keep what was read
            if not pages:
                raise
            warnings.append(f"p. {len(pages) + 1} and after: could not be read ({e.message})")
            break
        if scan is None:
            break
        number = scan.index + 1
        page = cache.get(number)
        if page is None:
            try:
                page = ocr_image_page(scan.image, number, options, scan.dpi)
                cache.put(page)
            except ParseError as e:  # one page over its time limit must not lose the others
                warnings.append(f"p. {number}: OCR failed ({e.message}); page left out")
                page = PageBuilder(number).build(ExtractionMethod.NONE, needs_ocr=True)
        scan.image.close()
        pages.append(page)
        options.on_page(number, total)
    resumed = cache.resumed_warning()
    if resumed:
        warnings.append(resumed)
    if not any(p.paragraphs for p in pages):
        raise NoTextError(
            f"{path.name}: OCR found no text in this image.",
            "Check that the image shows text, upright and legible.",
        )
    return ParsedDocument(file_type=FileType.IMAGE, pages=tuple(pages), warnings=tuple(warnings))
