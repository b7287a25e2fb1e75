"""A pinned span's own provenance: its page, paragraphs, lines, offsets and OCR confidence, from
the chunk's stored line numbers, line confidences and (transcripts) printed pages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from casetrack.domain import Provenance
from casetrack.search.pincite.layout import line_of, line_starts
from casetrack.store.chunk_view import stored_line_pages


def pin_provenance(
    chunk: Provenance,
    text: str,
    start: int,
    end: int,
    line_numbers: list[int] | None,
    line_confidences: list[float] | None = None,
    line_pages: list[int] | None = None,
) -> Provenance:
    """The provenance of text[start:end] inside the chunk `chunk` (char offsets in page terms).

    `line_numbers`: the stored number of each line of the chunk's text (every row has them since
    schema version 1, store/migrations/). Numbers that do not fit the text (a guard: it does not
    happen) are not cited: the citation stops at the paragraph (`lines_citable=False`, the
    chunk's own line range kept).
    `line_confidences` (OCR'd chunks: each line's mean word confidence) give the span's own
    `ocr_confidence`, the mean over its lines. `line_pages` (transcripts: each line's printed
    page) give the span's own page:line cite, across a page break too (`Tr. 12:20-13:4`).
    """
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    end = max(end, start)
    starts = line_starts(text)
    first, last = line_of(starts, start), line_of(starts, max(end - 1, start))
    para_start = chunk.paragraph_start + text.count("\n\n", 0, start)
    para_end = para_start + text.count("\n\n", start, end)
    citable = chunk.lines_citable
    if chunk.line_start <= 0:
        line_start, line_end = chunk.line_start, chunk.line_end
    elif line_numbers is not None and len(line_numbers) == len(starts):
        line_start, line_end = line_numbers[first], line_numbers[last]
    else:
        line_start, line_end, citable = chunk.line_start, chunk.line_end, False
    confidence = chunk.ocr_confidence
    if line_confidences and len(line_confidences) == len(starts):
        cited = line_confidences[first : last + 1]
        confidence = sum(cited) / len(cited)
    if chunk.transcript and line_pages and len(line_pages) == len(starts):
        page_end = line_pages[last] if line_pages[last] != line_pages[first] else None
        chunk = replace(chunk, transcript_page=line_pages[first], transcript_page_end=page_end)
    return replace(
        chunk,
        ocr_confidence=confidence,
        paragraph_start=para_start,
        paragraph_end=para_end,
        line_start=line_start,
        line_end=line_end if chunk.transcript_page_end is not None else max(line_end, line_start),
        char_start=chunk.char_start + start,
        char_end=chunk.char_start + end,
        lines_citable=citable,
        page_end=None,
    )


def lines_cite(chunk: Provenance, row: Mapping[str, Any], start: int, end: int) -> Provenance:
    """The provenance of the whole lines of the chunk `row` that hold text[start:end] (a mention
    is cited to its own lines, not to the whole chunk)."""
    text = str(row["text"])
    line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return pin_provenance(
        chunk,
        text,
        line_start,
        line_end,
        stored_line_numbers(row),
        stored_line_confidences(row),
        stored_line_pages(row),
    )


def stored_line_numbers(row: Mapping[str, Any]) -> list[int] | None:
    """A chunk row's `line_numbers` (None for a chunk without numbered lines)."""
    value = row.get("line_numbers")
    return [int(n) for n in value] if isinstance(value, (list, tuple)) and value else None


def stored_line_confidences(row: Mapping[str, Any]) -> list[float] | None:
    """An OCR'd chunk row's `line_confidences` (None for native text)."""
    value = row.get("line_confidences")
    return [float(n) for n in value] if isinstance(value, (list, tuple)) and value else None
