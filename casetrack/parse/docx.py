"""DOCX: body paragraphs, headings, numbered lists, table rows and notes, via docx2python.

docx2python turns the XML into paragraphs of text runs and already keeps tracked insertions
while dropping deletions (it reads w:t, never w:delText) and leaves comments out of the body.
What it does not give us we read from the same lxml tree it parsed (each `Par.elem`):

* tables: a paragraph's w:tc/w:tr ancestors (docx2python's own nesting is unreliable);
* pages: Word's w:lastRenderedPageBreak marks, swapped for a sentinel character before
  docx2python walks the tree, so breaks inside a paragraph land at the right offset;
* list numbers: numbering.xml rendered the way Word shows them ("2.1.1.", "(a)"); docx2python
  only gives the last level ("1)"), which loses legal clause numbers;
* headings: style names from styles.xml (style ids are localised, e.g. "Ttulo1").

Headers, footers and comments are skipped; footnotes and endnotes go at the end.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import warnings
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docx2python import docx2python
from lxml import etree

from casetrack.domain import FileType, Page, ParagraphKind, ParsedDocument
from casetrack.errors import CorruptFileError, EmptyFileError, ParseError
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.text import nfc

if TYPE_CHECKING:
    from docx2python.depth_collector import Par
    from docx2python.docx_output import DocxContent
    from docx2python.docx_reader import DocxReader

logger = logging.getLogger(__name__)

# Noncharacters: valid in XML, never typed by anyone, so safe to smuggle page breaks through
# docx2python's text.
PAGE_BREAK = "\ufdd0"
# "Page break before": a new page unless the paragraph already starts one.
SOFT_PAGE_BREAK = "\ufdd1"

_MC_FALLBACK = "Fallback"  # mc:Fallback duplicates mc:Choice (text boxes are written twice)

_HEADING_STYLE = re.compile(
    r"^(?:heading|t[ií]tulo|ttulo|berschrift|titre|encabezado)\s*[1-9]$|^(?:title|t[ií]tulo|ttulo)$",
    re.IGNORECASE,
)
_TITLE_STYLE = re.compile(r"^(?:title|t[ií]tulo|ttulo)$", re.IGNORECASE)

# Strings docx2python inserts as whole runs.
_NOTE_REF = re.compile(r"----(footnote|endnote)(-?\d+)----")
_NOTE_PREFIX = re.compile(r"(?:footnote|endnote)-?\d+\)\t")
_IMAGE_ALT = re.compile(r"----Image alt text---->.*<", re.DOTALL)
_IMAGE = re.compile(r"----\S*[./]\S*----")
_HYPERLINK = re.compile(r'<a href="[^"]*">(.*)</a>', re.DOTALL)
_LATEX = re.compile(r"<latex>(.*)</latex>", re.DOTALL)
_SYMBOL = re.compile(r"<span style=font-family:[^>]*>&#x[0-9A-Fa-f]+;</span>")
_D2P_BULLET = re.compile(r"\t*(?:--|[^\s)]+\))\t")


def _local(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""  # comments and processing instructions
    return tag.rsplit("}", 1)[-1]


def _attr(el: Any, name: str) -> str | None:
    for key, value in el.attrib.items():
        if key == name or key.endswith("}" + name):
            return str(value)
    return None


def _child(el: Any, name: str) -> Any | None:
    for c in el:
        if _local(c) == name:
            return c
    return None


def _ancestors(el: Any) -> Iterable[Any]:
    parent = el.getparent()
    while parent is not None:
        yield parent
        parent = parent.getparent()


def _on_off(el: Any | None) -> bool:
    """w:b-style toggles: present means on unless w:val says otherwise."""
    if el is None:
        return False
    return (_attr(el, "val") or "true").lower() not in ("0", "false", "off")


# --------------------------------------------------------------------------------------------
# Number formats
# --------------------------------------------------------------------------------------------


def _roman(n: int) -> str:
    if n <= 0:
        return str(n)
    out = []
    for value, letters in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def _letter(n: int) -> str:
    # Word repeats the letter: a..z, aa..zz, aaa...
    if n <= 0:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def format_number(n: int, fmt: str | None) -> str:
    """A counter as Word displays it in a given w:numFmt."""
    if fmt == "lowerRoman":
        return _roman(n)
    if fmt == "upperRoman":
        return _roman(n).upper()
    if fmt == "lowerLetter":
        return _letter(n)
    if fmt == "upperLetter":
        return _letter(n).upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt == "none":
        return ""
    return str(n)  # decimal and the exotic formats we do not render


# --------------------------------------------------------------------------------------------
# Styles and numbering
# --------------------------------------------------------------------------------------------


@dataclass
class _Style:
    name: str
    based_on: str | None
    num: tuple[str, int | None] | None  # (numId, ilvl) from the style's w:numPr


@dataclass
class _Styles:
    styles: dict[str, _Style] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Any | None) -> _Styles:
        result = cls()
        if root is None:
            return result
        for el in root:
            if _local(el) != "style" or _attr(el, "type") not in (None, "paragraph"):
                continue
            style_id = _attr(el, "styleId")
            if not style_id:
                continue
            name_el = _child(el, "name")
            based_el = _child(el, "basedOn")
            num: tuple[str, int | None] | None = None
            ppr = _child(el, "pPr")
            num_pr = _child(ppr, "numPr") if ppr is not None else None
            if num_pr is not None:
                num_id_el = _child(num_pr, "numId")
                ilvl_el = _child(num_pr, "ilvl")
                num_id = _attr(num_id_el, "val") if num_id_el is not None else None
                ilvl = _attr(ilvl_el, "val") if ilvl_el is not None else None
                if num_id is not None:
                    num = (num_id, int(ilvl) if ilvl and ilvl.isdigit() else None)
            result.styles[style_id] = _Style(
                name=(_attr(name_el, "val") or "") if name_el is not None else "",
                based_on=_attr(based_el, "val") if based_el is not None else None,
                num=num,
            )
        return result

    def _chain(self, style_id: str) -> Iterable[tuple[str, _Style]]:
        seen: set[str] = set()
        current: str | None = style_id
        while current and current not in seen and current in self.styles:
            seen.add(current)
            style = self.styles[current]
            yield current, style
            current = style.based_on

    def is_heading(self, style_id: str) -> bool:
        if not style_id:
            return False
        if _HEADING_STYLE.match(style_id):
            return True
        return any(_HEADING_STYLE.match(s.name) or _HEADING_STYLE.match(sid) for sid, s in self._chain(style_id))

    def is_title(self, style_id: str) -> bool:
        style = self.styles.get(style_id)
        return bool(_TITLE_STYLE.match(style_id) or (style and _TITLE_STYLE.match(style.name)))

    def numbering(self, style_id: str) -> tuple[str, int | None] | None:
        for _, style in self._chain(style_id):
            if style.num is not None:
                return style.num
        return None


@dataclass
class _Level:
    fmt: str | None
    text: str | None
    start: int
    is_legal: bool


@dataclass
class _Num:
    abstract_id: str
    start_overrides: dict[int, int]
    level_overrides: dict[int, _Level]


def _parse_level(lvl: Any) -> tuple[int, _Level]:
    ilvl_text = _attr(lvl, "ilvl") or "0"
    ilvl = int(ilvl_text) if ilvl_text.isdigit() else 0
    fmt_el = _child(lvl, "numFmt")
    text_el = _child(lvl, "lvlText")
    start_el = _child(lvl, "start")
    start_text = _attr(start_el, "val") if start_el is not None else None
    return ilvl, _Level(
        fmt=_attr(fmt_el, "val") if fmt_el is not None else None,
        text=_attr(text_el, "val") if text_el is not None else None,
        start=int(start_text) if start_text and start_text.lstrip("-").isdigit() else 1,
        is_legal=_on_off(_child(lvl, "isLgl")),
    )


class _Numbering:
    """Word's list counters, rendered from numbering.xml's lvlText ("%1.%2." -> "2.1.")."""

    def __init__(self, root: Any | None) -> None:
        self.abstract: dict[str, dict[int, _Level]] = {}
        self.nums: dict[str, _Num] = {}
        # Counters are per abstract list: Word continues numbering across w:num instances
        # that share one, unless an instance restarts it with a startOverride.
        self.counters: dict[str, dict[int, int]] = {}
        self.used_nums: set[str] = set()
        if root is None:
            return
        for el in root:
            name = _local(el)
            if name == "abstractNum":
                levels = dict(_parse_level(lvl) for lvl in el if _local(lvl) == "lvl")
                self.abstract[_attr(el, "abstractNumId") or ""] = levels
            elif name == "num":
                abstract_el = _child(el, "abstractNumId")
                if abstract_el is None:
                    continue
                starts: dict[int, int] = {}
                overrides: dict[int, _Level] = {}
                for override in el:
                    if _local(override) != "lvlOverride":
                        continue
                    ilvl_text = _attr(override, "ilvl") or "0"
                    ilvl = int(ilvl_text) if ilvl_text.isdigit() else 0
                    start_el = _child(override, "startOverride")
                    start_text = _attr(start_el, "val") if start_el is not None else None
                    if start_text and start_text.lstrip("-").isdigit():
                        starts[ilvl] = int(start_text)
                    lvl_el = _child(override, "lvl")
                    if lvl_el is not None:
                        overrides[ilvl] = _parse_level(lvl_el)[1]
                self.nums[_attr(el, "numId") or ""] = _Num(_attr(abstract_el, "val") or "", starts, overrides)

    def _level(self, num: _Num, ilvl: int) -> _Level | None:
        return num.level_overrides.get(ilvl) or self.abstract.get(num.abstract_id, {}).get(ilvl)

    def next_label(self, num_id: str, ilvl: int) -> str | None:
        """Advance the list's counter for this paragraph and return its visible label."""
        num = self.nums.get(num_id)
        if num is None:
            return None
        level = self._level(num, ilvl)
        if level is None:
            return None
        counters = self.counters.setdefault(num.abstract_id, {})
        if num_id not in self.used_nums:
            self.used_nums.add(num_id)
            for lvl, start in num.start_overrides.items():
                counters[lvl] = start - 1
        counters[ilvl] = counters[ilvl] + 1 if ilvl in counters else level.start
        for deeper in [k for k in counters if k > ilvl]:
            del counters[deeper]

        if level.fmt == "bullet":
            return "\u2022"
        if not level.text:
            return None

        def render(m: re.Match[str]) -> str:
            k = int(m.group(1)) - 1
            ref = self._level(num, k)
            value = counters.get(k, ref.start if ref else 1)
            fmt = "decimal" if level.is_legal else (ref.fmt if ref else None)
            return format_number(value, fmt)

        label = re.sub(r"%([1-9])", render, level.text).strip()
        return label or None


