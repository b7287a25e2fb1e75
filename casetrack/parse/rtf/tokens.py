r"""RTF's lexical layer: tokens, group walking, \bin data, \uN fallbacks and \'hh byte runs.

`RtfTokenWalker` deals with what is syntax rather than meaning: it balances groups, jumps
over \bin data, skips the ANSI fallback after a \uN and gathers runs of \'hh bytes so a
multi-byte character (cp932, cp936) decodes as one. What the words mean is up to its
subclass (rtf/reader.py; its vocabulary: rtf/vocabulary.py).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

from casetrack.errors import CorruptFileError

_TOKEN = re.compile(
    rb"\\([a-zA-Z]+)(-?\d+)? ?"  # 1, 2: control word and its parameter (one space delimiter eaten)
    rb"|\\'([0-9a-fA-F]{2})"  # 3: byte in the current code page
    rb"|\\([^a-zA-Z'])"  # 4: control symbol
    rb"|([{}])"  # 5: group
    rb"|[\r\n]+"  # raw line ends carry no meaning in RTF
    rb"|([^\\{}\r\n]+)",  # 6: text
    re.DOTALL,
)

# A UTF-8 BOM and leading whitespace are tolerated before the first group, as Word does.
RTF_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*\{\\rtf", re.DOTALL)


class RtfTokenWalker(ABC):
    """Feeds an RTF document's tokens, group by group, to the subclass's handlers."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.name = name
        self.warnings: list[str] = []
        self.hex_bytes = bytearray()
        self.pending_skip = 0  # fallback characters still to skip after a \uN
        self.group_start = False  # the previous token was '{'
        self.depth = 0  # groups open

    # -- what subclasses handle ---------------------------------------------------------------

    @abstractmethod
    def open_group(self) -> None: ...

    @abstractmethod
    def close_group(self) -> None: ...

    @abstractmethod
    def control_word(self, word: str, value: int | None, at_group_start: bool) -> None: ...

    @abstractmethod
    def control_symbol(self, sym: str, at_group_start: bool) -> None: ...

    @abstractmethod
    def text(self, raw: bytes) -> None:
        """Text bytes in the current code page: a literal run, or gathered \\'hh bytes."""

    # -- the walk -----------------------------------------------------------------------------

    def corrupt(self, what: str) -> CorruptFileError:
        return CorruptFileError(
            f"{self.name} is not a valid RTF file ({what}).",
            hint="Open it in Word or WordPad, save it again (as RTF or DOCX) and re-ingest it.",
        )

    def flush_hex(self) -> None:
        if self.hex_bytes:
            self.text(bytes(self.hex_bytes))
            self.hex_bytes.clear()

    def walk(self) -> None:
        """Feed every token of the document's outermost group to the handlers."""
        data = self.data
        start = RTF_START.match(data)
        if start is None:
            raise self.corrupt("it does not start with {\\rtf")
        pos = start.start() + data[start.start() :].index(b"{")
        end = len(data)
        while pos < end:
            m = _TOKEN.match(data, pos)
            if m is None:
                if data[pos:].strip(b"\x00 \t\r\n") == b"\\":
                    break  # a lone backslash at the very end: nothing was lost
                raise self.corrupt(f"unreadable data at byte {pos}")
            pos = self._token(m)
            if self.depth == 0:
                break  # the document's group is closed (the first token opened it)
        self.flush_hex()
        self._finish(pos)

    def _token(self, m: re.Match[bytes]) -> int:
        """Hand one token to its handler; the position after it (after a \\bin's data too)."""
        text = m.group(6)
        if self.pending_skip and m.group(5) is None:
            text = self._skip_fallback(m, text)
            if text is None:
                return m.end()
        if m.group(3) is None:
            self.flush_hex()
        if m.group(5) is not None:
            self._brace(m.group(5))
            return m.end()
        at_group_start, self.group_start = self.group_start, False
        if m.group(1) is not None:
            return self._word(m, at_group_start)
        if m.group(3) is not None:
            self.hex_bytes.append(int(m.group(3), 16))
        elif m.group(4) is not None:
            self.control_symbol(m.group(4).decode("latin-1"), at_group_start)
        elif text is not None:
            self.text(text)
        return m.end()

    def _skip_fallback(self, m: re.Match[bytes], text: bytes | None) -> bytes | None:
        """Skip \\uN's ANSI fallback, counting each text byte, \\'hh or control word; what is left
        of the token to read (None: nothing)."""
        if text is not None:
            n = min(self.pending_skip, len(text))
            self.pending_skip -= n
            return text[n:] or None
        if m.group(0)[:1] == b"\\":
            self.pending_skip -= 1
        return None  # raw line ends are not counted

    def _brace(self, brace: bytes) -> None:
        self.pending_skip = 0
        if brace == b"{":
            self.depth += 1
            self.open_group()
            self.group_start = True
        else:
            self.depth -= 1
            self.close_group()

    def _word(self, m: re.Match[bytes], at_group_start: bool) -> int:
        """A control word; \\binN's N bytes of data are jumped over, never read as text."""
        pos = m.end()
        param = m.group(2)
        value = int(param) if param is not None else None
        if m.group(1) == b"bin":
            pos += max(value or 0, 0)
            if pos > len(self.data):
                raise self.corrupt("binary data runs past the end of the file")
            return pos
        self.control_word(m.group(1).decode("ascii"), value, at_group_start)
        return pos

    def _finish(self, pos: int) -> None:
        """Warnings for a document cut short (its open groups closed) or with data after it."""
        if self.depth > 0:
            self.warnings.append(f"{self.name} ends before all RTF groups are closed; it may be truncated.")
            for _ in range(self.depth):  # one open group per level still to close
                self.close_group()
        elif self.data[pos:].strip(b"\x00 \t\r\n"):
            self.warnings.append(f"{self.name} has data after the end of the RTF document; it was ignored.")
