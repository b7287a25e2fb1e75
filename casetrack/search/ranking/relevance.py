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

Calibrated (issue 27, the default): `relevance` is the estimated chance that the result's chunk
holds the answer, from that evidence and the result's standing (`Evidence`, `Calibration`: a
logistic model fitted by bench/calibrate_labels.py on questions with verified answers, 1,620
results of dev set 1 with and without the caller's words, each case left out in turn to check
it). Labels: "exact" (the chunk reproduces the query), >= STRONG "strong" (on the left-out cases
0.87 of such results held the answer), >= GOOD "good" (more likely than not), >= WEAK "weak",
else "poor". A table of contents, a signature block or a page footer is never above "weak", a
result with little of the query's words and meaning (`OFF_TOPIC`) is "poor", whatever its rank. A
search whose best result is below `NO_GOOD_MATCH` reports `no_good_match` (on the dev set: 1 of
144 answerable searches flagged).

Without a model (`LabelSettings.model` None) the older formula rates:
relevance = 1 - (1 - lexical x LEXICAL_SHARE) x (1 - semantic), on the older scale (FORMULA_SCALE).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from casetrack.domain import SearchHit


class Analyzer(Protocol):
    def terms(self, text: str) -> list[str]: ...


# E1 cosine (floor, full) per case language: unrelated text reaches the floor, answers the top.
COSINE_SCALE = {"en": (0.80, 0.90), "pt": (0.845, 0.935)}
LEXICAL_SHARE = 0.85  # words alone, all present, give at most 0.85


@dataclass(frozen=True)
class Scale:
    """Where the labels start on a relevance scale, and below which nothing clearly answers."""

    strong: float
    good: float
    weak: float
    no_good_match: float

    def label(self, value: float, verbatim: bool = False) -> str:
        if verbatim:
            return "exact"
        if value >= self.strong:
            return "strong"
        if value >= self.good:
            return "good"
        if value >= self.weak:
            return "weak"
        return "poor"


# The calibrated chance that a result holds the answer (the default).
CALIBRATED_SCALE = Scale(strong=0.8, good=0.5, weak=0.2, no_good_match=0.15)
# The older formula's scale (bench/relevance_scale.py, 2026-11-24/25).
FORMULA_SCALE = Scale(strong=0.75, good=0.55, weak=0.35, no_good_match=0.35)
STRONG, GOOD, WEAK = CALIBRATED_SCALE.strong, CALIBRATED_SCALE.good, CALIBRATED_SCALE.weak
NO_GOOD_MATCH = CALIBRATED_SCALE.no_good_match
# Off topic: a result that shows less than this of the query's (or the caller's) words or meaning
# (the older formula) is "poor" whatever its rank, since the calibrated chance leans on rank and
# would call the first result of a nonsense query "weak". Dev set 1: with it, 1 of 144 answerable
# searches says no_good_match (0.3 and the question's words alone: 7).
OFF_TOPIC = 0.25
OFF_TOPIC_CAP = 0.1
# A table of contents, a signature block or page furniture is at most "weak".
BOILERPLATE_CAP = 0.45


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


def combined(lexical_share: float, semantic_share: float) -> float:
    """Either kind of evidence alone can make a result relevant, both together more so."""
    return 1 - (1 - lexical_share * LEXICAL_SHARE) * (1 - semantic_share)


def relevance(
    lexical_share: float, cosine: float | None, verbatim: float | None = None, language: str = "en"
) -> float:
    """0-1 relevance from the evidence above (`verbatim`: alignment 0-100 when the chunk
    reproduces the query)."""
    if verbatim is not None:
        return round(min(1.0, verbatim / 100), 3)
    return round(combined(lexical_share, semantic(cosine, language)), 3)


def label(value: float, verbatim: bool = False, scale: Scale = CALIBRATED_SCALE) -> str:
    return scale.label(value, verbatim)


