r"""RTF to paragraphs: a small tokenizer plus a group-state machine.

Covers what legal RTF (Word, WordPad, court systems) actually uses: groups, control words,
\par/\line/\tab, \'hh bytes in the document's code page (or a font's \fcharset),
\uN with \ucN fallback skipping, ignorable destinations {\*...}, tables (\cell/\row),
footnotes, list numbers (\listtext/\pntext), hidden and deleted-revision text. Headers,
footers, font/colour/style tables, pictures, objects' binary data, fields' instructions,
comments and index entries are skipped.

Each \par is a paragraph and each \line a line inside it, as in DOCX; RTF has no rendered
pages, so the result is one unpaged Page.
"""

from __future__ import annotations

import codecs
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from casetrack.domain import FileType, ParagraphKind, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError, ParseError
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.text import nfc

logger = logging.getLogger(__name__)

_TOKEN = re.compile(
    rb"\\([a-zA-Z]+)(-?\d+)? ?"  # 1, 2: control word and its parameter (one space delimiter eaten)
    rb"|\\'([0-9a-fA-F]{2})"  # 3: byte in the current code page
    rb"|\\([^a-zA-Z'])"  # 4: control symbol
    rb"|([{}])"  # 5: group
    rb"|[\r\n]+"  # raw line ends carry no meaning in RTF
    rb"|([^\\{}\r\n]+)",  # 6: text
    re.DOTALL,
)

# Destinations whose content is never body text.
_SKIP_DESTINATIONS = frozenset(
    {
        "fonttbl",  # parsed separately, see _Parser._font_table_word
        "colortbl",
        "stylesheet",  # parsed separately
        "info",  # title parsed separately
        "pict",
        "nonshppict",
        "objdata",
        "header",
        "headerl",
        "headerr",
        "headerf",
        "footer",
        "footerl",
        "footerr",
        "footerf",
        "fldinst",
        "xe",
        "tc",
        "tcn",
        "txe",
        "rxe",
        "bkmkstart",
        "bkmkend",
        "annotation",
        "atnid",
        "atnauthor",
        "atndate",
        "atnref",
        "atnparent",
        "atrfstart",
        "atrfend",
        "listtable",
        "listoverridetable",
        "revtbl",
        "rsidtbl",
        "filetbl",
        "generator",
        "xmlnstbl",
        "themedata",
        "colorschememapping",
        "latentstyles",
        "datastore",
        "pgdsctbl",
        "userprops",
        "private",
        "sp",
        "sn",
        "sv",
        "template",
        "docvar",
        "datafield",
        "ftnsep",
        "ftnsepc",
        "aftnsep",
        "aftnsepc",
        "ftncn",
        "aftncn",
        "mmathPr",
        "operator",
        "password",
    }
)

# Info fields we read while skipping the rest of \info.
_INFO_FIELDS = frozenset({"title"})

_SYMBOL_WORDS = {
    "tab": "\t",
    "emdash": "\u2014",
    "endash": "\u2013",
    "emspace": " ",
    "enspace": " ",
    "qmspace": " ",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "bullet": "\u2022",
    "zwj": "",
    "zwnj": "",
    "zwbo": "",
    "zwnbo": "",
}

_CONTROL_SYMBOLS = {
    "\\": "\\",
    "{": "{",
    "}": "}",
    "~": "\u00a0",
    "-": "",  # optional hyphen: invisible unless the line breaks there
    "_": "-",  # non-breaking hyphen; a plain hyphen is what people search for
}

# \fcharset -> Windows code page. 0 (ANSI) and 1 (default) mean the document's \ansicpg.
_CHARSET_CODEPAGE = {
    2: 1252,  # Symbol: no faithful mapping; cp1252 at least keeps letters and digits
    77: 10000,
    128: 932,
    129: 949,
    130: 1361,
    134: 936,
    136: 950,
    161: 1253,
    162: 1254,
    163: 1258,
    177: 1255,
    178: 1256,
    186: 1257,
    204: 1251,
    222: 874,
    238: 1250,
    255: 437,
}

_HEADING_STYLE = re.compile(r"^(?:heading|t[ií]tulo|ttulo)\s*[1-9]$|^(?:title|t[ií]tulo)$", re.IGNORECASE)


def _codec_for(codepage: int) -> str:
    name = "mac_roman" if codepage == 10000 else f"cp{codepage}"
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


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


