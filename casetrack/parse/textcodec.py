"""Turn a text file's bytes into str, saying which encoding won.

Shared by file-type detection (which judges a sample) and the TXT/MD parser (which decodes
the whole file). Legal text in Brazil arrives as UTF-8, UTF-16 from Windows tools, or
cp1252 from older Windows programs, usually without saying which.
"""

from __future__ import annotations

import codecs
import logging
from typing import NamedTuple

logger = logging.getLogger(__name__)

_BOMS: tuple[tuple[bytes, str], ...] = (
    # UTF-32 first: its little-endian BOM starts with the UTF-16 one.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class DecodedText(NamedTuple):
    text: str
    encoding: str
    replaced: int  # undecodable sequences turned into U+FFFD


def bom_encoding(data: bytes) -> tuple[str, int] | None:
    """(encoding, BOM length) when the data starts with a byte-order mark."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, len(bom)
    return None


def decode_bytes(data: bytes) -> DecodedText:
    """Decode a text file's bytes, saying which encoding won.

    Order: BOM; strict UTF-8; UTF-8 with a few bad bytes replaced when the rest is clearly
    UTF-8 (a stray byte pasted into an otherwise UTF-8 file); cp1252 (what Windows in Brazil
    writes); latin-1, which never fails.
    """
    bom = bom_encoding(data)
    if bom is not None:
        encoding, skip = bom
        text = data[skip:].decode(encoding, errors="replace")
        return DecodedText(text, encoding, text.count("\ufffd"))
    try:
        return DecodedText(data.decode("utf-8"), "utf-8", 0)
    except UnicodeDecodeError:
        pass
    lenient = data.decode("utf-8", errors="replace")
    invalid = lenient.count("\ufffd")
    non_ascii = len(lenient) - len(lenient.encode("ascii", errors="ignore"))
    valid_multibyte = non_ascii - invalid
    # In real cp1252 text an accented byte is followed by ASCII, which is never valid UTF-8,
    # so many valid multi-byte sequences mean the file really is UTF-8.
    if valid_multibyte > 4 * invalid:
        logger.debug("mostly UTF-8 with %d undecodable sequences", invalid)
        return DecodedText(lenient, "utf-8", invalid)
    try:
        return DecodedText(data.decode("cp1252"), "cp1252", 0)
    except UnicodeDecodeError:
        return DecodedText(data.decode("latin-1"), "latin-1", 0)


def decode_text(data: bytes) -> str:
    """Decode a text file's bytes (see `decode_bytes`)."""
    return decode_bytes(data).text


def decode_sample(sample: bytes, complete: bool) -> str:
    """Like `decode_bytes`, but a multi-byte character cut at the sample's end is no error."""
    bom = bom_encoding(sample)
    if bom is not None:
        encoding, skip = bom
        return codecs.getincrementaldecoder(encoding)(errors="replace").decode(sample[skip:], final=complete)
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(sample, final=complete)
    except UnicodeDecodeError:
        pass
    if complete:
        return decode_bytes(sample).text
    # Trim a possibly cut character before judging, then reuse the full-file rules.
    return decode_bytes(sample[: max(len(sample) - 3, 0)]).text