# --------------------------------------------------------------------------------------------
# Page breaks
# --------------------------------------------------------------------------------------------


def _outside_text_boxes(el: Any) -> bool:
    return not any(_local(a) in ("txbxContent", _MC_FALLBACK) for a in _ancestors(el))


def _sentinel_run(like: Any, sentinel: str = PAGE_BREAK) -> Any:
    ns = like.tag.split("}", 1)[0] + "}" if like.tag.startswith("{") else ""
    run = like.makeelement(f"{ns}r", {})
    t = run.makeelement(f"{ns}t", {})
    t.text = sentinel
    run.append(t)
    return run


def mark_page_breaks(root: Any) -> str | None:
    """Replace page-break markers in the body tree by PAGE_BREAK text.

    Returns "rendered" when Word's own pagination (w:lastRenderedPageBreak) was used,
    "explicit" when only hard breaks (page breaks, new-page section breaks, page break before)
    were, and None when the document has no page information.
    """
    rendered: list[Any] = []
    hard_breaks: list[Any] = []
    section_ends: list[Any] = []
    break_before: list[Any] = []
    for el in root.iter():
        name = _local(el)
        if name == "lastRenderedPageBreak":
            rendered.append(el)
        elif name == "br" and _attr(el, "type") == "page":
            hard_breaks.append(el)
        elif name == "sectPr" and _local(el.getparent()) == "pPr":
            type_el = _child(el, "type")
            if (_attr(type_el, "val") if type_el is not None else "nextPage") != "continuous":
                section_ends.append(el.getparent().getparent())
        elif name == "pageBreakBefore" and _on_off(el):
            break_before.append(el.getparent().getparent())

    rendered = [el for el in rendered if _outside_text_boxes(el)]
    if rendered:
        for el in rendered:
            t = el.makeelement(el.tag.rsplit("}", 1)[0] + "}t" if el.tag.startswith("{") else "t", {})
            t.text = PAGE_BREAK
            el.getparent().replace(el, t)
        return "rendered"

    marked = False
    for el in hard_breaks:
        if _outside_text_boxes(el):
            t = el.makeelement(el.tag.rsplit("}", 1)[0] + "}t" if el.tag.startswith("{") else "t", {})
            t.text = PAGE_BREAK
            el.addnext(t)  # keep the w:br: docx2python turns it into a line end
            marked = True
    for para in section_ends:
        if _local(para) == "p" and _outside_text_boxes(para):
            para.append(_sentinel_run(para))
            marked = True
    for para in break_before:
        if _local(para) == "p" and _outside_text_boxes(para):
            ppr = _child(para, "pPr")
            if ppr is not None:
                ppr.addnext(_sentinel_run(para, SOFT_PAGE_BREAK))
            else:
                para.insert(0, _sentinel_run(para, SOFT_PAGE_BREAK))
            marked = True
    return "explicit" if marked else None


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------


