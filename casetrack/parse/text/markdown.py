"""Markdown: just enough structure to tag headings, list items and tables, with every line kept
where the file has it (blank lines split paragraphs, text/lines.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from casetrack.domain import ParagraphKind
from casetrack.parse.text.lines import blank_line_blocks

_MD_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_MD_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)\s*$")
_MD_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_MD_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_MD_TABLE_ROW = re.compile(r"^\s*\|")


Paragraph = tuple[int, list[str], ParagraphKind]  # (index of its first line, its lines, its kind)


def markdown_paragraphs(lines: Sequence[str]) -> Iterator[Paragraph]:
    """(index of first line, lines, kind) per Markdown paragraph.

    Blank lines always split paragraphs (the line-number layout needs that); within a block,
    an ATX heading is a paragraph of its own and each list item starts a new one. Inside
    fenced code nothing is interpreted.
    """
    in_fence = False
    for start, block in blank_line_blocks(lines):
        para = _Open()
        for offset, line in enumerate(block):
            fence = _MD_FENCE.match(line) is not None
            kind: ParagraphKind | None
            if in_fence or fence:
                in_fence = in_fence != fence
                kind = ParagraphKind.BODY
            elif para.underlined_by(line):
                # "Title" over "=====" or "-----": the whole block so far is the heading.
                yield para.heading(line)
                continue
            else:
                kind = _opening_kind(line)
            done = para.add(start + offset, line, kind)
            if done is not None:
                yield done
        if para.lines:
            yield para.start, para.lines, para.kind


def _opening_kind(line: str) -> ParagraphKind | None:
    """The kind of paragraph a line outside fenced code opens; None: plain text, which continues
    whatever paragraph is open."""
    if _MD_ATX_HEADING.match(line):
        return ParagraphKind.HEADING
    if _MD_LIST_ITEM.match(line):
        return ParagraphKind.LIST_ITEM
    if _MD_TABLE_ROW.match(line):
        return ParagraphKind.TABLE
    return None


class _Open:
    """The paragraph being read in a block."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.start = 0
        self.kind = ParagraphKind.BODY

    def underlined_by(self, line: str) -> bool:
        """Whether `line` is a setext underline of the open body text."""
        return bool(self.lines) and self.kind is ParagraphKind.BODY and bool(_MD_SETEXT_UNDERLINE.match(line))

    def heading(self, underline: str) -> Paragraph:
        """The open text and its underline, as a heading; nothing is open after it."""
        done = (self.start, [*self.lines, underline], ParagraphKind.HEADING)
        self.lines = []
        return done

    def add(self, index: int, line: str, kind: ParagraphKind | None) -> Paragraph | None:
        """Add line `index`, which opens a paragraph of `kind` (None: continues the open one);
        the paragraph it ends, if any."""
        done = None
        if not self.lines or self._ends(kind):
            if self.lines:
                done = (self.start, self.lines, self.kind)
            self.lines, self.start, self.kind = [], index, kind or ParagraphKind.BODY
        self.lines.append(line)
        return done

    def _ends(self, kind: ParagraphKind | None) -> bool:
        """Whether a line opening `kind` ends the open paragraph: an ATX heading is always one
        line, a table ends at a line that is no table row, and a heading, a list item or a change
        of kind starts a paragraph of its own."""
        if self.kind is ParagraphKind.HEADING:
            return True
        if self.kind is ParagraphKind.TABLE and kind is not ParagraphKind.TABLE:
            return True
        return kind is not None and (
            kind in (ParagraphKind.HEADING, ParagraphKind.LIST_ITEM) or kind is not self.kind
        )
