"""Sentence boundaries inside a paragraph, aware of legal abbreviations (English and Portuguese).

Returns character spans, never rewritten text, so chunk offsets stay exact.
"""

from __future__ import annotations

import re

# Words that end with a period without ending a sentence. Lower-cased, without the period.
ABBREVIATIONS = frozenset(
    """
    art arts inc co corp ltd llc no nos nº n sec secs ss para paras pp p cf e.g i.e et al etc
    v vs u.s u.s.c mr mrs ms dr jr sr st ave fig ex exh supp cir app ct dist f.2d f.3d f.4th
    jan feb mar apr jun jul aug sep sept oct nov dec
    fls fl inc incs par pág pag dra sra srs exmo exma min des rel proc res dec lei cód cod
    """.split()
)

_CANDIDATE = re.compile(r"[.!?;:](?:[\"'”’)\]]*)\s+")
_INITIALISM = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")
_NEXT_STARTS_SENTENCE = re.compile(r"[A-ZÀ-Ý0-9\"“'(\[§•\-–—]")


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split text[start:end] into sentence spans (absolute offsets, trailing spaces dropped)."""
    spans: list[tuple[int, int]] = []
    cursor = start
    segment = text[start:end]
    for match in _CANDIDATE.finditer(segment):
        stop = start + match.end()
        punct_at = start + match.start()
        nxt = text[stop : stop + 1]
        if not nxt or not _NEXT_STARTS_SENTENCE.match(nxt):
            continue
        if text[punct_at] == "." and _is_abbreviation(text, cursor, punct_at):
            continue
        # A colon or semicolon ends a sentence only before a new line of text (list items,
        # statute incisos); inline it is part of the sentence.
        if text[punct_at] in ";:" and "\n" not in text[punct_at:stop]:
            continue
        sentence_end = start + match.start() + len(match.group(0).rstrip())
        if sentence_end > cursor:
            spans.append((cursor, sentence_end))
        cursor = stop
    if cursor < end:
        tail_end = end
        while tail_end > cursor and text[tail_end - 1].isspace():
            tail_end -= 1
        if tail_end > cursor:
            spans.append((cursor, tail_end))
    return spans


def _is_abbreviation(text: str, sentence_start: int, period_at: int) -> bool:
    word_start = period_at
    while (
        word_start > sentence_start
        and not text[word_start - 1].isspace()
        and text[word_start - 1] not in '("“'
    ):
        word_start -= 1
    word = text[word_start:period_at].lower()
    if not word:
        return False
    if len(word) == 1 and word.isalpha():  # initials: "J. Smith", "a. the first item"
        return True
    if _INITIALISM.fullmatch(word):  # "U.S", "e.g", "S.A" keep their inner periods
        return True
    return word in ABBREVIATIONS
