"""What an e-mail says about itself: sender, recipients, date, subject and ids, read from its
headers (RFC 5322, encoded words decoded) and shown as the lines a mail program shows. A header the
stdlib's modern parser cannot read is taken as written."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Any

logger = logging.getLogger(__name__)

_NEEDS_QUOTES = re.compile(r'[,;:<>@"()\[\]\\]')


@dataclass(frozen=True)
class EmailHeaders:
    """What the message says about itself; addresses as "Name <address>" (the name quoted when it
    holds a comma), in the order written."""

    sender: tuple[str, ...]
    to: tuple[str, ...]
    cc: tuple[str, ...]
    bcc: tuple[str, ...]
    date: str | None  # ISO 8601 with the sender's UTC offset; None when missing or unreadable
    date_text: str  # as written
    subject: str
    message_id: str
    in_reply_to: str
    references: str = ""  # the Message-IDs of the thread before it, as written

    @property
    def empty(self) -> bool:
        return not (self.sender or self.to or self.cc or self.date_text or self.subject)

    def lines(self, attachments: tuple[str, ...] = ()) -> list[str]:
        """The header lines the page starts with."""
        rows = [
            ("From", ", ".join(self.sender)),
            ("To", ", ".join(self.to)),
            ("Cc", ", ".join(self.cc)),
            ("Bcc", ", ".join(self.bcc)),
            ("Date", self.date_text),
            ("Subject", self.subject),
            ("Attachments", ", ".join(attachments)),
        ]
        return [f"{name}: {value}" for name, value in rows if value.strip()]

    def to_json(self) -> dict[str, Any]:
        return {
            "from": list(self.sender),
            "to": list(self.to),
            "cc": list(self.cc),
            "bcc": list(self.bcc),
            "date": self.date,
            "date_text": self.date_text,
            "subject": self.subject,
            "message_id": self.message_id,
            "in_reply_to": self.in_reply_to,
            "references": self.references,
        }


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def display_address(name: str, address: str) -> str:
    """ "Alice Smith <alice@firm.com>"; the bare address when there is no name."""
    name = _one_line(name)
    if not name or name == address:
        return address
    return f'"{name}" <{address}>' if _NEEDS_QUOTES.search(name) else f"{name} <{address}>"


def _raw(message: EmailMessage, name: str) -> str:
    """A header as written (encoded words left as they are): for headers the parser chokes on."""
    for key, value in message.raw_items():
        if key.lower() == name:
            return _one_line(str(value))
    return ""


def _text_header(message: EmailMessage, name: str) -> str:
    try:
        return _one_line(str(message.get(name, "") or ""))
    except Exception:  # a header the modern parser cannot read (its bugs raise IndexError and the like)
        return _raw(message, name)


def _addresses(message: EmailMessage, name: str) -> tuple[str, ...]:
    try:
        values = message.get_all(name) or []
        found = [
            display_address(a.display_name, a.addr_spec) for v in values for a in getattr(v, "addresses", ())
        ]
        if found or not values:
            return tuple(a for a in found if a)
    except Exception:
        logger.debug("header %s not readable as addresses", name, exc_info=True)
    raw = _raw(message, name)
    return tuple(display_address(n, a) for n, a in getaddresses([raw]) if a or n)


def headers_of(message: EmailMessage) -> EmailHeaders:
    date_text = _text_header(message, "date")
    iso: str | None = None
    try:
        header = message.get("date")
        when = getattr(header, "datetime", None)
        iso = when.isoformat() if when is not None else None
    except Exception:
        iso = None
    return EmailHeaders(
        sender=_addresses(message, "from"),
        to=_addresses(message, "to"),
        cc=_addresses(message, "cc"),
        bcc=_addresses(message, "bcc"),
        date=iso,
        date_text=date_text,
        subject=_text_header(message, "subject"),
        message_id=_text_header(message, "message-id"),
        in_reply_to=_text_header(message, "in-reply-to"),
        references=_text_header(message, "references"),
    )
