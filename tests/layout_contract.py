"""The layout contract every parser shares (see casetrack/parse/pagebuilder.py).

A page's text is its paragraphs joined by "\\n\\n"; a paragraph's text is its lines joined by
"\\n"; every line and paragraph span points exactly at its text. `assert_page_consistent`
checks all of that for a page from any parser.
"""

from __future__ import annotations

import bisect

from casetrack.domain import Page


def assert_page_consistent(
    page: Page,
    *,
    source_line_numbers: bool = False,
    continued_paragraph_numbers: bool = False,
) -> None:
    """Assert that `page` keeps the layout contract.

    Lines: sorted, non-overlapping, inside the text, non-empty, stripped, with no newline.
    Paragraphs: the first starts at 0, each next one exactly "\\n\\n" after the previous one, the
    text ends with the last one, each is exactly its lines joined by "\\n", and every line lies
    in exactly one paragraph. A page without paragraphs has no text and no lines.

    By default lines and paragraphs are both numbered 1, 2, 3, ... on the page (PDF, RTF,
    unpaged DOCX). Two formats number differently on purpose; the keywords say which:

    source_line_numbers:
        TXT and MD: a line is cited by the line number an editor shows, so the file's blank
        lines still count and the page's line numbers have gaps (e.g. [3, 6, 7, 9]). Line
        numbers then only have to be >= 1 and strictly increasing.
    continued_paragraph_numbers:
        Paged DOCX after its first page: paragraph numbers run through the whole document and
        a paragraph split by a page break keeps its number on the next page, so the page's
        first paragraph may have any number >= 1. Within the page they still go up by exactly
        one; the order across pages is the caller's to check.
    """
    text = page.text
    lines = list(page.lines)
    paragraphs = list(page.paragraphs)

    # Lines.
    previous_end = 0
    for line in lines:
        assert previous_end <= line.start < line.end <= len(text), line
        chunk = text[line.start : line.end]
        assert chunk and "\n" not in chunk and chunk == chunk.strip(), (line, chunk)
        previous_end = line.end
    line_numbers = [ln.number for ln in lines]
    if source_line_numbers:
        assert all(n >= 1 for n in line_numbers), line_numbers
        assert all(a < b for a, b in zip(line_numbers, line_numbers[1:], strict=False)), line_numbers
    else:
        assert line_numbers == list(range(1, len(lines) + 1)), line_numbers

    # Paragraph numbers.
    paragraph_numbers = [p.number for p in paragraphs]
    if paragraphs:
        first = paragraph_numbers[0] if continued_paragraph_numbers else 1
        assert first >= 1, paragraph_numbers
        assert paragraph_numbers == list(range(first, first + len(paragraphs))), paragraph_numbers

    # Paragraph spans.
    if not paragraphs:
        assert text == "" and not lines, (text, lines)
        return
    line_starts = [ln.start for ln in lines]
    line_start_set = set(line_starts)
    line_ends = {ln.end for ln in lines}
    covered = []
    previous_para_end: int | None = None
    for para in paragraphs:
        assert para.start < para.end <= len(text), para
        if previous_para_end is None:
            assert para.start == 0, para
        else:
            assert text[previous_para_end : para.start] == "\n\n", para
        # Lines are sorted by start (checked above): those starting inside the paragraph.
        inside = lines[
            bisect.bisect_left(line_starts, para.start) : bisect.bisect_left(line_starts, para.end)
        ]
        assert inside and inside[0].start == para.start and inside[-1].end == para.end, para
        assert para.start in line_start_set and para.end in line_ends, para
        assert "\n".join(text[ln.start : ln.end] for ln in inside) == text[para.start : para.end], para
        covered.extend(inside)
        previous_para_end = para.end
    assert previous_para_end == len(text), "text goes on after the last paragraph"
    # Paragraphs are disjoint and each line starting in one ends in it, so this says every line
    # lies in exactly one paragraph.
    assert covered == lines, "a line lies outside every paragraph"
    assert text == "\n\n".join(text[p.start : p.end] for p in paragraphs)
    assert "\n".join(text[ln.start : ln.end] for ln in lines) == text.replace("\n\n", "\n")
