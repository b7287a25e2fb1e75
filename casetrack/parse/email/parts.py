"""The parts of a MIME e-mail: the body a person reads, and the files attached to it.

A message is a tree. `multipart/alternative` holds the same body several ways: the plain-text one
is read (the HTML one when the plain one is missing or empty), the others are passed over. Text
parts that are neither attached nor named are the body, in order (Apple Mail splits a body around
a pasted picture). Everything else is an attachment, except pictures the HTML body shows inline
(signature logos: a Content-ID and no "attachment" disposition) and signature files of signed
mail. A forwarded e-mail (`message/rfc822`) is one attachment, not walked into.
"""

from __future__ import annotations

import codecs
import mimetypes
import re
import unicodedata
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage, Message

from casetrack.parse.textcodec import DecodedText, decode_bytes

_SIGNATURES = frozenset(
    {"application/pgp-signature", "application/pkcs7-signature", "application/x-pkcs7-signature"}
)
# Labels that are read as windows-1252, as mail clients and browsers do (smart quotes in "latin-1" mail).
_AS_CP1252 = frozenset({"latin-1", "iso8859-1", "ascii", "cp1252"})
_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f<>:"|?*]+')
MAX_NAME = 120


@dataclass(frozen=True)
class BodyPart:
    """A part of the body: `html` or plain text."""

    part: Message
    html: bool


@dataclass(frozen=True)
class AttachedFile:
    """A file attached to the message (a forwarded e-mail is one too)."""

    filename: str  # safe to show and to use as a file name; never empty
    content_type: str
    part: Message

    def data(self) -> bytes:
        """The file's bytes, transfer encoding (base64, quoted-printable) undone."""
        if self.content_type == "message/rfc822" and self.part.is_multipart():
            inner = self.part.get_payload(0)
            if not isinstance(inner, Message):
                return b""
            try:
                return bytes(inner.as_bytes(policy=policy.default))
            except Exception:  # a header the modern policy cannot write back: write it as it came
                return bytes(inner.as_bytes(policy=policy.compat32))
        payload = self.part.get_payload(decode=True)
        return payload if isinstance(payload, bytes) else b""


@dataclass(frozen=True)
class MessageParts:
    body: tuple[BodyPart, ...]
    attachments: tuple[AttachedFile, ...]
    inline_images: int  # pictures shown inside the HTML body: not documents of their own
    damaged: str | None  # why the MIME structure could not be fully read, else None


def part_text(part: Message) -> DecodedText:
    """A text part's characters: its declared charset when the bytes are valid in it, else the
    repo's guess (mislabelled mail is common: "us-ascii" with accents, an unknown label)."""
    raw = part.get_payload(decode=True)
    data = raw if isinstance(raw, bytes) else str(part.get_payload() or "").encode("utf-8", "surrogateescape")
    label = part.get_content_charset()
    if label:
        try:
            name = codecs.lookup(label).name
            if name in _AS_CP1252:
                name = "cp1252"
            return DecodedText(data.decode(name), name, 0)
        except (LookupError, UnicodeDecodeError):
            pass
    return decode_bytes(data)


def safe_filename(name: str | None, content_type: str, number: int) -> str:
    """A name that cannot leave a folder or break a terminal: the last path component, no control
    or reserved characters, at most MAX_NAME characters (its extension kept); a made-up
    `attachment-N.ext` when the message names none."""
    text = unicodedata.normalize("NFC", name or "")
    text = re.split(r"[/\\]", text)[-1]
    text = " ".join(_UNSAFE_NAME.sub(" ", text).split()).lstrip(". ")
    if not text:
        ext = (
            ".eml"
            if content_type == "message/rfc822"
            else (mimetypes.guess_extension(content_type) or ".bin")
        )
        return f"attachment-{number}{ext}"
    if len(text) > MAX_NAME:
        stem, dot, ext = text.rpartition(".")
        text = (stem[: MAX_NAME - len(ext) - 1] + "." + ext) if dot and len(ext) <= 10 else text[:MAX_NAME]
    return text