class _Parser:
    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.name = name
        self.body = _Sink()
        self.footnotes: list[_Sink] = []
        self.footnote_refs = 0
        self.warnings: list[str] = []
        self.title: str | None = None
        self.doc_codec = "cp1252"
        self.font_codecs: dict[int, str] = {}
        self.heading_styles: set[int] = set()
        self.stack: list[_State] = []
        self.state = _State(sink=self.body)
        self.hex_bytes = bytearray()
        self.pending_skip = 0  # fallback characters still to skip after a \uN
        self.high_surrogate: int | None = None
        self.group_start = False  # the previous token was '{'

    # -- errors -------------------------------------------------------------------------------

    def corrupt(self, what: str) -> CorruptFileError:
        return CorruptFileError(
            f"{self.name} is not a valid RTF file ({what}).",
            hint="Open it in Word or WordPad, save it again (as RTF or DOCX) and re-ingest it.",
        )

    # -- output -------------------------------------------------------------------------------

    def emit(self, text: str) -> None:
        state = self.state
        if state.buffer is not None:
            state.buffer.append(text)
            return
        if state.skip or state.hidden or state.deleted or state.destination is not None:
            return
        state.sink.write(text)

    def flush_hex(self) -> None:
        if self.hex_bytes:
            self.emit(bytes(self.hex_bytes).decode(self.current_codec(), errors="replace"))
            self.hex_bytes.clear()

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

    # -- main loop ----------------------------------------------------------------------------

    def run(self) -> None:
        data = self.data
        start = re.match(rb"(?:\xef\xbb\xbf)?\s*\{\\rtf", data)
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
                    self.stack.append(self.state)
                    self.state = self.state.copy()
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
                self.emit(text.decode(self.current_codec(), errors="replace"))
        self.flush_hex()
        if depth > 0:
            self.warnings.append(f"{self.name} ends before all RTF groups are closed; it may be truncated.")
            while self.stack:
                self.close_group()
        elif data[pos:].strip(b"\x00 \t\r\n"):
            self.warnings.append(f"{self.name} has data after the end of the RTF document; it was ignored.")
        # Text after the last \par is still a paragraph.
        if self.body.in_row:
            self.body.end_row()
        else:
            self.body.end_paragraph(ParagraphKind.BODY)

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
            # Font entries are parsed for their \fcharset only; see control_word.
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
        if sym in _CONTROL_SYMBOLS:
            self.emit(_CONTROL_SYMBOLS[sym])
        # Others (\:, \|, \') carry formatting or index semantics only.

    def control_word(self, word: str, value: int | None, at_group_start: bool) -> None:
        state = self.state

        # Destinations -------------------------------------------------------------------
        if state.destination == "info" and word in _INFO_FIELDS:
            state.destination = word
            state.skip = False
            state.buffer = []
            return
        if state.skip:
            return
        if word in ("fonttbl", "stylesheet"):
            state.destination = word
            return
        if word == "info":
            state.destination = "info"
            state.skip = True
            return
        if word in _SKIP_DESTINATIONS:
            state.skip = True
            return
        if word == "footnote":
            sink = _Sink(number=len(self.footnotes) + 1)
            state.sink = sink
            state.owns_sink = True
            state.in_table = False
            state.hidden = state.deleted = False
            return
        if word in ("listtext", "pntext"):
            # The visible list number ("1.", "a)") as Word wrote it for older readers.
            state.sink.is_list = True
            return

        if state.destination in ("fonttbl", "stylesheet"):
            self.table_word(word, value, at_group_start)
            return
        if state.destination is not None:
            return

        # Text -------------------------------------------------------------------------------
        if word == "par" or word == "sect" or word == "page":
            self.end_paragraph()
        elif word == "line":
            state.sink.new_line()
        elif word in ("cell", "nestcell"):
            state.sink.write(" | ")
            state.sink.in_row = True
        elif word in ("row", "nestrow"):
            state.sink.end_row()
        elif word in _SYMBOL_WORDS:
            self.emit(_SYMBOL_WORDS[word])
        elif word == "u" and value is not None:
            self.emit_unicode(value)
            self.pending_skip = state.uc
        elif word == "chftn":
            if not state.owns_sink and not self.footnote_refs_inside_footnote():
                self.footnote_refs += 1
                self.emit(f"[{self.footnote_refs}]")

        # Character and paragraph properties ------------------------------------------------
        elif word == "uc":
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
        elif word == "pard":
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

        # Document properties ---------------------------------------------------------------
        elif word == "ansicpg" and value:
            self.doc_codec = _codec_for(value)
            self.set_codec_everywhere(self.doc_codec)
        elif word == "mac":
            self.set_codec_everywhere(_codec_for(10000))
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
                if value in _CHARSET_CODEPAGE:
                    self.font_codecs[state.font] = _codec_for(_CHARSET_CODEPAGE[value])
        else:
            if word == "s":
                state.style = value or 0
            elif word in ("cs", "ds", "ts", "tsrowd"):
                state.style = -1  # character/section/table styles never make headings
            elif word == "outlinelevel" and value is not None and 0 <= value <= 8:
                state.outline_level = value


RtfParagraphs = list[tuple[list[str], ParagraphKind]]


def rtf_to_paragraphs(data: bytes, name: str = "document.rtf") -> tuple[RtfParagraphs, str | None, list[str]]:
    """(paragraphs as (lines, kind), title, warnings) of an RTF document, footnotes last.

    Each footnote becomes one paragraph, its own paragraphs becoming lines, prefixed with
    its number ("[1] ...") like the "[1]" left where it is referenced.
    """
    parser = _Parser(data, name)
    parser.run()
    paragraphs = list(parser.body.paragraphs)
    for note in parser.footnotes:
        lines = [line for note_lines, _ in note.paragraphs for line in note_lines if line.strip()]
        if lines:
            lines[0] = f"[{note.number}] {lines[0]}"
            paragraphs.append((lines, ParagraphKind.FOOTNOTE))
    return paragraphs, parser.title, parser.warnings


def parse_rtf(path: Path) -> ParsedDocument:
    """Parse an RTF file into one unpaged Page."""
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ParseError(f"{name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions.") from e
    if not data.strip():
        raise EmptyFileError(f"{name} is empty.", hint="Check that the file was copied completely.")
    try:
        paragraphs, title, warnings = rtf_to_paragraphs(data, name)
    except (CorruptFileError, EmptyFileError):
        raise
    except (ValueError, LookupError, IndexError, RecursionError) as e:
        raise CorruptFileError(
            f"{name} is not a valid RTF file ({e}).",
            hint="Open it in Word or WordPad, save it again and re-ingest it.",
        ) from e

    builder = PageBuilder(None)
    for lines, kind in paragraphs:
        builder.add_paragraph([nfc(line) for line in lines], kind)
    if builder.is_empty:
        raise EmptyFileError(f"{name} has no text.", hint="Check that the right file was ingested.")
    for warning in warnings:
        logger.warning("%s", warning)
    return ParsedDocument(file_type=FileType.RTF, pages=(builder.build(),), title=title, warnings=tuple(warnings))
