"""Components layer: a file into a `ParsedDocument` (pages with the exact character spans of their lines and paragraphs), by magic bytes; PDF (scanned pages OCR'd), DOCX, TXT/MD, RTF, HTML, e-mails (.eml, Outlook .msg; a .mbox is split by ingest), DOCX comments, images (OCR'd)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from casetrack.domain import ParsedDocument
from casetrack.parse.options import PageProgress, ParseOptions, no_progress


def parse_file(
    path: Path,
    password: str | None = None,
    options: ParseOptions | None = None,
    on_page: PageProgress = no_progress,
) -> ParsedDocument:
    """Detect the type by magic bytes (detect.py) and parse with its format's parser (formats.py).
    Raises a `ParseError` subclass on bad input.

    `options`: password and OCR settings (default: English OCR, no resume cache); `password` and
    `on_page(done, total)` (as each page of a paged file is read), when given, go into them."""
    # Imported here: `casetrack.parse.detect` and the other light modules of the package must not
    # bring every format's reader (pdfplumber, docx2python, lxml) in with them.
    from casetrack.parse.detect import detect_file_type, misnamed
    from casetrack.parse.formats import PARSERS

    options = options or ParseOptions(password=password)
    if password and not options.password:
        options = replace(options, password=password)
    if on_page is not no_progress:
        options = replace(options, on_page=on_page)
    found = detect_file_type(path)
    parsed = PARSERS[found](path, options)
    warning = misnamed(path, found)
    return replace(parsed, warnings=(warning, *parsed.warnings)) if warning else parsed
