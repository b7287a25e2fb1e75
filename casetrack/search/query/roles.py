"""What a query asks, term by term: the words that should point at the cited lines.

A question that names its document ("Consider the supply agreement between Acme and Beta; what is
the notice period?") carries words that pick the document, not the passage: names (capitalised
inside a clause, or with a capital inside: "Acme", "mPhase", "PLRA"), the clauses before the
question, words in parentheses, the document itself ("this contract"), and question words
("what", "does", "any"). Inside one chunk those words point at the cover page or the signature
block; the question's own words point at the answer. So names only break ties, context words
count CONTEXT_WEIGHT, question words not at all, and the question's words count fully
(pincite/terms.py weighs each by its rarity among a chunk's sentences and its length).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from casetrack.chunk.sentences import ABBREVIATIONS

CONTEXT_WEIGHT = 0.1  # a word of the clauses around the question, in parentheses, or "this contract"

# Question words and function words (English and Portuguese; the English analyzer drops some).
FILLER = frozenset(
    """
    what which who whom whose when where why how is are was were be been do does did doe any there have
    has had include includes including provide provides under can could would should
    o a os as um uma de da do das dos em no na nos nas ao aos à às e é ou que qual quais quem quando onde
    como por para pelo pela pelos pelas com se há existe existem sobre isso isto
    """.split()
)
# The word after these names the document itself ("this contract", "neste contrato").
DEICTIC = frozenset(
    "this these esta este estes estas neste nesta deste desta nesse nessa desse dessa".split()
)

_QUERY_TOKEN = re.compile(r"[^\W_][\w'’-]*|[\"“”«»()\[\]]|[.?!:;,](?=\s|$)")


class Analyzer(Protocol):
    def analyze(self, text: str) -> list[str]: ...


@dataclass(frozen=True)
class QueryTerms:
    content: tuple[str, ...]  # terms that are not names, in query order
    role: Mapping[str, float]  # content term -> 1.0 (the question) or CONTEXT_WEIGHT
    names: frozenset[str]


def _question_segment(tokens: Sequence[str]) -> tuple[int, int]:
    """Token range of the last clause ending in "?" (the whole query when none does)."""
    ends = [i for i, t in enumerate(tokens) if t == "?"]
    if not ends:
        return 0, len(tokens)
    stop = ends[-1]
    start = max((i + 1 for i, t in enumerate(tokens[:stop]) if t in ".?!;:"), default=0)
    # "In the supply agreement between Acme and Beta, how much notice ...?": a lead-in that
    # names something sets the scene for the question after its comma.
    comma = next((i for i in range(start, stop) if tokens[i] == ","), None)
    if comma is not None and any(t[0].isupper() for t in tokens[start + 1 : comma]):
        start = comma + 1
    return start, stop


def asked_text(query: str) -> str:
    """The question itself, without the scene it is set in ("Consider the supply agreement
    between Acme and Beta; what is the notice period?" -> "what is the notice period?"); the
    query itself when nothing comes before its question."""
    matches = list(_QUERY_TOKEN.finditer(query))
    first, _ = _question_segment([m.group() for m in matches])
    if first == 0 or first >= len(matches):
        return query
    return query[matches[first].start() :].strip()


def term_roles(query: str, analyzer: Analyzer) -> QueryTerms:
    """The query's terms by role (see the module's docstring)."""
    tokens = [m.group() for m in _QUERY_TOKEN.finditer(query)]
    first, last = _question_segment(tokens)
    names: set[str] = set()
    plain: set[str] = set()
    role: dict[str, float] = {}
    order: list[str] = []
    clause_start, lower, previous, depth = True, False, "", 0
    for i, word in enumerate(tokens):
        if word == ".":  # a sentence ends after a lower-case word, not after "Dr." or "Inc."
            clause_start = clause_start or (previous.islower() and previous not in ABBREVIATIONS)
            continue
        if not word[0].isalnum():
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(word, 0)
            # A list ("Acme; Beta Corp; Buyer") or a closing bracket starts no new sentence.
            clause_start = clause_start or word not in ";:,)]"
            continue
        lowered = word.lower()
        lower = lower or (word.islower() and len(word) > 3)
        terms = analyzer.analyze(word)
        if (word[0].isupper() and not clause_start) or any(c.isupper() for c in word[1:]):
            names.update(terms)
        elif word[0].islower():  # a capital at a clause start says nothing either way
            plain.update(terms)
        if lowered not in FILLER:
            asked = first <= i < last and depth <= 0 and previous.lower() not in DEICTIC
            for term in terms:
                order.append(term)
                role[term] = max(role.get(term, 0.0), 1.0 if asked else CONTEXT_WEIGHT)
        clause_start, previous = False, word
    found = (names - plain) if lower else set()
    content = tuple(t for t in dict.fromkeys(order) if t not in found)
    if not content:  # only names (or filler) asked: they are what the query is about
        every = tuple(dict.fromkeys(analyzer.analyze(query)))
        return QueryTerms(every, {t: 1.0 for t in every}, frozenset())
    return QueryTerms(content, role, frozenset(found))
