"""A chunk's text as lines, paragraphs and sentences: what a pin-cite counts in.

Chunk text layout (parse/pagebuilder.py): lines joined by "\\n", paragraphs by "\\n\\n", no
line holds "\\n". So paragraphs and lines inside a chunk are counted from its start.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from casetrack.chunk.sentences import sentence_spans

Span = tuple[int, int]


def line_starts(text: str) -> list[int]:
    """Offsets where each line of the chunk's text begins (a paragraph break is one "\\n\\n")."""
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        if at + 1 < len(text) and text[at + 1] != "\n":
            starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def line_of(starts: Sequence[int], offset: int) -> int:
    return max(bisect.bisect_right(starts, offset) - 1, 0)


def line_end(text: str, starts: Sequence[int], index: int) -> int:
    stop = text.find("\n", starts[index])
    return len(text) if stop < 0 else stop


def sentences(text: str) -> list[Span]:
    """Sentence spans of the chunk, never across a paragraph break (a heading is its own)."""
    out: list[Span] = []
    start = 0
    while start < len(text):
        stop = text.find("\n\n", start)
        stop = len(text) if stop < 0 else stop
        out += sentence_spans(text, start, stop)
        start = stop + 2
    return out or [strip_span(text, 0, len(text))]


def strip_span(text: str, start: int, end: int) -> Span:
    """The span without whitespace at its edges and without a word cut at either end."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    while 0 < start < len(text) and not text[start - 1].isspace() and not text[start].isspace():
        start -= 1
    while end < len(text) and end > 0 and not text[end].isspace() and not text[end - 1].isspace():
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
