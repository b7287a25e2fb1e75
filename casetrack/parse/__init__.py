"""Components layer: a file into a `ParsedDocument` (pages with the exact character spans of their lines and paragraphs), by magic bytes; PDF, DOCX, TXT/MD, RTF."""

from __future__ import annotations

from pathlib import Path

from casetrack.domain import FileType, ParsedDocument
from casetrack.errors import NoTextError


def parse_file(path: Path, password: str | None = None) -> ParsedDocument:
    """Detect the type by magic bytes and parse. Raises a `ParseError` subclass on bad input."""
    from casetrack.parse.detect import detect_file_type

    file_type = detect_file_type(path)
    if file_type == FileType.PDF:
        from casetrack.parse.pdf import parse_pdf

        return parse_pdf(path, password=password)
    if file_type == FileType.DOCX:
        from casetrack.parse.docx import parse_docx

        return parse_docx(path)
    if file_type == FileType.RTF:
        from casetrack.parse.rtf import parse_rtf

        return parse_rtf(path)
    if file_type in (FileType.TEXT, FileType.MARKDOWN):
        from casetrack.parse.text import parse_text

        return parse_text(path, file_type)
    raise NoTextError(
        f"{path.name} is an image: it needs OCR, which this version does not do yet.",
        "OCR support is coming; for now convert it to a searchable PDF (e.g. `ocrmypdf`) and ingest that.",
    )
