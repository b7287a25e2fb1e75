"""Keyword queries: the clause or section ABOUT a term above the passages that only mention it.

A lawyer who types `governing law`, `force majeure` or `prescrição intercorrente` wants the
clause on it: its heading or the sentence that defines or states it. Word statistics cannot see
that: a cross-reference ("subject to Section 14 (Governing Law)"), a definitions index or a
court's "the law governing avulsion" hold the same words. A chunk gets the topic cue when one of
its lines is about the term:

* a heading holding every content word of the query: a short line in capitals or title case
  ("14. GOVERNING LAW", "Force Majeure", "II. STANDARD OF REVIEW", "DA PRESCRIÇÃO INTERCORRENTE"),
  or a run-in heading opening a paragraph ("12.3 Governing Law. This Agreement shall ...");
* a definition: the term in quotes followed by means / shall mean / significa ..., or a sentence
  that opens with the term and says what it is ("Summary judgment is appropriate when ...").

Only short queries (at most four content words: `Query.keyword_stems`) are keyword queries;
questions are left to the other stages. Words are matched by five-letter folded prefixes
(query/analysis.py's stand-in for a stemmer: "indemnification" ~ "indemnify", "eleição" ~ "eleito").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from casetrack.search.query.analysis import stems_of

MAX_HEADING_CHARS = 90
_NUMBERING = re.compile(
    r"^\s*(?:(?:section|article|clause|cl[aá]usula|art(?:igo)?\.?|se[cç][aã]o|cap[ií]tulo)\s+)?"
    r"(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.|[a-z]\.|\([a-z0-9]+\))?\s*[-–—:.]?\s*",
    re.IGNORECASE,
)
_RUN_IN = re.compile(r"^(.{3,80}?)(?:\.\s|:\s|\s[-–—]\s)")
_DEFINES = re.compile(
    r"[\"“”'‘’]([^\"“”'‘’\n]{3,80})[\"“”'‘’]\s*(?:\)\s*)?(?:means|shall mean|has the meaning|refers to|"
    r"includes|significa|signific[ao]|entende-se|compreende)",
    re.IGNORECASE,
)
_STATES = re.compile(
    r"^(.{3,80}?)\s+(?:is|are|means|requires|shall|consiste|é|são|significa|ocorre)\b", re.IGNORECASE
)


def _has_all(text: str, terms: frozenset[str]) -> bool:
    return terms <= stems_of(text)


def _heading_like(line: str) -> bool:
    body = _NUMBERING.sub("", line, count=1).strip(" .:;-–—")
    letters = [c for c in body if c.isalpha()]
    if not letters or len(line) > MAX_HEADING_CHARS:
        return False
    if all(c.isupper() for c in letters):
        return True
    words = [w for w in body.split() if len(w) > 3]
    return bool(words) and sum(w[0].isupper() for w in words) >= 0.6 * len(words) and not body.endswith(",")


def line_is_about(line: str, terms: frozenset[str]) -> bool:
    """Whether `line` heads, defines or states the topic whose stems are `terms`."""
    line = line.strip()
    if not line or not _has_all(line[:300], terms):
        return False
    if len(line) <= MAX_HEADING_CHARS and _heading_like(line) and not line.endswith((",", ";")):
        return True
    lead = _NUMBERING.sub("", line, count=1)
    run_in = _RUN_IN.match(lead)
    if run_in and _heading_like(run_in[1]) and _has_all(run_in[1], terms):
        return True
    defined = _DEFINES.search(line[:300])
    if defined and _has_all(defined[1], terms):
        return True
    stated = _STATES.match(lead)  # the sentence's subject is the term itself, nothing more
    return bool(stated and stems_of(stated[1]) == terms)


def topic_scores(terms: frozenset[str], candidates: Iterable[tuple[str, str]]) -> dict[str, float]:
    """1.0 for each candidate (chunk_id, text) with a line about the topic whose stems are `terms`
    (a keyword query's: `Query.keyword_stems`); {} for no terms (a question)."""
    if not terms:
        return {}
    out: dict[str, float] = {}
    for chunk_id, text in candidates:
        if _has_all(text, terms) and any(line_is_about(line, terms) for line in text.split("\n")):
            out[chunk_id] = 1.0
    return out
