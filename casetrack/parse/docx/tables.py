"""DOCX table rows into paragraphs.

docx2python's own nesting of tables is unreliable, so rows are found through each paragraph's
w:tc/w:tr ancestors (docx/walker.py). A row of several cells is one TABLE paragraph, cells joined
by " | " on one line. A single-cell row is a layout box (a framed clause, a signature block), so
its paragraphs stay paragraphs of their own kind. A row that breaks across pages has a break mark
in every cell, so the row moves as a whole: before the row when each cell starts on the new page,
else after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casetrack.domain import ParagraphKind
from casetrack.parse.docx.pages import PAGE_BREAK, SOFT_PAGE_BREAK, PageAssembler, page_pieces

Cell = tuple[Any, list[tuple[str, ParagraphKind]]]  # a w:tc and its paragraphs (text, kind)


class TableRows:
    """The cells of the table row being read; the row's paragraphs go to the pages as it ends."""

    def __init__(self, out: PageAssembler) -> None:
        self.out = out
        self.row: Any | None = None  # the w:tr
        self.cells: list[Cell] = []

    def add(self, cell: Any, text: str, kind: ParagraphKind) -> None:
        """One paragraph of the w:tc `cell`; a cell of another row ends the row before it."""
        tr = cell.getparent()
        if tr is not self.row:
            self.end_row()
            self.row = tr
        if self.cells and self.cells[-1][0] is cell:
            self.cells[-1][1].append((text, kind))
        else:
            self.cells.append((cell, [(text, kind)]))

    def end_row(self) -> None:
        """Write the row read so far (at a paragraph outside the table, a new row, the end)."""
        for pieces, kind in row_paragraphs(self.cells):
            self.out.add(pieces, kind)
        self.cells.clear()
        self.row = None


def row_paragraphs(
    cells: Sequence[tuple[Any, Sequence[tuple[str, ParagraphKind]]]],
) -> list[tuple[list[list[str]], ParagraphKind]]:
    """Paragraphs (their lines on successive pages, and kind) for one table row (module docstring)."""
    texts = [[t.replace(SOFT_PAGE_BREAK, "") for t, _ in paragraphs] for _, paragraphs in cells]
    if len(cells) == 1:
        kinds = [kind for _, kind in cells[0][1]]
        return [(page_pieces(text), kind) for text, kind in zip(texts[0], kinds, strict=True)]
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
