"""Outlook .msg messages (an OLE2 compound file, MS-OXMSG) read with extract-msg and turned into the
RFC 5322 message the .eml path reads: the same header lines, body and attachments (each a document
of its own at ingest), so a .msg and the .eml of the same message give the same document.

extract-msg builds the MIME message from the .msg's properties (`asEmailMessage`): its transport
headers when Outlook kept them (a received message), the body (plain text, HTML), attachments and
attached messages. A message never sent, or saved without its transport headers, lacks some of
them; they are filled from the .msg's own properties (subject, sender, recipients, date, ids).
The message is written out and parsed again with the stdlib's modern policy, so headers are the
objects email/headers.py reads.

extract-msg is GPL-3.0 licensed (see pyproject.toml): imported here only, when a .msg is read.
"""

from __future__ import annotations

import logging
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from casetrack.errors import CorruptFileError, EncryptedFileError, ParseError, UnsupportedFileError

log = logging.getLogger(__name__)

_RESAVE = (
    "Open it in Outlook and save it again (File > Save As > Outlook Message Format), or save it as "
    ".eml, and ingest that copy."
)
# .msg property -> the header it fills when the transport headers lack it
_FILLED = (
    ("subject", "Subject"),
    ("sender", "From"),
    ("to", "To"),
    ("cc", "Cc"),
    ("bcc", "Bcc"),
    ("messageId", "Message-ID"),
    ("inReplyTo", "In-Reply-To"),
)


def _open(path: Path) -> Any:
    try:  # an optional extra: GPL-3.0, so CaseTrack does not ship it (pyproject.toml)
        import extract_msg
        from extract_msg.exceptions import ExMsgBaseException
    except ImportError as e:
        raise UnsupportedFileError(
            f"{path.name} is an Outlook .msg message, and the reader for .msg (extract-msg, a GPL-3.0 "
            "library CaseTrack does not ship) is not installed.",
            hint="Install it into CaseTrack's environment: pip install 'extract-msg>=0.50,<1' (or "
            "casetrack[msg]), or save the message from Outlook as .eml and ingest that.",
        ) from e

    logging.getLogger("extract_msg").setLevel(logging.ERROR)  # its notes on odd properties: not the user's
    try:
        return extract_msg.openMsg(str(path), delayAttachments=False)
    except ExMsgBaseException as e:
        if "encrypt" in str(e).lower():
            raise EncryptedFileError(
                f"{path.name} is an encrypted Outlook message.",
                hint="Open it in Outlook with its certificate, save a decrypted copy and ingest that.",
            ) from e
        raise CorruptFileError(
            f"{path.name} could not be read as an Outlook message ({e}).", hint=_RESAVE
        ) from e
    except OSError as e:
        raise ParseError(
            f"{path.name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e
    except Exception as e:  # a damaged property stream: extract-msg raises what it trips on
        raise CorruptFileError(
            f"{path.name} could not be read as an Outlook message ({type(e).__name__}: {str(e)[:120]}).",
            hint=_RESAVE,
        ) from e


def _clean(value: Any) -> str:
    """A property as one header line ("\\x00" ends of MAPI strings and folded lines removed)."""
    return " ".join(str(value or "").replace("\x00", "").split())


def _fill(message: EmailMessage, msg: Any) -> None:
    """Headers the .msg's transport headers lack, from its own properties."""
    for attribute, header in _FILLED:
        value = _clean(getattr(msg, attribute, None))
        if value and not _clean(message.get(header)):
            del message[header]
            message[header] = value
    when = getattr(msg, "date", None)
    if when is not None and not _clean(message.get("Date")):
        del message["Date"]
        try:
            message["Date"] = format_datetime(when)
        except (TypeError, ValueError):
            log.debug("unreadable .msg date %r", when)


def load_msg(path: Path) -> EmailMessage:
    """The Outlook message in `path` as an RFC 5322 message (modern policy), headers filled in."""
    msg = _open(path)
    try:
        if type(msg).__name__ != "Message" and not hasattr(msg, "asEmailMessage"):
            raise CorruptFileError(
                f"{path.name} is an Outlook item but not an e-mail ({type(msg).__name__}).",
                hint="Export it from Outlook as PDF and ingest that.",
            )
        try:
            built = msg.asEmailMessage()
            _fill(built, msg)
            data = built.as_bytes(policy=policy.default.clone(linesep="\r\n"))
        except CorruptFileError:
            raise
        except Exception as e:  # a property extract-msg cannot turn into MIME
            raise CorruptFileError(
                f"{path.name} could not be converted from Outlook's format ({type(e).__name__}: {str(e)[:120]}).",
                hint=_RESAVE,
            ) from e
    finally:
        msg.close()
    parsed = BytesParser(policy=policy.default).parsebytes(data)
    if not isinstance(parsed, EmailMessage):  # pragma: no cover - policy.default always builds one
        raise CorruptFileError(f"{path.name} could not be read as an e-mail.", hint=_RESAVE)
    return parsed
