"""DOCX page breaks: marking them in the XML, then cutting paragraphs into pages.

Page breaks are swapped for sentinel characters in the raw XML before docx2python walks
the tree, so a break inside a paragraph lands at the right offset of its text.
`PageAssembler` then turns paragraphs split at those sentinels into pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from casetrack.domain import Page, ParagraphKind
from casetrack.parse.docx.wordml import MC_FALLBACK, ancestors, attr, child, child_val, local_name, on_off
from casetrack.parse.pagebuilder import PageBuilder

# Noncharacters: valid in XML, never typed by anyone, so safe to smuggle page breaks through
# docx2python's text.
PAGE_BREAK = "\ufdd0"
# "Page break before": a new page unless the paragraph already starts one.
SOFT_PAGE_BREAK = "\ufdd1"


def page_pieces(text: str) -> list[list[str]]:
    """A paragraph's text cut at its page breaks: its lines on each page (`PageAssembler.add`)."""
    return [piece.split("\n") for piece in text.split(PAGE_BREAK)]


def _outside_text_boxes(el: Any) -> bool:
    return not any(local_name(a) in ("txbxContent", MC_FALLBACK) for a in ancestors(el))


def _namespace(el: Any) -> str:
    """The "{uri}" prefix of the element's tag, so new elements match their neighbours."""
    return el.tag.split("}", 1)[0] + "}" if el.tag.startswith("{") else ""


def _sentinel_text(like: Any, sentinel: str = PAGE_BREAK) -> Any:
    """A w:t holding the sentinel."""
    t = like.makeelement(f"{_namespace(like)}t", {})
    t.text = sentinel
    return t


def _sentinel_run(like: Any, sentinel: str = PAGE_BREAK) -> Any:
    """A w:r holding the sentinel, for breaks that belong to a paragraph, not a run."""
    run = like.makeelement(f"{_namespace(like)}r", {})
    run.append(_sentinel_text(like, sentinel))
    return run


@dataclass
class _Breaks:
    """Where the body tree marks page breaks, by kind."""

    rendered: list[Any] = field(default_factory=list)  # w:lastRenderedPageBreak: Word's own pagination
    hard: list[Any] = field(default_factory=list)  # w:br w:type="page"
    section_ends: list[Any] = field(default_factory=list)  # paragraphs ending a new-page section
    break_before: list[Any] = field(default_factory=list)  # paragraphs with "page break before"

    @classmethod
    def find(cls, root: Any) -> _Breaks:
        found = cls()
        for el in root.iter():
            name = local_name(el)
            if name == "lastRenderedPageBreak":
                found.rendered.append(el)
            elif name == "br" and attr(el, "type") == "page":
                found.hard.append(el)
            elif name == "sectPr" and local_name(el.getparent()) == "pPr":
                # A missing w:type means "nextPage".
                if child_val(el, "type") != "continuous":
                    found.section_ends.append(el.getparent().getparent())
            elif name == "pageBreakBefore" and on_off(el):
                found.break_before.append(el.getparent().getparent())
        return found


def mark_page_breaks(root: Any) -> str | None:
    """Replace page-break markers in the body tree by PAGE_BREAK text.

    Returns "rendered" when Word's own pagination (w:lastRenderedPageBreak) was used,
    "explicit" when only hard breaks (page breaks, new-page section breaks, page break before)
    were, and None when the document has no page information.
    """
    breaks = _Breaks.find(root)
    rendered = [el for el in breaks.rendered if _outside_text_boxes(el)]
    if rendered:
        for el in rendered:
            el.getparent().replace(el, _sentinel_text(el))
        return "rendered"
    return "explicit" if _mark_explicit(breaks) else None


def _mark_explicit(breaks: _Breaks) -> bool:
    """Mark the hard breaks; whether there was any."""
    marked = False
    for el in breaks.hard:
        if _outside_text_boxes(el):
            el.addnext(_sentinel_text(el))  # keep the w:br: docx2python turns it into a line end
            marked = True
    for para in breaks.section_ends:
        if local_name(para) == "p" and _outside_text_boxes(para):
            para.append(_sentinel_run(para))
            marked = True
    for para in breaks.break_before:
        if local_name(para) == "p" and _outside_text_boxes(para):
            ppr = child(para, "pPr")
            if ppr is not None:
                ppr.addnext(_sentinel_run(para, SOFT_PAGE_BREAK))
            else:
                para.insert(0, _sentinel_run(para, SOFT_PAGE_BREAK))
            marked = True
    return marked


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------


def _has_text(lines: Sequence[str]) -> bool:
    return any(line.split() for line in lines)


class PageAssembler:
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