def _has_text(lines: Sequence[str]) -> bool:
    return any(line.split() for line in lines)


class _PageAssembler:
    """Feeds paragraphs (already split at page breaks) into one PageBuilder per page.

    Paragraph numbers run through the document; a paragraph split by a page break keeps its
    number on both pages, so "p. 4, para. 12" is the part of paragraph 12 on page 4.
    """

    def __init__(self, paged: bool) -> None:
        self.paged = paged
        self.pages: list[Page] = []
        self.builder = PageBuilder(1 if paged else None)
        self.next_number = 1

    def add(self, pieces: Sequence[Sequence[str]], kind: ParagraphKind) -> None:
        """Add one paragraph; `pieces` are its lines on successive pages."""
        has_text = [_has_text(piece) for piece in pieces]
        number = self.next_number
        for i, piece in enumerate(pieces):
            if i:
                continues = any(has_text[i:]) or not any(has_text[:i])
                self._new_page(number if continues else number + 1)
            self.builder.add_paragraph(piece, kind)
        if any(has_text):
            self.next_number = number + 1

    @property
    def at_page_top(self) -> bool:
        return self.builder.is_empty

    def _new_page(self, first_paragraph_number: int) -> None:
        self.pages.append(self.builder.build())
        self.builder = PageBuilder(len(self.pages) + 1, first_paragraph_number=first_paragraph_number)

    def finish(self) -> tuple[Page, ...]:
        self.pages.append(self.builder.build())
        return tuple(self.pages)


