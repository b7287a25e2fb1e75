"""E-mail messages (.eml: RFC 5322 with MIME; Outlook .msg converted to it by email/msg.py) as one
unpaged Page: the header lines, then the body.

The page starts with the lines a mail program shows (From, To, Cc, Bcc, Date, Subject, and the
attachments' names), so a search for a sender or a subject finds the e-mail and a citation can
point at them (ll. 1-6). The body follows after one blank line: the plain-text body when there is
one (its own lines, blank lines counted, so line numbers are what a reader counts down the
message), else the HTML body read by html/reader.py (scripts, styles and struck text handled as in
HTML files). Quoted-printable and base64 are undone and each part is decoded from its charset
(a wrong or unknown label falls back to `textcodec`'s guess). Attachments are not part of the
text: ingest stores each as a document of its own (ingest/attachments.py); the MIME tree is
split into body and attachments by email/parts.py, the headers read by email/headers.py.
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from casetrack.domain import FileType, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError, ParseError
from casetrack.parse.email.headers import EmailHeaders, headers_of
from casetrack.parse.email.msg import load_msg
from casetrack.parse.email.parts import BodyPart, MessageParts, part_text, split_parts
from casetrack.parse.html.reader import HtmlReader
from casetrack.parse.ole2 import is_ole
from casetrack.parse.options import ParseOptions
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.revoked import RevokedText, guess_language
from casetrack.parse.text.lines import blank_line_blocks, split_lines
from casetrack.parse.textcodec import nfc

_TAG = re.compile(r"<[^>]*>")
_RESAVE = "Save the message again from the mail program (Save As, or Download as .eml) and ingest that copy."


def load_message(path: Path) -> EmailMessage:
    """The message in `path` (the stdlib's modern policy: headers decoded, parts by content type);
    an Outlook .msg (an OLE2 file) converted to one by email/msg.py."""
    if is_ole(path):
        return load_msg(path)
    try:
        with path.open("rb") as f:
            message = BytesParser(policy=policy.default).parse(f)
    except OSError as e:
        raise ParseError(
            f"{path.name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e
    if not isinstance(message, EmailMessage):  # pragma: no cover - policy.default always builds one
        raise CorruptFileError(f"{path.name} could not be read as an e-mail.", hint=_RESAVE)
    return message


def read_email(path: Path) -> tuple[EmailHeaders, MessageParts]:
    """The message's headers and parts; raises when the file is no e-mail at all."""
    if path.stat().st_size == 0:
        raise EmptyFileError(
            f"{path.name} is empty (0 bytes).", hint="Check that the file was copied completely."
        )
    message = load_message(path)
    headers = headers_of(message)
    if headers.empty:
        raise CorruptFileError(
            f"{path.name} does not look like an e-mail: it has no From, To, Date or Subject header.",
            hint=_RESAVE,
        )
    return headers, split_parts(message)


def _add_plain(builder: PageBuilder, text: str, first_line: int) -> int:
    """Plain-text body lines, numbered from `first_line` with blank lines counted; returns the
    number the next part's first line gets (after one blank line)."""
    lines = split_lines(nfc(text))
    for start, block in blank_line_blocks(lines):
        builder.add_paragraph(block, first_line_number=first_line + start)
    return first_line + len(lines) + 1


def _add_html(builder: PageBuilder, text: str, first_line: int, revoked: RevokedText) -> int:
    reader = HtmlReader(revoked)
    reader.feed(nfc(text))
    reader.close()
    pinned: int | None = first_line
    for lines, kind in reader.paragraphs:
        before = builder.next_line_number
        builder.add_paragraph(lines, kind, first_line_number=pinned)
        if builder.next_line_number != before:
            pinned = None  # the first line with text is pinned; the rest follow it
    return max(builder.next_line_number + 1, first_line)


def _body(
    builder: PageBuilder, parts: tuple[BodyPart, ...], first_line: int, options: ParseOptions
) -> list[str]:
    """Add the body parts; returns the warnings they give."""
    warnings: list[str] = []
    revoked: RevokedText | None = None
    replaced = 0
    for body in parts:
        decoded = part_text(body.part)
        replaced += decoded.replaced
        if body.html:
            if revoked is None:
                revoked = RevokedText(
                    options.keep_revoked, guess_language(_TAG.sub(" ", decoded.text[:400_000]))
                )
            first_line = _add_html(builder, decoded.text, first_line, revoked)
        else:
            first_line = _add_plain(builder, decoded.text, first_line)
    if replaced:
        warnings.append(f"{replaced} undecodable byte sequence(s) in the body replaced with U+FFFD.")
    note = revoked.warning() if revoked is not None else None
    if note:
        warnings.append(note)
    return warnings


def parse_email(path: Path, options: ParseOptions) -> ParsedDocument:
    """Parse an .eml or .msg file into one unpaged Page: header lines (ll. 1-N), a blank line, the body."""
    headers, parts = read_email(path)
    builder = PageBuilder(None)
    header_lines = headers.lines(tuple(f.filename for f in parts.attachments))
    builder.add_paragraph(header_lines)
    warnings = _body(builder, parts.body, len(header_lines) + 2, options)
    if not parts.body:
        warnings.append("the message has no text body: only its header lines are searchable")
    if parts.damaged:
        warnings.append(parts.damaged)
    return ParsedDocument(
        file_type=FileType.EMAIL,
        pages=(builder.build(),),
        title=headers.subject or None,
        warnings=tuple(warnings),
    )
