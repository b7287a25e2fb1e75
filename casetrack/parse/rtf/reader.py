r"""What RTF's control words mean: a group-state machine that collects paragraphs.

RTF saves all formatting state on '{' and restores it on '}', so `_State` is copied per
group; text goes to a `_Sink`, which is the body or one footnote. Destinations we read
(font table for code pages, stylesheet for headings, \info's title) collect their text in
a buffer; the ones we skip (headers, pictures, field instructions, ...) are listed in
`casetrack.parse.rtf.vocabulary.SKIP_DESTINATIONS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from casetrack.domain import ParagraphKind
from casetrack.parse.rtf.tokens import RtfTokenWalker
from casetrack.parse.rtf.vocabulary import (
    CHARSET_CODEPAGE,
    CONTROL_SYMBOLS,
    INFO_FIELDS,
    SKIP_DESTINATIONS,
    SYMBOL_WORDS,
    codec_for,
)

_HEADING_STYLE = re.compile(r"^(?:heading|t[ií]tulo|ttulo)\s*[1-9]$|^(?:title|t[ií]tulo)$", re.IGNORECASE)


@dataclass
class _Sink:
    """Where text goes: the body or one footnote. Holds paragraphs as lists of lines."""

    paragraphs: list[tuple[list[str], ParagraphKind]] = field(default_factory=list)
    lines: list[list[str]] = field(default_factory=lambda: [[]])
    in_row: bool = False  # a \cell was seen since the last \row
    is_list: bool = False
    number: int = 0  # footnotes only

    def write(self, text: str) -> None:
        if text:
            self.lines[-1].append(text)

    def new_line(self) -> None:
        self.lines.append([])

    def end_paragraph(self, kind: ParagraphKind) -> None:
        lines = ["".join(parts) for parts in self.lines]
        if any(line.strip() for line in lines):
            if self.is_list and kind is ParagraphKind.BODY:
                kind = ParagraphKind.LIST_ITEM
            self.paragraphs.append((lines, kind))
        self.lines = [[]]
        self.in_row = False
        self.is_list = False

    def end_row(self) -> None:
        # Drop the separator after the last cell.
        last = "".join(self.lines[-1]).rstrip()
        if last.endswith("|"):
            last = last[:-1].rstrip()
        self.lines[-1] = [last]
        self.end_paragraph(ParagraphKind.TABLE)


@dataclass
class _State:
    """Group-scoped state: RTF saves all of it on '{' and restores it on '}'."""

    sink: _Sink
    skip: bool = False
    uc: int = 1
    codec: str = "cp1252"
    hidden: bool = False
    deleted: bool = False
    style: int = 0
    outline_level: int | None = None
    in_table: bool = False
    destination: str | None = None  # a destination we parse: fonttbl, stylesheet, info field
    owns_sink: bool = False
    font: int | None = None
    buffer: list[str] | None = None  # text collected for fonttbl/stylesheet/info entries

    def copy(self) -> _State:
        return _State(
            sink=self.sink,
            skip=self.skip,
            uc=self.uc,
            codec=self.codec,
            hidden=self.hidden,
            deleted=self.deleted,
            style=self.style,
            outline_level=self.outline_level,
            in_table=self.in_table,
            destination=self.destination,
            font=self.font,
        )


class RtfReader(RtfTokenWalker):
    """The body's and footnotes' paragraphs, the title and the warnings of one RTF document."""

    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(data, name)
        self.body = _Sink()
        self.footnotes: list[_Sink] = []
        self.footnote_refs = 0
        self.title: str | None = None
        self.doc_codec = "cp1252"
        self.font_codecs: dict[int, str] = {}
        self.heading_styles: set[int] = set()
        self.stack: list[_State] = []
        self.state = _State(sink=self.body)
        self.high_surrogate: int | None = None

    # -- output -------------------------------------------------------------------------------

    def emit(self, text: str) -> None:
        state = self.state
        if state.buffer is not None:
            state.buffer.append(text)
            return
        if state.skip or state.hidden or state.deleted or state.destination is not None:
            return
        state.sink.write(text)

    def emit_unicode(self, value: int) -> None:
        if value < 0:
            value += 65536
        if 0xD800 <= value <= 0xDBFF:
            self.high_surrogate = value
            return
        if 0xDC00 <= value <= 0xDFFF and self.high_surrogate is not None:
            value = 0x10000 + ((self.high_surrogate - 0xD800) << 10) + (value - 0xDC00)
        self.high_surrogate = None
        if 0xD800 <= value <= 0xDFFF:
            return  # a lone surrogate cannot be text
        self.emit(chr(value))

    def end_paragraph(self) -> None:
        sink = self.state.sink
        if self.state.in_table:
            # A paragraph mark inside a cell: the row is still one paragraph.
            sink.write(" ")
            return
        kind = ParagraphKind.BODY
        if self.state.outline_level is not None or self.state.style in self.heading_styles:
            kind = ParagraphKind.HEADING
        sink.end_paragraph(kind)

    # -- the walk -----------------------------------------------------------------------------

    def run(self) -> None:
        self.walk()
        # Text after the last \par is still a paragraph.
        if self.body.in_row:
            self.body.end_row()
        else:
            self.body.end_paragraph(ParagraphKind.BODY)

    def open_group(self) -> None:
        self.stack.append(self.state)
        self.state = self.state.copy()

    def text(self, raw: bytes) -> None:
        self.emit(raw.decode(self.current_codec(), errors="replace"))

    def current_codec(self) -> str:
        if self.state.font is not None and self.state.font in self.font_codecs:
            return self.font_codecs[self.state.font]
        return self.state.codec

    def close_group(self) -> None:
        closing = self.state
        self.state = self.stack.pop() if self.stack else _State(sink=self.body)
        if closing.buffer is not None:
            self.finish_buffer(closing)
        if closing.owns_sink:
            sink = closing.sink
            if sink.in_row:
                sink.end_row()
            else:
                sink.end_paragraph(ParagraphKind.FOOTNOTE)
            self.footnotes.append(sink)

    def finish_buffer(self, closing: _State) -> None:
        text = "".join(closing.buffer or [])
        if closing.destination == "fonttbl" and closing.font is not None:
            # Font entries are parsed for their \fcharset only; see table_word.
            return
        if closing.destination == "stylesheet":
            name = text.split(";", 1)[0].strip()
            if _HEADING_STYLE.match(name) or closing.outline_level is not None:
                self.heading_styles.add(closing.style)
        elif closing.destination == "title":
            self.title = " ".join(text.split()) or None

    # -- control words and symbols ------------------------------------------------------------

    def control_symbol(self, sym: str, at_group_start: bool) -> None:
        state = self.state
        if sym == "*":
            # {\*\dest ...}: a destination this reader may not know (and we need none).
            if at_group_start:
                state.skip = True
                state.buffer = None
            return
        if sym in ("\n", "\r"):
            self.end_paragraph()
            return
        if sym in CONTROL_SYMBOLS:
            self.emit(CONTROL_SYMBOLS[sym])
        # Others (\:, \|, \') carry formatting or index semantics only.

    def control_word(self, word: str, value: int | None, at_group_start: bool) -> None:
        if self.destination_word(word):
            return
        destination = self.state.destination
        if destination in ("fonttbl", "stylesheet"):
            self.table_word(word, value, at_group_start)
        elif destination is None:
            # The three groups of words are disjoint: at most one of them acts.
            if not self.text_word(word, value) and not self.property_word(word, value):
                self.document_word(word, value)

    def destination_word(self, word: str) -> bool:
        """Destinations (and words that only matter inside one): True when the word is dealt with."""
        state = self.state
        if state.destination == "info" and word in INFO_FIELDS:
            state.destination = word
            state.skip = False
            state.buffer = []
            return True
        if state.skip:
            return True
        if word in ("fonttbl", "stylesheet"):
            state.destination = word
        elif word == "info":
            state.destination = "info"
            state.skip = True
        elif word in SKIP_DESTINATIONS:
            state.skip = True
        elif word == "footnote":
            state.sink = _Sink(number=len(self.footnotes) + 1)
            state.owns_sink = True
            state.in_table = False
            state.hidden = state.deleted = False
        elif word in ("listtext", "pntext"):
            # The visible list number ("1.", "a)") as Word wrote it for older readers.
            state.sink.is_list = True
        else:
            return False
        return True

    def text_word(self, word: str, value: int | None) -> bool:
        """Words that write text or end lines, cells, rows and paragraphs."""
        state = self.state
        if word in ("par", "sect", "page"):
            self.end_paragraph()
        elif word == "line":
            state.sink.new_line()
        elif word in ("cell", "nestcell"):
            state.sink.write(" | ")
            state.sink.in_row = True
        elif word in ("row", "nestrow"):
            state.sink.end_row()
        elif word in SYMBOL_WORDS:
            self.emit(SYMBOL_WORDS[word])
        elif word == "u" and value is not None:
            self.emit_unicode(value)
            self.pending_skip = state.uc
        elif word == "chftn":
            if not state.owns_sink and not self.footnote_refs_inside_footnote():
                self.footnote_refs += 1
                self.emit(f"[{self.footnote_refs}]")
        else:
            return False
        return True

    def property_word(self, word: str, value: int | None) -> bool:
        """Character and paragraph properties (group-scoped state): True when the word is one."""
        return self.character_word(word, value) or self.paragraph_word(word, value)

    def character_word(self, word: str, value: int | None) -> bool:
        """Character properties: how many fallback characters follow a Unicode one (uc), the font
        (its code page), hidden and deleted text."""
        state = self.state
        if word == "uc":
            state.uc = max(value or 0, 0)
        elif word == "f":
            state.font = value
        elif word == "v":
            state.hidden = value != 0
        elif word == "deleted":
            state.deleted = value != 0
        elif word == "plain":
            state.hidden = state.deleted = False
            state.font = None
        else:
            return False
        return True

    def paragraph_word(self, word: str, value: int | None) -> bool:
        """Paragraph properties: the style and outline level (headings), tables and lists."""
        state = self.state
        if word == "pard":
            state.style = 0
            state.outline_level = None
            state.in_table = False
        elif word == "s":
            state.style = value or 0
        elif word == "outlinelevel":
            state.outline_level = value if value is not None and 0 <= value <= 8 else None
        elif word == "intbl":
            state.in_table = True
        elif word in ("ls", "ilvl"):
            state.sink.is_list = True
        else:
            return False
        return True

    def document_word(self, word: str, value: int | None) -> None:
        """Document properties: the code page of the whole document."""
        if word == "ansicpg" and value:
            self.doc_codec = codec_for(value)
            self.set_codec_everywhere(self.doc_codec)
        elif word == "mac":
            self.set_codec_everywhere(codec_for(10000))
        elif word == "pc":
            self.set_codec_everywhere("cp437")
        elif word == "pca":
            self.set_codec_everywhere("cp850")

    def footnote_refs_inside_footnote(self) -> bool:
        return any(s.owns_sink for s in self.stack)

    def set_codec_everywhere(self, codec: str) -> None:
        self.doc_codec = codec
        self.state.codec = codec
        for saved in self.stack:
            saved.codec = codec

    def table_word(self, word: str, value: int | None, at_group_start: bool) -> None:
        """Control words inside the font table or stylesheet."""
        state = self.state
        if state.buffer is None and at_group_start:
            state.buffer = []  # one entry per subgroup
        if state.destination == "fonttbl":
            if word == "f":
                state.font = value
            elif word == "fcharset" and state.font is not None and value is not None:
                if value in CHARSET_CODEPAGE:
                    self.font_codecs[state.font] = codec_for(CHARSET_CODEPAGE[value])
        else:
            if word == "s":
                state.style = value or 0
            elif word in ("cs", "ds", "ts", "tsrowd"):
                state.style = -1  # character/section/table styles never make headings
            elif word == "outlinelevel" and value is not None and 0 <= value <= 8:
                state.outline_level = value