# --------------------------------------------------------------------------------------------
# The document walk
# --------------------------------------------------------------------------------------------


@dataclass
class _Notes:
    """Display numbers of footnotes/endnotes, in order of first reference in the body."""

    formats: dict[str, str | None]
    numbers: dict[tuple[str, str], int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def number(self, kind: str, note_id: str) -> int:
        key = (kind, note_id)
        if key not in self.numbers:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.numbers[key] = self.counts[kind]
        return self.numbers[key]

    def label(self, kind: str, note_id: str) -> str:
        return f"[{format_number(self.number(kind, note_id), self.formats.get(kind))}]"


def _note_formats(reader: DocxReader, body_root: Any) -> dict[str, str | None]:
    # Word's defaults: footnotes 1, 2, 3; endnotes i, ii, iii.
    formats: dict[str, str | None] = {"footnote": "decimal", "endnote": "lowerRoman"}
    roots = [body_root]
    with contextlib.suppress(KeyError):
        roots.append(reader.file_of_type("settings").root_element)
    for kind in ("footnote", "endnote"):
        found = False
        for root in roots:
            for pr in root.iter():
                if _local(pr) == f"{kind}Pr":
                    fmt_el = _child(pr, "numFmt")
                    if fmt_el is not None and _attr(fmt_el, "val"):
                        formats[kind] = _attr(fmt_el, "val")
                        found = True
                        break
            if found:
                break
    return formats


class _DocxWalker:
    def __init__(self, content: DocxContent, name: str) -> None:
        self.content = content
        self.name = name
        reader = content.docx_reader
        self.reader = reader
        self.body_root = reader.file_of_type("officeDocument").root_element
        self.styles = _Styles.load(self._optional_root("styles"))
        self.numbering = _Numbering(self._optional_root("numbering"))
        self.notes = _Notes(_note_formats(reader, self.body_root))
        self.title_paragraph: str | None = None

    def _optional_root(self, type_: str) -> Any | None:
        files = self.reader.files_of_type(type_)
        return files[0].root_element if files else None

    # -- text ---------------------------------------------------------------------------------

    def _clean_run(self, text: str) -> str:
        if _NOTE_PREFIX.fullmatch(text) or _IMAGE_ALT.fullmatch(text) or _IMAGE.fullmatch(text):
            return ""
        if text == "--checkbox failed--":
            return ""
        m = _HYPERLINK.fullmatch(text) or _LATEX.fullmatch(text)
        if m:
            text = m.group(1)
        text = _NOTE_REF.sub(lambda r: self.notes.label(r.group(1), r.group(2)), text)
        return _SYMBOL.sub("", text)

    def _par_text(self, par: Par) -> str:
        direct = self._direct_numbering(par.elem)
        # docx2python writes its bullet only when w:numPr has both w:numId and w:ilvl.
        strip_bullet = direct is not None and bool(direct[0]) and direct[1] is not None
        parts: list[str] = []
        for run in par.runs:
            text = run.text
            if not text:
                continue
            if strip_bullet:
                # docx2python's own "1)\t"/"--\t" label; ours comes from numbering.xml.
                strip_bullet = False
                if _D2P_BULLET.fullmatch(text):
                    continue
            parts.append(self._clean_run(text))
        return nfc("".join(parts))

    @staticmethod
    def _direct_numbering(elem: Any) -> tuple[str, int | None] | None:
        ppr = _child(elem, "pPr") if elem is not None else None
        num_pr = _child(ppr, "numPr") if ppr is not None else None
        if num_pr is None:
            return None
        num_id_el = _child(num_pr, "numId")
        ilvl_el = _child(num_pr, "ilvl")
        num_id = _attr(num_id_el, "val") if num_id_el is not None else None
        ilvl = _attr(ilvl_el, "val") if ilvl_el is not None else None
        return (num_id or "", int(ilvl) if ilvl and ilvl.isdigit() else None)

    def _label_and_kind(self, par: Par) -> tuple[str | None, ParagraphKind]:
        style = par.style or ""
        heading = self.styles.is_heading(style)
        direct = self._direct_numbering(par.elem)
        inherited = self.styles.numbering(style)
        # A paragraph may set only w:ilvl and take the list (w:numId) from its style;
        # numId 0 means "numbering removed".
        num_id = direct[0] if direct and direct[0] else (inherited[0] if inherited else "")
        ilvl = direct[1] if direct and direct[1] is not None else (inherited[1] if inherited else None)
        numbered = num_id not in ("", "0")
        label = self.numbering.next_label(num_id, ilvl or 0) if numbered else None
        if heading:
            return label, ParagraphKind.HEADING
        if numbered:
            return label, ParagraphKind.LIST_ITEM
        return label, ParagraphKind.BODY

    @staticmethod
    def _with_label(text: str, label: str | None) -> str:
        if not label or not text.replace(PAGE_BREAK, "").replace(SOFT_PAGE_BREAK, "").strip():
            return text  # Word shows a number on an empty item; it is noise in search
        # After any leading page break, so the label lands on the page its text is on.
        i = 0
        while i < len(text) and (text[i] in (PAGE_BREAK, SOFT_PAGE_BREAK) or text[i].isspace()):
            i += 1
        return f"{text[:i]}{label} {text[i:]}"

    @staticmethod
    def _pieces(text: str) -> list[list[str]]:
        return [piece.split("\n") for piece in text.split(PAGE_BREAK)]

    # -- body ---------------------------------------------------------------------------------

    def body(self, out: _PageAssembler) -> None:
        row: Any | None = None
        cells: list[tuple[Any, list[tuple[str, ParagraphKind]]]] = []

        def flush_row() -> None:
            for pieces, kind in self._row(cells):
                out.add(pieces, kind)
            cells.clear()

        for par in self._flat(self.content.body_pars):
            elem = par.elem
            if elem is None:
                continue  # docx2python's placeholder for a merged cell
            cell = None
            skip = False
            for a in _ancestors(elem):
                name = _local(a)
                if name == _MC_FALLBACK:
                    skip = True
                    break
                if name == "tc" and cell is None:
                    cell = a
            if skip:
                continue
            label, kind = self._label_and_kind(par)
            text = self._with_label(self._par_text(par), label)
            if cell is not None:
                tr = cell.getparent()
                if tr is not row:
                    flush_row()
                    row = tr
                if cells and cells[-1][0] is cell:
                    cells[-1][1].append((text, kind))
                else:
                    cells.append((cell, [(text, kind)]))
                continue
            flush_row()
            row = None
            if SOFT_PAGE_BREAK in text:
                text = text.replace(SOFT_PAGE_BREAK, "" if out.at_page_top else PAGE_BREAK)
            if self.title_paragraph is None and self.styles.is_title(par.style or "") and text.strip():
                self.title_paragraph = " ".join(text.replace(PAGE_BREAK, " ").split())
            out.add(self._pieces(text), kind)
        flush_row()

    def _row(
        self, cells: Sequence[tuple[Any, Sequence[tuple[str, ParagraphKind]]]]
    ) -> list[tuple[list[list[str]], ParagraphKind]]:
        """Paragraphs for one table row.

        A row of several cells is one TABLE paragraph, cells joined by " | " on one line. A
        single-cell row is a layout box (a framed clause, a signature block), so its
        paragraphs stay paragraphs of their own kind.

        A row that breaks across pages has a break mark in every cell, so the row moves as a
        whole: before the row when each cell starts on the new page, else after it.
        """
        texts = [[t.replace(SOFT_PAGE_BREAK, "") for t, _ in paragraphs] for _, paragraphs in cells]
        if len(cells) == 1:
            kinds = [kind for _, kind in cells[0][1]]
            return [(self._pieces(text), kind) for text, kind in zip(texts[0], kinds, strict=True)]
        cell_texts: list[str] = []
        breaks = 0
        leading = True
        for paragraphs in texts:
            joined = "".join(paragraphs)
            count = joined.count(PAGE_BREAK)
            if count:
                breaks = max(breaks, count)
                leading = leading and joined.lstrip().startswith(PAGE_BREAK)
            cleaned = " ".join(" ".join(paragraphs).replace(PAGE_BREAK, " ").split())
            if cleaned:
                cell_texts.append(cleaned)
        if not cell_texts and not breaks:
            return []
        line = [" | ".join(cell_texts)]
        if not breaks:
            return [([line], ParagraphKind.TABLE)]
        empty: list[list[str]] = [[] for _ in range(breaks)]
        return [([*empty, line] if leading else [line, *empty], ParagraphKind.TABLE)]

    @staticmethod
    def _flat(tables: Any) -> Iterable[Par]:
        for table in tables:
            for row in table:
                for cell in row:
                    yield from cell

    # -- notes --------------------------------------------------------------------------------

    def notes_paragraphs(self) -> list[list[str]]:
        """Footnotes then endnotes, each one paragraph whose first line starts "[n] "."""
        result: list[list[str]] = []
        for kind, pars in (("footnote", self.content.footnotes_pars), ("endnote", self.content.endnotes_pars)):
            notes: list[tuple[str, list[str]]] = []
            current: Any | None = None
            for par in self._flat(pars):
                if par.elem is None:
                    continue
                note = next((a for a in _ancestors(par.elem) if _local(a) == kind), None)
                if note is None or (_attr(note, "type") or "normal") != "normal":
                    continue  # separators and continuation notices
                text = self._par_text(par).replace(PAGE_BREAK, "").replace(SOFT_PAGE_BREAK, "")
                if note is not current:
                    current = note
                    notes.append((_attr(note, "id") or "", []))
                notes[-1][1].extend(text.split("\n"))
            # Referenced notes in reference order, then any the body never points to.
            numbered = sorted(notes, key=lambda n: self.notes.numbers.get((kind, n[0]), 1 << 30))
            for note_id, lines in numbered:
                lines = [line for line in lines if line.strip()]
                if lines:
                    lines[0] = f"{self.notes.label(kind, note_id)} {lines[0].strip()}"
                    result.append(lines)
        return result

    def title(self) -> str | None:
        try:
            props = self.content.core_properties
        except Exception as e:  # noqa: BLE001 - metadata is optional; never fail a parse on it
            logger.debug("no core properties in %s: %s", self.name, e)
            props = {}
        title = props.get("title")
        if title and title.strip():
            return " ".join(title.split())
        return self.title_paragraph


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def _corrupt(name: str, why: str) -> CorruptFileError:
    return CorruptFileError(
        f"{name} is a damaged or invalid DOCX file ({why}).",
        hint="Open it in Word, save it again (File > Save As > .docx) and re-ingest it.",
    )


_R_NAMESPACE = b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_ROOT_TAG = re.compile(rb"<(?![?!])[^\s>/]+")
_MAIN_PART_REL = re.compile(rb"<Relationship\b[^>]*>")


def _main_part_name(zf: zipfile.ZipFile) -> str:
    """The main document part, found the way Word does: through the package relationships."""
    try:
        rels = zf.read("_rels/.rels")
    except KeyError:
        return "word/document.xml"
    for m in _MAIN_PART_REL.finditer(rels):
        tag = m.group(0)
        if re.search(rb'Type="[^"]*/officeDocument"', tag):
            target = re.search(rb'Target="([^"]*)"', tag)
            if target:
                return target.group(1).decode("utf-8").lstrip("/")
    return "word/document.xml"


def _declare_r_prefix(data: bytes) -> bytes:
    """Declare the `r:` prefix on a part's root element if it does not.

    docx2python's run merging reads `elem.nsmap["r"]` and raises KeyError on parts (often
    footnotes/endnotes written by non-Word tools) that never declare it.
    """
    if b"xmlns:r=" in data[:4096]:
        return data
    m = _ROOT_TAG.search(data)
    if m is None:
        return data
    return data[: m.end()] + b' xmlns:r="' + _R_NAMESPACE + b'"' + data[m.end() :]


_SAFE_XML = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


@dataclass
class _Package:
    source: Path | io.BytesIO
    page_mode: str | None


def _prepare_package(path: Path, fix_r_prefix: bool = False) -> _Package:
    """The package docx2python should read: the file itself, or an in-memory copy.

    Page breaks are marked in the raw XML because docx2python merges a run's w:t elements
    when it loads a part, which moves a w:lastRenderedPageBreak to the end of the run.
    """
    with zipfile.ZipFile(path) as zf:
        main_name = _main_part_name(zf)
        try:
            root = etree.fromstring(zf.read(main_name), _SAFE_XML)
        except KeyError as e:
            raise _corrupt(path.name, f"no main document part {main_name}") from e
        page_mode = mark_page_breaks(root)
        if page_mode is None and not fix_r_prefix:
            return _Package(path, None)
        main_xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        out = io.BytesIO()
        # Stored, not deflated: the copy lives for one parse, and images need no recompression.
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
            for info in zf.infolist():
                data = main_xml if info.filename == main_name else zf.read(info)
                if fix_r_prefix and info.filename.endswith(".xml"):
                    data = _declare_r_prefix(data)
                dst.writestr(zipfile.ZipInfo(info.filename, info.date_time), data)
    out.seek(0)
    return _Package(out, page_mode)


def _parse_package(package: _Package, name: str) -> tuple[tuple[Page, ...], str | None]:
    with warnings.catch_warnings():
        # docx2python warns about XML comments, odd tags and missing metadata: noise here.
        warnings.simplefilter("ignore")
        with docx2python(package.source, html=False, duplicate_merged_cells=False) as content:
            walker = _DocxWalker(content, name)
            out = _PageAssembler(paged=package.page_mode is not None)
            walker.body(out)
            for lines in walker.notes_paragraphs():
                out.add([lines], ParagraphKind.FOOTNOTE)
            return out.finish(), walker.title()


def parse_docx(path: Path) -> ParsedDocument:
    """Parse a DOCX file: one Page per rendered page if Word recorded them, else one Page."""
    name = path.name
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError as e:
        raise ParseError(f"{name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions.") from e
    if not head:
        raise EmptyFileError(f"{name} is empty (0 bytes).", hint="Check that the file was copied completely.")
    if not head.startswith(b"PK"):
        # Encrypted DOCX and legacy .doc are OLE2 files; detection says which, with a hint.
        from casetrack.parse.detect import detect_file_type

        detect_file_type(path)
        raise _corrupt(name, "not a ZIP package")

    try:
        package = _prepare_package(path)
        try:
            pages, title = _parse_package(package, name)
        except KeyError as first:
            logger.debug("retrying %s with the r: namespace prefix declared (%r)", name, first)
            package = _prepare_package(path, fix_r_prefix=True)
            pages, title = _parse_package(package, name)
    except ParseError:
        raise
    except zipfile.BadZipFile as e:
        raise _corrupt(name, f"bad ZIP archive: {e}") from e
    except KeyError as e:
        raise _corrupt(name, f"missing part or name {e}") from e
    except etree.XMLSyntaxError as e:
        raise _corrupt(name, f"broken XML: {e}") from e
    except RecursionError as e:
        raise _corrupt(name, "XML nested too deeply") from e
    except Exception as e:  # lxml and docx2python raise many types; the batch must go on
        logger.debug("docx2python failed on %s", path, exc_info=True)
        raise _corrupt(name, f"{type(e).__name__}: {e}") from e

    if not any(page.paragraphs for page in pages):
        raise EmptyFileError(f"{name} has no text.", hint="Check that the right file was ingested.")
    doc_warnings: list[str] = []
    if package.page_mode == "explicit":
        doc_warnings.append(
            "Page numbers come from explicit page and section breaks only (Word's own pagination "
            "was not saved in the file), so they can be lower than the printed page numbers."
        )
    return ParsedDocument(file_type=FileType.DOCX, pages=pages, title=title, warnings=tuple(doc_warnings))
