"""Cuts parsed pages into ~500-token chunks with exact provenance.

A chunk is a contiguous character range of one page's text: it never crosses a page, so every
chunk has one page to cite. Chunks end at paragraph ends where they can, else at sentence
ends; only a single sentence longer than the hard limit is cut at a word boundary. Consecutive
chunks overlap by about `overlap_tokens` of whole trailing sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from casetrack.chunk.sentences import sentence_spans
from casetrack.domain import ChunkDraft, Page, ParsedDocument

TokenCounter = Callable[[Sequence[str]], list[int]]

_WORDISH = re.compile(r"\w+|[^\w\s]")


def approximate_token_counts(texts: Sequence[str]) -> list[int]:
    """Word-piece-like estimate used when no tokenizer is at hand (about +15% for subwords)."""
    return [int(len(_WORDISH.findall(t)) * 1.15) + 1 for t in texts]


@dataclass(frozen=True)
class ChunkingConfig:
    target_tokens: int = 480
    max_tokens: int = 500
    overlap_tokens: int = 50
    # A chunk may end early at a paragraph end once it holds this share of the target.
    paragraph_break_share: float = 0.6
    # ... and before an article or section heading (chunk/structure.py) once it holds this share:
    # short articles share a chunk, a long one starts its own, with no overlap before it.
    structure_break_share: float = 0.3


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    tokens: int
    paragraph_end: bool  # the unit is the last sentence of its paragraph


def chunk_document(
    doc: ParsedDocument,
    count_tokens: TokenCounter = approximate_token_counts,
    config: ChunkingConfig | None = None,
    breaks: Mapping[int, AbstractSet[int]] | None = None,
) -> list[ChunkDraft]:
    """`breaks`: page index -> offsets where a structural unit (an article, a section) starts;
    chunks prefer to start there (chunk/structure.py)."""
    cfg = config or ChunkingConfig()
    drafts: list[ChunkDraft] = []
    for page_index, page in enumerate(doc.pages):
        if not page.text.strip():
            continue
        units = _units(page, count_tokens, cfg)
        starts = (breaks or {}).get(page_index, frozenset()) | transcript_page_starts(page)
        for start, end, tokens in _pack(units, cfg, starts):
            drafts.append(_draft(len(drafts), page, page_index, start, end, tokens, doc.transcript))
    return drafts


def transcript_page_starts(page: Page) -> frozenset[int]:
    """Where each printed transcript page after the first starts on `page` (a .txt transcript, a
    condensed sheet): chunks prefer to start there, as at an article."""
    pages = page.line_pages
    if len(pages) != len(page.lines):
        return frozenset()
    return frozenset(page.lines[i].start for i in range(1, len(pages)) if pages[i] != pages[i - 1])


def _units(page: Page, count_tokens: TokenCounter, cfg: ChunkingConfig) -> list[_Unit]:
    spans: list[tuple[int, int, bool]] = []
    for para in page.paragraphs:
        sentences = sentence_spans(page.text, para.start, para.end)
        for i, (s, e) in enumerate(sentences):
            spans.append((s, e, i == len(sentences) - 1))
    counts = count_tokens([page.text[s:e] for s, e, _ in spans])
    units: list[_Unit] = []
    for (s, e, last), tokens in zip(spans, counts, strict=True):
        if tokens <= cfg.max_tokens:
            units.append(_Unit(s, e, tokens, last))
            continue
        pieces = _split_long(page.text, s, e, tokens, cfg.target_tokens)
        piece_counts = count_tokens([page.text[ps:pe] for ps, pe in pieces])
        for j, ((ps, pe), pt) in enumerate(zip(pieces, piece_counts, strict=True)):
            units.append(_Unit(ps, pe, pt, last and j == len(pieces) - 1))
    return units


def _split_long(text: str, start: int, end: int, tokens: int, target: int) -> list[tuple[int, int]]:
    """Cut an over-long sentence at whitespace into pieces of about `target` tokens."""
    n_pieces = -(-tokens // max(int(target * 0.9), 1))
    step = (end - start) / n_pieces
    pieces: list[tuple[int, int]] = []
    cursor = start
    for k in range(1, n_pieces):
        cut = int(start + k * step)
        while cut < end and not text[cut].isspace():
            cut += 1
        if cut <= cursor or cut >= end:
            continue
        pieces.append((cursor, cut))
        cursor = cut
        while cursor < end and text[cursor].isspace():
            cursor += 1
    pieces.append((cursor, end))
    return [(s, e) for s, e in pieces if e > s]


def _pack(
    units: list[_Unit], cfg: ChunkingConfig, breaks: AbstractSet[int] = frozenset()
) -> list[tuple[int, int, int]]:
    """Greedy packing of units into (start, end, tokens) chunks with sentence overlap; a chunk
    that holds enough ends before a unit starting at one of `breaks`."""
    chunks: list[tuple[int, int, int]] = []
    i = 0
    n = len(units)
    while i < n:
        j = i
        total = 0
        while j < n and (j == i or total + units[j].tokens <= cfg.target_tokens):
            if j > i and units[j].start in breaks and total >= cfg.structure_break_share * cfg.target_tokens:
                break
            total += units[j].tokens
            j += 1
            if (
                j < n
                and units[j - 1].paragraph_end
                and total >= cfg.paragraph_break_share * cfg.target_tokens
            ):
                # Stop at this paragraph end if the next paragraph would not fit whole.
                if total + _paragraph_tokens(units, j) > cfg.target_tokens:
                    break
        chunks.append((units[i].start, units[j - 1].end, total))
        if j >= n:
            break
        if units[j].start in breaks:  # the next article starts the next chunk: no overlap
            i = j
            continue
        # Step back over whole trailing sentences for the overlap, never to the chunk start.
        k = j
        overlap = 0
        while k - 1 > i and overlap + units[k - 1].tokens <= cfg.overlap_tokens * 1.5:
            overlap += units[k - 1].tokens
            k -= 1
        i = k if overlap > 0 else j
    return chunks


def _paragraph_tokens(units: list[_Unit], start: int) -> int:
    total = 0
    for unit in units[start:]:
        total += unit.tokens
        if unit.paragraph_end:
            break
    return total


def _draft(
    seq: int, page: Page, page_index: int, start: int, end: int, tokens: int, transcript: str | None = None
) -> ChunkDraft:
    first_line = page.line_at(start)
    last_line = page.line_at(end - 1)
    first_para = page.paragraph_at(start)
    last_para = page.paragraph_at(end - 1)
    lines = _line_indexes(page, start, end)
    confidences = (
        tuple(page.line_confidences[i] for i in lines)
        if len(page.line_confidences) == len(page.lines)
        else ()
    )
    return ChunkDraft(
        seq=seq,
        text=page.text[start:end],
        page=page.number,
        page_index=page_index,
        char_start=start,
        char_end=end,
        paragraph_start=first_para.number if first_para else 0,
        paragraph_end=last_para.number if last_para else 0,
        line_start=first_line.number if first_line else 0,
        line_end=last_line.number if last_line else 0,
        token_count=tokens,
        extraction_method=page.extraction_method,
        ocr_confidence=_mean(confidences) if confidences else page.ocr_confidence,
        line_numbers=tuple(page.lines[i].number for i in lines),
        line_confidences=confidences,
        bates=page.bates,
        line_pages=tuple(page.line_pages[i] for i in lines)
        if len(page.line_pages) == len(page.lines)
        else (),
        transcript=transcript,
    )


def _line_indexes(page: Page, start: int, end: int) -> list[int]:
    """The indexes of the page's lines that overlap [start, end), in order."""
    first = page.line_at(start)
    if first is None:
        return []
    i = page.lines.index(first)
    found = []
    while i < len(page.lines) and page.lines[i].start < end:
        if page.lines[i].end > start:
            found.append(i)
        i += 1
    return found


def _mean(values: tuple[float, ...]) -> float:
    return sum(values) / len(values)