def _is_empty_text(part: Message) -> bool:
    return not part_text(part).text.strip()


def _choose(children: list[Message]) -> Message:
    """The alternative read: plain text unless it is missing or blank, then HTML, then the last
    (the richest, by RFC 2046) of any other kind."""
    plain = [c for c in children if c.get_content_type() == "text/plain" and not c.is_multipart()]
    if plain and not _is_empty_text(plain[0]):
        return plain[0]
    html = [c for c in children if c.get_content_type() == "text/html" and not c.is_multipart()]
    if html:
        return html[0]
    nested = [c for c in children if c.is_multipart()]
    return nested[-1] if nested else children[-1]


class _Walk:
    def __init__(self) -> None:
        self.body: list[BodyPart] = []
        self.files: list[AttachedFile] = []
        self.inline_images = 0
        self.damaged: str | None = None

    def part(self, part: Message, attachments_only: bool = False) -> None:
        """Sort a part, and the parts inside it, into the body, the attachments and what is passed
        over; `attachments_only`: an alternative not read, whose attachments still count."""
        ctype = part.get_content_type()
        if ctype == "message/rfc822" and part.is_multipart():
            self._file(part, ctype)
        elif part.is_multipart():
            self._children(part, ctype, attachments_only)
        else:
            self._leaf(part, ctype, attachments_only)

    def _children(self, part: Message, ctype: str, attachments_only: bool) -> None:
        children = list(part.get_payload())
        if ctype == "multipart/alternative" and children and not attachments_only:
            chosen = _choose(children)
            for child in children:
                self.part(child, attachments_only=child is not chosen)
            return
        for child in children:
            self.part(child, attachments_only)

    def _leaf(self, part: Message, ctype: str, attachments_only: bool) -> None:
        """A part that holds no parts: body text, an attachment, or passed over."""
        disposition = part.get_content_disposition()
        named = bool(part.get_filename())
        if part.get_content_maintype() == "multipart":  # declared multipart, unreadable as one
            self.damaged = (
                "its MIME structure is damaged (a multipart part without a boundary): its raw text was read"
            )
            self._body(BodyPart(part, html=False), attachments_only)
        elif ctype in ("text/plain", "text/html") and disposition != "attachment" and not named:
            self._body(BodyPart(part, html=ctype == "text/html"), attachments_only)
        elif ctype in _SIGNATURES:
            pass  # a signed message's signature file: no document of its own
        elif (
            part.get_content_maintype() == "image" and disposition != "attachment" and part.get("content-id")
        ):
            self.inline_images += 1  # shown inside the HTML body (a signature logo)
        elif disposition == "attachment" or not attachments_only:
            self._file(part, ctype)

    def _body(self, body: BodyPart, attachments_only: bool) -> None:
        if not attachments_only:
            self.body.append(body)

    def _file(self, part: Message, ctype: str) -> None:
        name = part.get_filename()
        if not name and ctype == "message/rfc822":
            inner = part.get_payload(0)
            subject = str(inner.get("subject", "") or "").strip() if isinstance(inner, Message) else ""
            name = f"{subject[:80]}.eml" if subject else None
        elif name and ctype == "message/rfc822" and not name.lower().endswith(".eml"):
            name += ".eml"
        self.files.append(AttachedFile(safe_filename(name, ctype, len(self.files) + 1), ctype, part))


def split_parts(message: EmailMessage) -> MessageParts:
    """The message's body parts (in reading order) and its attachments (in order, names made unique)."""
    walk = _Walk()
    walk.part(message)
    seen: dict[str, int] = {}
    files = []
    for f in walk.files:
        key = f.filename.casefold()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:  # two "scan.pdf": "scan (2).pdf"
            stem, dot, ext = f.filename.rpartition(".")
            f = AttachedFile(
                f"{stem} ({seen[key]}).{ext}" if dot and stem else f"{f.filename} ({seen[key]})",
                f.content_type,
                f.part,
            )
        files.append(f)
    return MessageParts(tuple(walk.body), tuple(files), walk.inline_images, walk.damaged)
