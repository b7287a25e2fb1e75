"""Turn a text file's bytes into str, saying which encoding won; and the one normal form text
takes (NFC).

Shared by file-type detection (which judges a sample), the TXT/MD parser (which decodes the whole
file), HTML pages and e-mail parts (whose declared charset may lie). Legal text in Brazil arrives
as UTF-8, UTF-16 from Windows tools (with or without a BOM), or cp1252 from older Windows
programs, usually without saying which.
"""

from __future__ import annotations

import codecs
import logging
import unicodedata
from typing import NamedTuple

from charset_normalizer import from_bytes

logger = logging.getLogger(__name__)

_BOMS: tuple[tuple[bytes, str], ...] = (
    # UTF-32 first: its little-endian BOM starts with the UTF-16 one.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Once NUL bytes are seen only the byte order is in question (see `_utf16_encoding`); offered
# every code page, charset-normalizer reads Portuguese cp1252 as cp1250 ("Açăo") and short
# samples as Big5.
_UTF16 = ["utf_16_le", "utf_16_be"]

# Charset labels read as windows-1252, as browsers (the WHATWG Encoding Standard) and mail
# clients do: "iso-8859-1" and "us-ascii" text holds smart quotes more often than not.
AS_CP1252 = frozenset({"latin-1", "iso8859-1", "ascii", "cp1252"})


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


def decode_bom(data: bytes) -> DecodedText | None:
    """The text of data that starts with a byte-order mark (None without one)."""
    bom = bom_encoding(data)
    if bom is None:
        return None
    encoding, skip = bom
    text = data[skip:].decode(encoding, errors="replace")
    return DecodedText(text, encoding, text.count("\ufffd"))


def _latin1_share(text: str) -> float:
    return sum(ch < "\u0100" for ch in text) / max(len(text), 1)


def _utf16_encoding(data: bytes) -> str | None:
    """The byte order ("utf-16-le" / "utf-16-be") of BOM-less UTF-16 text, else None."""
    # UTF-16 of Latin-script text is half NUL bytes, while UTF-8 and cp1252 text never holds
    # one; without that gate, short cp1252 samples ("café") pass as UTF-16 Chinese.
    if b"\x00" not in data:
        return None
    # charset-normalizer rejects what does not decode or reads as junk (NUL padding read in
    # pairs). Its mess score cannot pick the byte order: it rates all-caps Portuguese ("AÇÃO
    # PENAL") as messier than the Chinese misreading, so the default threshold would even
    # drop the right reading. Portuguese lives in U+0000-U+00FF; that picks the order.
    matches = from_bytes(data, cp_isolation=_UTF16, threshold=1.0)
    readings = [(m, m.raw[:4096].decode(m.encoding, errors="replace")) for m in matches]
    if not readings:
        return None
    best, text = max(readings, key=lambda r: (_latin1_share(r[1]), -r[0].chaos))
    # UTF-8 or cp1252 text with a stray NUL also decodes in pairs, as CJK: not ours.
    if _latin1_share(text) < 0.5:
        return None
    return codecs.lookup(best.encoding).name


def decode_bytes(data: bytes) -> DecodedText:
    """Decode a text file's bytes, saying which encoding won.

    Order: BOM; BOM-less UTF-16 (charset-normalizer); strict UTF-8; UTF-8 with a few bad
    bytes replaced when the rest is clearly UTF-8 (a stray byte pasted into an otherwise
    UTF-8 file); cp1252 (what Windows in Brazil writes); latin-1, which never fails.
    """
    marked = decode_bom(data)
    if marked is not None:
        return marked
    # Before UTF-8: UTF-16 of ASCII text is valid UTF-8 too, with a NUL after every letter.
    utf16 = _utf16_encoding(data)
    if utf16 is not None:
        return DecodedText(data.decode(utf16), utf16, 0)
    try:
        return DecodedText(data.decode("utf-8"), "utf-8", 0)
    except UnicodeDecodeError:
        pass
    # charset-normalizer only accepts strict decodes, so it has no answer for this case.
    lenient = data.decode("utf-8", errors="replace")
    invalid = lenient.count("\ufffd")
    non_ascii = len(lenient) - len(lenient.encode("ascii", errors="ignore"))
    valid_multibyte = non_ascii - invalid
    # In real cp1252 text an accented byte is followed by ASCII, which is never valid UTF-8,
    # so many valid multi-byte sequences mean the file really is UTF-8.
    if valid_multibyte > 4 * invalid:
        logger.debug("mostly UTF-8 with %d undecodable sequences", invalid)
        return DecodedText(lenient, "utf-8", invalid)
    # charset-normalizer adds nothing here: restricted to these two it makes the same
    # choice, and offered more code pages it misreads short Portuguese samples.
    try:
        return DecodedText(data.decode("cp1252"), "cp1252", 0)
    except UnicodeDecodeError:
        return DecodedText(data.decode("latin-1"), "latin-1", 0)


def decode_text(data: bytes) -> str:
    """Decode a text file's bytes (see `decode_bytes`)."""
    return decode_bytes(data).text


def _whole_utf16_units(sample: bytes) -> bytes:
    """The sample without a cut code unit or a surrogate pair missing its second half."""
    end = len(sample) - len(sample) % 2
    # 0xD8-0xDB is a high surrogate's top byte: the last byte in little-endian order, the
    # first in big-endian. Dropping one unit too many only shortens what is judged.
    if end >= 2 and (0xD8 <= sample[end - 1] <= 0xDB or 0xD8 <= sample[end - 2] <= 0xDB):
        end -= 2
    return sample[:end]


def decode_sample(sample: bytes, complete: bool) -> str:
    """Like `decode_bytes`, but a multi-byte character cut at the sample's end is no error."""
    bom = bom_encoding(sample)
    if bom is not None:
        encoding, skip = bom
        return codecs.getincrementaldecoder(encoding)(errors="replace").decode(sample[skip:], final=complete)
    utf16 = _utf16_encoding(sample if complete else _whole_utf16_units(sample))
    if utf16 is not None:
        return codecs.getincrementaldecoder(utf16)(errors="replace").decode(sample, final=complete)
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(sample, final=complete)
    except UnicodeDecodeError:
        pass
    if complete:
        return decode_bytes(sample).text
    # Trim a possibly cut character before judging, then reuse the full-file rules.
    return decode_bytes(sample[: max(len(sample) - 3, 0)]).text


def nfc(text: str) -> str:
    """NFC-normalise: macOS writes accents decomposed, which a query typed on Windows misses."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)
