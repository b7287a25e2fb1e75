"""Components layer: a file into a `ParsedDocument` (pages with the exact character spans of their lines and paragraphs), by magic bytes; PDF (scanned pages OCR'd), DOCX, TXT/MD, RTF, HTML, e-mails (.eml; a .mbox is split by ingest), images (OCR'd)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from casetrack.domain import FileType, ParsedDocument
from casetrack.parse.options import PageProgress, ParseOptions, no_progress


def parse_file(
    path: Path,
    password: str | None = None,
    options: ParseOptions | None = None,
    on_page: PageProgress = no_progress,
) -> ParsedDocument:
    """Detect the type by magic bytes and parse. Raises a `ParseError` subclass on bad input.

    `options`: password and OCR settings (default: English OCR, no resume cache); `on_page(done,
    total)` as each page of a paged file is read."""
    from casetrack.parse.detect import detect_file_type

    options = options or ParseOptions(password=password)
    if password and not options.password:
        options = replace(options, password=password)
    file_type = detect_file_type(path)
    if file_type == FileType.PDF:
        from casetrack.parse.pdf.parser import parse_pdf

        return _stamped(parse_pdf(path, options=options, on_page=on_page))
    if file_type == FileType.DOCX:
        from casetrack.parse.docx.parser import parse_docx

        return parse_docx(path, options)
    if file_type == FileType.RTF:
        from casetrack.parse.rtf.parser import parse_rtf

        return parse_rtf(path)
    if file_type == FileType.HTML:
        from casetrack.parse.html.parser import parse_html

        return parse_html(path, options)
    if file_type == FileType.EMAIL:
        from casetrack.parse.email.parser import parse_email

        return parse_email(path, options)
    if file_type == FileType.MBOX:
        from casetrack.errors import UnsupportedFileError

        raise UnsupportedFileError(
            f"{path.name} is a mailbox holding many e-mails, not one document.",
            hint=f'Ingest it with `casetrack ingest --case CASE "{path}"`: each message becomes a document.',
        )
    if file_type in (FileType.TEXT, FileType.MARKDOWN):
        from casetrack.parse.text.parser import parse_text

        return parse_text(path, file_type)
    from casetrack.parse.image.parser import parse_image

    return _stamped(parse_image(path, options, on_page))


def _stamped(parsed: ParsedDocument) -> ParsedDocument:
    """Pages with their Bates stamps read (parse/bates.py), then read as transcript pages where
    their lines carry printed margin numbers."""
    from casetrack.parse.bates import with_bates

    return _transcribed(replace(parsed, pages=tuple(with_bates(parsed.pages))))


def _transcribed(parsed: ParsedDocument) -> ParsedDocument:
    """A deposition or hearing transcript's pages with their printed page:line numbers and margin
    numbers out (parse/transcript/); any other document unchanged."""
    from casetrack.parse.transcript.pages import with_transcripts

    return with_transcripts(parsed)
