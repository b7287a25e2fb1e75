"""Walk docx2python's output into paragraphs: text, list labels, kinds, table rows and notes.

docx2python already keeps tracked insertions while dropping deletions (it reads w:t, never
w:delText) and leaves comments out of the body. Tables are found through each paragraph's
w:tc/w:tr ancestors in the lxml tree (`Par.elem`), since docx2python's own nesting is
unreliable; their rows become paragraphs in docx/tables.py.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from casetrack.domain import ParagraphKind
from casetrack.parse.docx.numbering import Numbering, format_number
from casetrack.parse.docx.pages import PAGE_BREAK, SOFT_PAGE_BREAK, PageAssembler, page_pieces
from casetrack.parse.docx.styles import Styles
from casetrack.parse.docx.tables import TableRows
from casetrack.parse.docx.wordml import MC_FALLBACK, ancestors, attr, child_val, local_name, paragraph_num_pr
from casetrack.parse.revoked import RevokedText
from casetrack.parse.textcodec import nfc

if TYPE_CHECKING:
    from docx2python.depth_collector import Par
    from docx2python.docx_output import DocxContent
    from docx2python.docx_reader import DocxReader

logger = logging.getLogger(__name__)

# Strings docx2python inserts as whole runs.
_NOTE_REF = re.compile(r"----(footnote|endnote)(-?\d+)----")
_NOTE_PREFIX = re.compile(r"(?:footnote|endnote)-?\d+\)\t")
_IMAGE_ALT = re.compile(r"----Image alt text---->.*<", re.DOTALL)
_IMAGE = re.compile(r"----\S*[./]\S*----")
_HYPERLINK = re.compile(r'<a href="[^"]*">(.*)</a>', re.DOTALL)
_LATEX = re.compile(r"<latex>(.*)</latex>", re.DOTALL)
_SYMBOL = re.compile(r"<span style=font-family:[^>]*>&#x[0-9A-Fa-f]+;</span>")
_D2P_BULLET = re.compile(r"\t*(?:--|[^\s)]+\))\t")


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
                if local_name(pr) == f"{kind}Pr":
                    fmt = child_val(pr, "numFmt")
                    if fmt:
                        formats[kind] = fmt
                        found = True
                        break
            if found:
                break
    return formats


def _placement(elem: Any) -> tuple[bool, Any | None]:
    """(whether the paragraph sits in an mc:Fallback, which repeats its mc:Choice; the w:tc that
    holds it, if any)."""
    cell = None
    for a in ancestors(elem):
        name = local_name(a)
        if name == MC_FALLBACK:
            return True, None
        if name == "tc" and cell is None:
            cell = a
    return False, cell


class DocxWalker:
    def __init__(self, content: DocxContent, name: str, revoked: RevokedText | None = None) -> None:
        self.content = content
        self.name = name
        self.revoked = revoked or RevokedText(keep=False)
        reader = content.docx_reader
        self.reader = reader
        self.body_root = reader.file_of_type("officeDocument").root_element
        self.styles = Styles.load(self._optional_root("styles"))
        self.numbering = Numbering(self._optional_root("numbering"))
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
        # Struck-through text (marked by docx/strike.py) goes before the list label is added.
        return self.revoked.apply(nfc("".join(parts)))

    @staticmethod
    def _direct_numbering(elem: Any) -> tuple[str, int | None] | None:
        num_pr = paragraph_num_pr(elem)
        return None if num_pr is None else (num_pr[0] or "", num_pr[1])

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

    # -- body ---------------------------------------------------------------------------------

    def body(self, out: PageAssembler) -> None:
        table = TableRows(out)
        for par in self._flat(self.content.body_pars):
            if par.elem is None:
                continue  # docx2python's placeholder for a merged cell
            fallback, cell = _placement(par.elem)
            if fallback:
                continue
            label, kind = self._label_and_kind(par)
            text = self._with_label(self._par_text(par), label)
            if cell is not None:
                table.add(cell, text, kind)
            else:
                table.end_row()
                self._body_paragraph(out, par, text, kind)
        table.end_row()

    def _body_paragraph(self, out: PageAssembler, par: Par, text: str, kind: ParagraphKind) -> None:
        """A paragraph outside any table; a "page break before" starts a page unless one just began."""
        if SOFT_PAGE_BREAK in text:
            text = text.replace(SOFT_PAGE_BREAK, "" if out.at_page_top else PAGE_BREAK)
        if self.title_paragraph is None and self.styles.is_title(par.style or "") and text.strip():
            self.title_paragraph = " ".join(text.replace(PAGE_BREAK, " ").split())
        out.add(page_pieces(text), kind)

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
        for kind, pars in (
            ("footnote", self.content.footnotes_pars),
            ("endnote", self.content.endnotes_pars),
        ):
            notes: list[tuple[str, list[str]]] = []
            current: Any | None = None
            for par in self._flat(pars):
                if par.elem is None:
                    continue
                note = next((a for a in ancestors(par.elem) if local_name(a) == kind), None)
                if note is None or (attr(note, "type") or "normal") != "normal":
                    continue  # separators and continuation notices
                text = self._par_text(par).replace(PAGE_BREAK, "").replace(SOFT_PAGE_BREAK, "")
                if note is not current:
                    current = note
                    notes.append((attr(note, "id") or "", []))
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
