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
        data = self.data
        start = RTF_START.match(data)
        if start is None:
            raise self.corrupt("it does not start with {\\rtf")
        pos = start.start() + data[start.start() :].index(b"{")
        depth = 0
        end = len(data)
        match = _TOKEN.match
        while pos < end:
            m = match(data, pos)
            if m is None:
                if data[pos:].strip(b"\x00 \t\r\n") == b"\\":
                    break  # a lone backslash at the very end: nothing was lost
                raise self.corrupt(f"unreadable data at byte {pos}")
            pos = m.end()
            word, brace, text = m.group(1), m.group(5), m.group(6)

            if self.pending_skip and brace is None:
                # \uN's ANSI fallback: skip it, counting each text byte, \'hh or control word.
                if text is not None:
                    n = min(self.pending_skip, len(text))
                    self.pending_skip -= n
                    text = text[n:]
                    if not text:
                        continue
                elif m.group(0)[:1] == b"\\":
                    self.pending_skip -= 1
                    continue
                else:
                    continue
            if m.group(3) is None:
                self.flush_hex()

            if brace is not None:
                self.pending_skip = 0
                if brace == b"{":
                    depth += 1
                    self.open_group()
                    self.group_start = True
                    continue
                depth -= 1
                self.close_group()
                if depth == 0:
                    break
                continue

            at_group_start = self.group_start
            self.group_start = False
            if word is not None:
                param = m.group(2)
                value = int(param) if param is not None else None
                if word == b"bin":
                    pos += max(value or 0, 0)
                    if pos > end:
                        raise self.corrupt("binary data runs past the end of the file")
                    continue
                self.control_word(word.decode("ascii"), value, at_group_start)
            elif m.group(3) is not None:
                self.hex_bytes.append(int(m.group(3), 16))
            elif m.group(4) is not None:
                self.control_symbol(m.group(4).decode("latin-1"), at_group_start)
            elif text is not None:
                self.text(text)
        self.flush_hex()
        if depth > 0:
            self.warnings.append(f"{self.name} ends before all RTF groups are closed; it may be truncated.")
            for _ in range(depth):  # one open group per level still to close
                self.close_group()
        elif data[pos:].strip(b"\x00 \t\r\n"):
            self.warnings.append(f"{self.name} has data after the end of the RTF document; it was ignored.")
