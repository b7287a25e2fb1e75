"""How well a result answers the query, on a scale a person can read, and when nothing does.

A fused score (weighted reciprocal ranks, about 0.06 for any first place) says where a chunk
ranks, not whether it answers: a nonsense query gets results with the same scores as a good one.
Relevance is judged from evidence a person would accept, each on 0-1:

* lexical: the share of the query's words (the case's analyzer: stemmed, accents folded) that
  the chunk holds, each weighted by its rarity in the case (IDF), so "the", "de" and the words
  every chunk has count for little and the rare, specific ones for much;
* semantic: the E1 cosine of the query and the chunk's best passage window, mapped linearly from
  the cosine unrelated text reaches with this model to the cosine of a passage that answers
  (per language: the model puts Portuguese pairs higher);
* verbatim: the chunk reproduces the query (search/verbatim.py): relevance = its alignment.

relevance = 1 - (1 - lexical x LEXICAL_SHARE) x (1 - semantic): either kind of evidence alone can
make a result relevant, both together more so. Labels: "exact" (the chunk reproduces the query),
>= STRONG "strong", >= GOOD "good", >= NO_GOOD_MATCH "weak", else "poor". A search whose best
result is below `NO_GOOD_MATCH` reports `no_good_match`: nothing in the case is likely to say
that. Set with bench/relevance_scale.py (2026-11-24, our lawyer questions against off-topic
queries on the same cases): top-1 relevance of 115 real questions >= 0.57, of 24 off-topic
queries <= 0.50 (EN) and <= 0.40 (PT); the threshold leans towards not flagging a real answer.
Lowered from 0.40 to 0.35 on 2026-11-25: on the two spent blind sets (144 answerable questions
written by someone who never saw the code) 0.40 flagged 13 real questions and 0.35 flags 3,
while 38 of 42 off-topic queries on the same cases stay flagged (40 at 0.40).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from casetrack.domain import SearchHit


class Analyzer(Protocol):
    def terms(self, text: str) -> list[str]: ...


# E1 cosine (floor, full) per case language: unrelated text reaches the floor, answers the top.
COSINE_SCALE = {"en": (0.80, 0.90), "pt": (0.845, 0.935)}
LEXICAL_SHARE = 0.85  # words alone, all present, give at most 0.85
STRONG = 0.75
GOOD = 0.55
NO_GOOD_MATCH = 0.35


def idf(df: int, total: int) -> float:
    return math.log(1 + (total - df + 0.5) / (df + 0.5)) if total else 0.0


def lexical(query_terms: Iterable[str], weights: Mapping[str, float], chunk_terms: set[str]) -> float:
    """IDF-weighted share of the query's terms in the chunk (0-1)."""
    terms = set(query_terms)
    total = sum(weights.get(t, 0.0) for t in terms)
    if total <= 0:
        return 0.0
    return sum(weights.get(t, 0.0) for t in terms if t in chunk_terms) / total


def semantic(cosine: float | None, language: str = "en") -> float:
    if cosine is None:
        return 0.0
    floor, full = COSINE_SCALE.get(language.lower().split("-")[0], COSINE_SCALE["en"])
    return min(1.0, max(0.0, (cosine - floor) / (full - floor)))


def relevance(
    lexical_share: float, cosine: float | None, verbatim: float | None = None, language: str = "en"
) -> float:
    """0-1 relevance from the evidence above (`verbatim`: alignment 0-100 when the chunk
    reproduces the query)."""
    if verbatim is not None:
        return round(min(1.0, verbatim / 100), 3)
    return round(1 - (1 - lexical_share * LEXICAL_SHARE) * (1 - semantic(cosine, language)), 3)


def label(value: float, verbatim: bool = False) -> str:
    if verbatim:
        return "exact"
    if value >= STRONG:
        return "strong"
    if value >= GOOD:
        return "good"
    if value >= NO_GOOD_MATCH:
        return "weak"
    return "poor"


@dataclass(frozen=True)
class Rater:
    """Rates the hits of one search: the query's terms with their IDF in the case, each candidate's
    E1 cosine and, for a reproduced passage, its alignment."""

    terms: Sequence[str]  # the query's analyzer terms
    weights: Mapping[str, float]  # term -> IDF in the case
    analyzer: Analyzer
    cosines: Mapping[str, float]
    verbatim: Mapping[str, float]  # chunk -> alignment 0-100
    language: str = "en"

    def rate(self, hits: list[SearchHit]) -> list[SearchHit]:
        """`hits` with `relevance` and `match` filled in."""
        out = []
        for h in hits:
            lex = lexical(self.terms, self.weights, set(self.analyzer.terms(h.text))) if self.terms else 0.0
            value = relevance(lex, self.cosines.get(h.chunk_id), self.verbatim.get(h.chunk_id), self.language)
            out.append(replace(h, relevance=value, match=label(value, h.chunk_id in self.verbatim)))
        return out


def rater(
    terms: Sequence[str],
    doc_freqs: Mapping[str, int],
    total: int,
    analyzer: Analyzer,
    cosines: Mapping[str, float],
    verbatim: Mapping[str, float],
    language: str = "en",
) -> Rater:
    """A `Rater` whose term weights are each term's IDF among the case's `total` chunks."""
    weights = {t: idf(doc_freqs.get(t, 0), total) for t in terms}
    return Rater(terms, weights, analyzer, cosines, verbatim, language)
