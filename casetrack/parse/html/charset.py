"""An HTML page's bytes as text, the way browsers decode it where it matters: a byte-order mark
wins, then the page's own declaration (`<meta charset>`, `<meta http-equiv="Content-Type">`,
`<?xml encoding?>`), with "iso-8859-1" and "us-ascii" read as windows-1252 as every browser does;
then the repo's `textcodec` guess. One departure: a page that declares a legacy code page but is
valid UTF-8 with accents is read as UTF-8 (a page re-saved by an editor keeps its old `<meta>`, and
accented UTF-8 is never valid windows-1252 text by accident).
"""

from __future__ import annotations

import codecs
import logging
import re

from casetrack.parse.textcodec import AS_CP1252, DecodedText, decode_bom, decode_bytes

logger = logging.getLogger(__name__)

# Pages put long scripts and comments before their <meta>; browsers look a little further
# than the 1,024 bytes the standard's pre-scan reads, and so do we.
PRESCAN_BYTES = 16 * 1024
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_:.\-]+)", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"^\s*<\?xml\b[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9_.\-]+)", re.IGNORECASE)


def declared_encoding(data: bytes) -> str | None:
    """The Python codec a page's own declaration names, or None (none, or an unknown label)."""
    head = data[:PRESCAN_BYTES]
    m = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if m is None:
        return None
    label = m.group(1).decode("ascii", "replace").strip().lower()
    try:
        name = codecs.lookup(label).name
    except LookupError:
        logger.debug("unknown charset label %r", label)
        return None
    if name in AS_CP1252:
        return "cp1252"
    if name.startswith("utf-16") or name.startswith("utf-32"):
        return "utf-8"  # the declaration was readable as ASCII, so the bytes are not UTF-16
    return name


def decode_html(data: bytes) -> DecodedText:
    """A page's bytes as text: BOM, then its declared charset, then `textcodec`'s guess."""
    marked = decode_bom(data)
    if marked is not None:
        return marked
    declared = declared_encoding(data)
    if declared is not None:
        if declared != "utf-8" and not data.isascii():
            try:
                return DecodedText(data.decode("utf-8"), "utf-8", 0)
            except UnicodeDecodeError:
                pass
        try:
            return DecodedText(data.decode(declared), declared, 0)
        except UnicodeDecodeError:
            logger.debug("page declares %s but does not decode as it", declared)
    return decode_bytes(data)