@dataclass(frozen=True)
class Evidence:
    """What a result shows for itself against a query: the features the labels are calibrated on
    (bench/calibrate_labels.py)."""

    lexical: float  # IDF-weighted share of the question's own terms (not its names or scene) in the chunk
    lexical_all: float  # ... of all the query's terms
    lexical_words: float  # ... of the terms of the caller's keywords and likely wording (0 without)
    semantic: float  # E1 cosine of the question, on the language's scale (0-1)
    semantic_words: float  # E1 cosine of the likely wording, on that scale (0 without)
    has_words: bool  # the caller gave keywords or a likely wording
    rank: int  # 1 for the first result of the search
    top_ratio: float  # the result's score over the first result's
    prose: int  # words of three letters or more in the chunk (a footer, a contents line: few)
    boilerplate: bool  # a table of contents, a signature block or page furniture, not a clause
    verbatim: float | None  # alignment 0-100 when the chunk reproduces the query

    @property
    def plain(self) -> float:
        """The older formula's relevance of this evidence (words and meaning, whatever the rank): the
        query's words, or the caller's keywords and wording when it holds more of those."""
        return combined(max(self.lexical_all, self.lexical_words), self.semantic)

    def features(self) -> list[float]:
        """The model's inputs, in `Calibration.weights` order."""
        return [
            1.0,
            self.lexical,
            self.lexical_all,
            self.lexical_words,
            self.semantic,
            self.semantic_words,
            float(self.has_words),
            math.log(self.rank),
            self.top_ratio,
            float(self.prose < SHORT_PROSE),
            float(self.boilerplate),
        ]


SHORT_PROSE = 25  # fewer words than this: a page footer, a heading, a contents or signature line
# A contents line ends in its page number (after dot leaders or spaces); a signature block is
# "By:", "Name:", "Title:", "Date:" lines or "IN WITNESS WHEREOF"; page furniture "Page 4 of 12".
_CONTENTS_LINE = re.compile(
    r"(?:\.{3,}|\s{2,}|\t)\s*\d{1,3}\s*$|^\s*(?:section|article|cl[aá]usula)?\s*[\dIVX.]+\s+[^\n]{3,60}\s\d{1,3}\s*$",
    re.I,
)
_SIGNATURE_LINE = re.compile(
    r"^\s*(?:by|name|title|date|its|signature|nome|cargo|data|assinatura|p/)\s*:|in witness whereof|em testemunho|e por estarem",
    re.I,
)
_FURNITURE = re.compile(r"^\s*(?:page|p[aá]gina|p\.)\s*\d+\s*(?:of|de|/)\s*\d+\s*$", re.I)


def is_boilerplate(text: str) -> bool:
    """Is the chunk mostly a table of contents, a signature block or page furniture (a "Page 4 of
    12" footer) — text that names clauses or parties without stating any?"""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return True
    contents = sum(1 for line in lines if _CONTENTS_LINE.search(line))
    signature = sum(1 for line in lines if _SIGNATURE_LINE.search(line))
    furniture = sum(1 for line in lines if _FURNITURE.search(line))
    return (
        contents >= max(4, 0.5 * len(lines))
        or signature >= max(3, 0.3 * len(lines))
        or furniture == len(lines)
    )


FEATURES = (
    "bias",
    "lexical",
    "lexical_all",
    "lexical_words",
    "semantic",
    "semantic_words",
    "has_words",
    "log_rank",
    "top_ratio",
    "short",
    "boilerplate",
)


