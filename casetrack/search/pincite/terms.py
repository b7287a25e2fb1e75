"""Sentences of one chunk scored against the query's terms: which sentence a pin-cite names.

A content term counts its weight (role x rarity among the chunk's sentences x length); a form
sharing all but the last letter of the shorter stem, five letters at least, counts half
("liable" / "liability"); consecutive content terms found together add PHRASE_BONUS of their
weights; names (query/roles.py) only break ties.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from casetrack.search.query.roles import Analyzer, QueryTerms

NAME_TIEBREAK = 0.001  # a name points at the document, not the passage: it only breaks ties
PHRASE_BONUS = 0.5  # two consecutive query terms found together add this share of their weights
NEAR_MIN = 5  # near forms are compared between words of at least this many letters


@dataclass(frozen=True)
class Forms:
    """The tokens of one text, indexed to tell at once whether a term, or a near form of it, is
    there (`match`): the tokens; each prefix of four letters or more of the tokens of five or
    more; and those tokens without their last letter."""

    present: frozenset[str]
    prefixes: frozenset[str]
    clipped: frozenset[str]

    @classmethod
    def of(cls, tokens: Sequence[str]) -> Forms:
        long = {t for t in tokens if len(t) >= NEAR_MIN}
        prefixes = {t[:k] for t in long for k in range(NEAR_MIN - 1, len(t) + 1)}
        return cls(frozenset(tokens), frozenset(prefixes), frozenset(t[:-1] for t in long))


@dataclass(frozen=True)
class Scorer:
    """Scores spans of one chunk against one query's terms (see the module's docstring)."""

    analyzer: Analyzer
    terms: QueryTerms
    weights: Mapping[str, float]
    seen: dict[str, tuple[list[str], Forms]] = field(default_factory=dict)  # text -> tokens (analysed once)
    matched: dict[str, dict[str, float]] = field(default_factory=dict)  # text -> term -> `match` degree

    def tokens(self, text: str) -> list[str]:
        return self._read(text)[0]

    def forms(self, text: str) -> Forms:
        return self._read(text)[1]

    def _read(self, text: str) -> tuple[list[str], Forms]:
        found = self.seen.get(text)
        if found is None:
            tokens = self.analyzer.analyze(text)
            found = self.seen[text] = (tokens, Forms.of(tokens))
        return found

    def degrees(self, text: str) -> dict[str, float]:
        """Each query term's `match` degree in `text` (worked out once per text)."""
        found = self.matched.get(text)
        if found is None:
            forms = self.forms(text)
            found = self.matched[text] = {
                t: match(t, forms) for t in (*self.terms.content, *self.terms.names)
            }
        return found

    def distinct(self, text: str) -> int:
        """How many of the question's own terms `text` holds (or a near form of)."""
        degrees = self.degrees(text)
        return sum(1 for t in self.terms.content if self.terms.role.get(t) == 1.0 and degrees[t])

    def score(self, text: str) -> float:
        tokens, forms = self._read(text)
        present = forms.present
        content = self.terms.content
        degrees = self.degrees(text)
        total = sum(self.weights.get(t, 0.0) * degrees[t] for t in content)
        for a, b in zip(content, content[1:], strict=False):
            if a in present and b in present and _adjacent(tokens, a, b):
                total += PHRASE_BONUS * (self.weights.get(a, 0.0) + self.weights.get(b, 0.0))
        return total + NAME_TIEBREAK * sum(self.weights.get(t, 0.0) for t in self.terms.names & present)


def scorer(texts: Sequence[str], terms: QueryTerms, analyzer: Analyzer) -> Scorer:
    """A scorer for the chunk whose sentences are `texts`: a term's weight is its role times its
    rarity among the sentences times its length (0.5 to 1.5 for 2 to 8+ letters). (The case's
    BM25 document frequencies instead of length measured no better: 0.663 against 0.679.)"""
    weights: dict[str, float] = {}
    out = Scorer(analyzer, terms, weights)
    bags = [out.degrees(t) for t in texts]
    for term in (*terms.content, *terms.names):
        df = sum(1 for bag in bags if bag[term])
        if df:
            rarity = 1.0 + math.log(len(bags) / df)
            weights[term] = rarity * min(1.5, max(0.5, len(term) / 5)) * terms.role.get(term, 1.0)
    return out


def match(term: str, forms: Forms) -> float:
    """1 when `term` is among the tokens; 0.5 for a near form: a token that shares all but the last
    letter of the shorter of the two, both five letters or more ("liable" / "liability"); else 0."""
    if term in forms.present:
        return 1.0
    if len(term) < NEAR_MIN:
        return 0.0
    # A token as long as the term or longer, or one letter shorter, starting with the term minus
    # its last letter; or a shorter token (five letters or more) whose own stem the term starts with.
    if term[:-1] in forms.prefixes:
        return 0.5
    if any(term[:k] in forms.clipped for k in range(NEAR_MIN - 1, len(term) - 1)):
        return 0.5
    return 0.0


def _adjacent(tokens: Sequence[str], a: str, b: str) -> bool:
    """`b` follows `a` within three tokens (a dropped stopword or a second token form between)."""
    return any(t == a and b in tokens[i + 1 : i + 4] for i, t in enumerate(tokens))
