"""What the CLI prints never carries a raw control character, right-to-left mark or undecodable
byte: a file name can hold all three (`\\x1b]0;...`, U+202E, bytes that are not UTF-8), and a raw
one rewrites the terminal or reverses the line it is on, or (an undecodable byte) stopped the
command with a UnicodeEncodeError.

For the time of a command stdout and stderr are wrapped: every character that is not printable
(but newline, tab and carriage return) is written as `\\uXXXX` — the JSON escape, so `--json`
stays valid JSON that reads back to the same text. The one escape sequence let through is
colour (SGR, `ESC [ ... m`), which `click.style` writes; it cannot move the cursor, clear the
screen or set a title. Names are escaped once more when they are stored (logsafe.display_name)."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_SGR = re.compile(r"(\x1b\[[0-9;]*m)")
_KEPT = frozenset("\n\r\t")


def escape_unprintable(text: str) -> str:
    """`text` with every non-printable character but newline, tab, CR and colour codes escaped."""
    if text.isprintable():
        return text
    parts = _SGR.split(text)
    return "".join(part if i % 2 else _escape_part(part) for i, part in enumerate(parts))


def _escape_part(part: str) -> str:
    if part.isprintable():
        return part
    return "".join(c if c.isprintable() or c in _KEPT else _escape(c) for c in part)


def _escape(c: str) -> str:
    code = ord(c)
    return f"\\u{code:04x}" if code < 0x10000 else "".join(f"\\u{u:04x}" for u in _utf16(code))


def _utf16(code: int) -> tuple[int, int]:
    code -= 0x10000
    return 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)


class EscapingStream(io.TextIOBase):
    """A text stream that escapes what it is given (escape_unprintable) and writes it to `inner`;
    everything else (isatty, fileno, encoding, the binary buffer) is the inner stream's."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(escape_unprintable(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.inner, "errors", None)

    @property
    def buffer(self) -> Any:
        return getattr(self.inner, "buffer", None)


@contextmanager
def escaped_output() -> Iterator[None]:
    """stdout and stderr escaped for the time of the block (the streams in place when it ends
    are put back as they were)."""
    saved = sys.stdout, sys.stderr
    sys.stdout = EscapingStream(saved[0])
    sys.stderr = EscapingStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