@dataclass(frozen=True)
class Calibration:
    """A logistic model: relevance = the estimated chance that the result holds the answer."""

    weights: tuple[float, ...]
    scale: Scale = CALIBRATED_SCALE

    def __call__(self, evidence: Evidence) -> float:
        z = sum(w * x for w, x in zip(self.weights, evidence.features(), strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True)
class Rater:
    """Rates the hits of one search from the evidence each shows: the query's terms with their IDF
    in the case, each candidate's E1 cosines and, for a reproduced passage, its alignment."""

    terms: Sequence[str]  # the query's analyzer terms
    weights: Mapping[str, float]  # term -> IDF in the case
    analyzer: Analyzer
    cosines: Mapping[str, float]
    verbatim: Mapping[str, float]  # chunk -> alignment 0-100
    language: str = "en"
    asked: Sequence[str] = ()  # the question's own terms (role 1.0: not names, not the scene)
    words: Sequence[str] = ()  # the terms of the caller's keywords and likely wording
    word_cosines: Mapping[str, float] = field(default_factory=dict)  # E1 cosine of the likely wording
    model: Calibration | None = None  # None: the formula of `relevance`

    @property
    def scale(self) -> Scale:
        return self.model.scale if self.model is not None else FORMULA_SCALE

    def evidence(self, hit: SearchHit, rank: int, top: float) -> Evidence:
        chunk_terms = set(self.analyzer.terms(hit.text))
        return Evidence(
            lexical=lexical(self.asked, self.weights, chunk_terms) if self.asked else 0.0,
            lexical_all=lexical(self.terms, self.weights, chunk_terms) if self.terms else 0.0,
            lexical_words=lexical(self.words, self.weights, chunk_terms) if self.words else 0.0,
            semantic=semantic(self.cosines.get(hit.chunk_id), self.language),
            semantic_words=semantic(self.word_cosines.get(hit.chunk_id), self.language),
            has_words=bool(self.words),
            rank=rank,
            top_ratio=hit.score / top if top > 0 else 0.0,
            prose=sum(1 for w in hit.text.split() if len(w) >= 3 and w[0].isalpha()),
            boilerplate=is_boilerplate(hit.text),
            verbatim=self.verbatim.get(hit.chunk_id),
        )

    def no_good_match(self, rated: Sequence[SearchHit]) -> bool:
        """Does nothing among the rated first results clearly answer? The best one's relevance is
        under the scale's floor (also when none is on the query's topic: each is "poor")."""
        return bool(rated) and max(h.relevance or 0.0 for h in rated) < self.scale.no_good_match

    def rate(self, hits: list[SearchHit], first_rank: int = 1, top: float | None = None) -> list[SearchHit]:
        """`hits` (ranked `first_rank` on, the search's best score being `top`) with `relevance`,
        `match` and `evidence` filled in."""
        best = top if top is not None else max((h.score for h in hits), default=0.0)
        out = []
        for rank, h in enumerate(hits, start=first_rank):
            ev = self.evidence(h, rank, best)
            if ev.verbatim is not None:
                value = round(min(1.0, ev.verbatim / 100), 3)
            elif self.model is not None:
                value = round(self.model(ev), 3)
                if ev.plain < OFF_TOPIC:
                    value = min(value, OFF_TOPIC_CAP)
            else:
                value = relevance(ev.lexical_all, self.cosines.get(h.chunk_id), None, self.language)
            if ev.boilerplate and ev.verbatim is None:
                value = min(value, BOILERPLATE_CAP)
            label_ = self.scale.label(value, ev.verbatim is not None)
            out.append(replace(h, relevance=value, match=label_, evidence=ev))
        return out


def rater(
    terms: Sequence[str],
    doc_freqs: Mapping[str, int],
    total: int,
    analyzer: Analyzer,
    cosines: Mapping[str, float],
    verbatim: Mapping[str, float],
    language: str = "en",
    **more: Any,
) -> Rater:
    """A `Rater` whose term weights are each term's IDF among the case's `total` chunks (`more`:
    the Rater's other fields: asked, words, word_cosines, model)."""
    every = set(terms) | set(more.get("asked", ())) | set(more.get("words", ()))
    weights = {t: idf(doc_freqs.get(t, 0), total) for t in every}
    return Rater(terms, weights, analyzer, cosines, verbatim, language, **more)


# Fitted by bench/calibrate_labels.py on 2026-12-07 (dev set 1: 72 answerable questions and 18 the
# case does not answer, with and without the caller's words; top 10 results each), in FEATURES order.
CALIBRATED = Calibration((-3.3802, 2.284, -1.5409, 1.6704, 1.2685, 0.0, -0.311, -1.4023, 1.8937, 0.0, 0.0))
