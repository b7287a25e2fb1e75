"""Whether a file is an e-mail (.eml) or a mailbox (.mbox), by its first bytes: a header block
(RFC 5322) at the start, after an envelope "From " line in a mailbox. Mail systems and users drop
the extension, so the headers decide; a memo's "To: / From: / Date: / Re:" block is no e-mail."""

from __future__ import annotations

import re
from pathlib import Path

from casetrack.domain import FileType
from casetrack.parse.email.mbox import is_envelope

MAIL_EXTENSIONS: frozenset[str] = frozenset({".eml", ".mbox"})
# A message's header block fits in this many bytes (detect.py judges the same first 64 KiB).
_HEAD_BYTES = 64 * 1024

_HEADER_LINE = re.compile(rb"^([!-9;-~]+):")  # a field name: printable ASCII but the colon
_MAIL_FIELDS = frozenset({b"from", b"to", b"cc", b"date", b"subject"})
# Fields only mail carries: with them a file needs no .eml name to be taken for an e-mail (a memo's
# "To: / From: / Date: / Re:" block has none of them).
_TRANSPORT_FIELDS = frozenset(
    {
        b"message-id",
        b"mime-version",
        b"received",
        b"return-path",
        b"delivered-to",
        b"x-mailer",
        b"dkim-signature",
        b"in-reply-to",
        b"references",
        b"thread-topic",
    }
)


def _header_names(lines: list[bytes]) -> set[bytes] | None:
    """The field names of the header block `lines` starts with; None when a line before the blank
    line that ends it is not a header (so this is no header block)."""
    names: set[bytes] = set()
    for line in lines:
        line = line.rstrip(b"\r\n")
        if not line.strip():
            break
        if line[:1] in (b" ", b"\t") and names:
            continue  # a folded header's next line
        m = _HEADER_LINE.match(line)
        if m is None:
            return None
        names.add(m.group(1).lower())
    return names


def mail_type(head: bytes, ext: str) -> FileType | None:
    """EMAIL, MBOX or None for a file that starts with `head`."""
    lines = head.split(b"\n", 400)[:400]
    mailbox = bool(lines) and is_envelope(lines[0])
    names = _header_names(lines[1:] if mailbox else lines)
    if not names:
        return None
    mail = len(names & _MAIL_FIELDS)
    if mailbox and mail >= 1:
        return FileType.MBOX
    if mail >= 2 and (ext in MAIL_EXTENSIONS or names & _TRANSPORT_FIELDS):
        return FileType.EMAIL
    return None


def sniff_mail(path: Path) -> FileType | None:
    """EMAIL or MBOX when the file is one (by its first bytes), else None; never raises."""
    try:
        with path.open("rb") as f:
            head = f.read(_HEAD_BYTES)
    except OSError:
        return None
    return mail_type(head, path.suffix.lower())
