"""User text in log lines: a file name may hold a newline, and a newline in a log line is a forged
log line. Every log call that includes a file name, a path or a name a user typed passes it through
`safe_for_log`."""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def safe_for_log(text: object) -> str:
    """`text` (any object: a Path, a name) as one printable line: newlines, control characters and
    other non-printable characters (U+2028, bidi overrides) escaped as \\n, \\x1b, \\u2028."""
    value = str(text)
    if value.isprintable():
        return value
    return "".join(c if c.isprintable() else _escape(c) for c in value)


def storable(text: str) -> str:
    """`text` as valid UTF-8 (what SQLite, JSON files and a terminal take): a file name's bytes
    that are not UTF-8 (Python holds them as surrogate escapes) written as \\xff, the rest kept."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


def display_name(name: str) -> str:
    """A file name as a document's name: valid UTF-8 (`storable`) with control characters and
    right-to-left marks escaped (`safe_for_log`), so no output shows them raw."""
    return safe_for_log(storable(name))


def _escape(c: str) -> str:
    if c in _NAMED:
        return _NAMED[c]
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
