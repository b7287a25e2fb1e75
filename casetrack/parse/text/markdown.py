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


def markdown_paragraphs(
    lines: Sequence[str],
) -> Iterator[tuple[int, list[str], ParagraphKind]]:
    """(index of first line, lines, kind) per Markdown paragraph.

    Blank lines always split paragraphs (the line-number layout needs that); within a block,
    an ATX heading is a paragraph of its own and each list item starts a new one. Inside
    fenced code nothing is interpreted.
    """
    in_fence = False
    for start, block in blank_line_blocks(lines):
        current: list[str] = []
        current_start = start
        current_kind = ParagraphKind.BODY
        for offset, line in enumerate(block):
            index = start + offset
            fence = _MD_FENCE.match(line) is not None
            if in_fence or fence:
                in_fence = in_fence != fence
                new_kind: ParagraphKind | None = ParagraphKind.BODY
            elif _MD_ATX_HEADING.match(line):
                new_kind = ParagraphKind.HEADING
            elif current and current_kind is ParagraphKind.BODY and _MD_SETEXT_UNDERLINE.match(line):
                # "Title" over "=====" or "-----": the whole block so far is the heading.
                current.append(line)
                yield current_start, current, ParagraphKind.HEADING
                current = []
                continue
            elif _MD_LIST_ITEM.match(line):
                new_kind = ParagraphKind.LIST_ITEM
            elif _MD_TABLE_ROW.match(line):
                new_kind = ParagraphKind.TABLE
            else:
                new_kind = None  # plain text continues whatever paragraph is open

            starts_new = new_kind is not None and (
                not current
                or new_kind in (ParagraphKind.HEADING, ParagraphKind.LIST_ITEM)
                or new_kind is not current_kind
            )
            if current and current_kind is ParagraphKind.HEADING:
                starts_new = True  # an ATX heading is always one line
            if current and current_kind is ParagraphKind.TABLE and new_kind is not ParagraphKind.TABLE:
                starts_new = True
            if starts_new or not current:
                if current:
                    yield current_start, current, current_kind
                current, current_start = [], index
                current_kind = new_kind or ParagraphKind.BODY
            current.append(line)
        if current:
            yield current_start, current, current_kind
