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


@dataclass(frozen=True)
class Scorer:
    """Scores spans of one chunk against one query's terms (see the module's docstring)."""

    analyzer: Analyzer
    terms: QueryTerms
    weights: Mapping[str, float]
    seen: dict[str, list[str]] = field(default_factory=dict)  # text -> its tokens (each analysed once)

    def tokens(self, text: str) -> list[str]:
        found = self.seen.get(text)
        if found is None:
            found = self.seen[text] = self.analyzer.analyze(text)
        return found

    def distinct(self, text: str) -> int:
        """How many of the question's own terms `text` holds (or a near form of)."""
        present = set(self.tokens(text))
        return sum(1 for t in self.terms.content if self.terms.role.get(t) == 1.0 and match(t, present))

    def score(self, text: str) -> float:
        tokens = self.tokens(text)
        present = set(tokens)
        content = self.terms.content
        total = sum(self.weights.get(t, 0.0) * match(t, present) for t in content)
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
    bags = [set(out.tokens(t)) for t in texts]
    for term in (*terms.content, *terms.names):
        df = sum(1 for bag in bags if match(term, bag))
        if df:
            rarity = 1.0 + math.log(len(bags) / df)
            weights[term] = rarity * min(1.5, max(0.5, len(term) / 5)) * terms.role.get(term, 1.0)
    return out


def match(term: str, present: set[str]) -> float:
    """1 when `term` is among the tokens, 0.5 for a near form (see `Scorer`), else 0."""
    if term in present:
        return 1.0
    if len(term) < 5:
        return 0.0
    for token in present:
        shorter = min(len(term), len(token))
        if shorter >= 5 and term[: shorter - 1] == token[: shorter - 1]:
            return 0.5
    return 0.0


def _adjacent(tokens: Sequence[str], a: str, b: str) -> bool:
    """`b` follows `a` within three tokens (a dropped stopword or a second token form between)."""
    return any(t == a and b in tokens[i + 1 : i + 4] for i, t in enumerate(tokens))
