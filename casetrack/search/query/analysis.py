"""A query, analysed once: every ranking step and the pin-cite read what they need from one value.

What the caller wrote is read here, and only here, into its parts: the case analyzer's terms
(BM25, naming, relevance), the question without the scene set before it, each term's role for
the pin-cite (query/roles.py), the exact-match signals (query/signals.py: citations, numbers,
names, quotes), word stems for the heading and topic cues, and the folded text a pasted passage
is aligned with. The costly parts (signals: eyecite; the folded text) are worked out on first
use and kept.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Protocol

from casetrack.quote.fold import Folded
from casetrack.search.query.roles import QueryTerms, asked_text, term_roles
from casetrack.search.query.signals import QuerySignals, extract_signals, fold, words

# Words that carry no topic (question words, function words), English and Portuguese, folded.
FUNCTION_WORDS = frozenset(
    words(
        fold(
            "what which when where does with from that this about under have there their whether shall "
            "would should could into upon quais qual quando onde como sobre para entre pelo pela pelos pelas "
            "isso esta este essa esse seja sido qualquer"
        )
    )
)
# Three-letter words that are no topic either ("law", "tax" and "ato" are).
SHORT_FUNCTION_WORDS = frozenset(
    "the and for any all its nor but are was has had not das dos por com que uma aos nas nos sem ser".split()
)
# A keyword query has at most this many content words (and few words in all): "governing law".
KEYWORD_TERMS = 4
_NOT_SPACE = re.compile(r"\S+")


class Analyzer(Protocol):
    """The case's keyword-index analyzer (store/analyzers.py)."""

    def terms(self, text: str) -> list[str]: ...

    def analyze(self, text: str) -> list[str]: ...


@dataclass(frozen=True)
class Query:
    """One search's query as analysed for one case (its analyzer and language)."""

    text: str  # as the caller wrote it
    language: str  # the case's language ("en", "pt", "pt-BR" ...)
    asked: str  # the question alone, without a scene set before it ("Consider X; what ...?")
    terms: tuple[str, ...]  # the analyzer's distinct terms of the whole text
    roles: QueryTerms  # each term's role for the pin-cite
    # The caller's words for the answer (issue 27): alternative searches in the documents' own
    # terms, and a guess at how a document words the answer. Evidence of the answer's words, for
    # recall and ranking; the question alone names documents, is pinned, matched verbatim and rated.
    keywords: tuple[str, ...] = ()
    likely_wording: str | None = None
    word_terms: tuple[str, ...] = ()  # the analyzer's terms of the keywords and likely wording

    @property
    def has_words(self) -> bool:
        """Did the caller say how the answer is probably worded?"""
        return bool(self.keywords or self.likely_wording)

    def pin_roles(self, analyzer: Analyzer, weight: float) -> QueryTerms:
        """The terms the pin-cite weighs: the question's by role, and the caller's words' at `weight`
        (never as the question's own: only the question's terms make a sentence "hold" it)."""
        if not self.has_words or weight <= 0:
            return self.roles
        extra = [t for t in analyzer.analyze(" ".join([*self.keywords, self.likely_wording or ""]))]
        extra = [t for t in dict.fromkeys(extra) if t not in self.roles.role and t not in self.roles.names]
        role = {**self.roles.role, **{t: min(weight, 0.99) for t in extra}}
        return QueryTerms(self.roles.content + tuple(extra), role, self.roles.names)

    @property
    def asked_terms(self) -> tuple[str, ...]:
        """The question's own terms: not its names, not the scene set before it, not filler."""
        return tuple(t for t in self.roles.content if self.roles.role.get(t) == 1.0)

    @property
    def expanded(self) -> str:
        """The question, the keywords and the likely wording as one text (the lexical evidence)."""
        return " ".join([self.text, *self.keywords, *([self.likely_wording] if self.likely_wording else [])])

    @property
    def sets_scene(self) -> bool:
        """Does a scene come before the question ("For the lease between A and B, what ...?")?"""
        return self.asked != self.text

    @functools.cached_property
    def signals(self) -> QuerySignals:
        """The exact-match signals (boost): quotes, citations, references, amounts, dates, names."""
        return extract_signals(self.text, self.language)

    @functools.cached_property
    def stems(self) -> frozenset[str]:
        """Content words as five-letter folded prefixes, a stand-in for a stemmer ("terminate" ~
        "termination", "rescindir" ~ "rescisão"): what the heading and topic cues compare."""
        return stems_of(self.text)

    @functools.cached_property
    def keyword_stems(self) -> frozenset[str]:
        """The stems of a keyword query (`governing law`, `dano moral`: at most KEYWORD_TERMS
        content words); empty for a question."""
        n = len(self.stems)
        short = len(_NOT_SPACE.findall(self.text)) <= KEYWORD_TERMS + 3
        return self.stems if 0 < n <= KEYWORD_TERMS and short else frozenset()

    @functools.cached_property
    def folded(self) -> Folded:
        """The text folded for alignment with a passage (quote/fold.py): letters and digits only."""
        from casetrack.quote.fold import fold as fold_passage

        return fold_passage(self.text)

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        """The text's words, lowercase and without accents (quote/fold.py `folded_words`)."""
        from casetrack.quote.fold import folded_words

        return tuple(folded_words(self.text))


def stems_of(text: str) -> frozenset[str]:
    """Content words of `text` as five-letter folded prefixes (three-letter words count: "law")."""
    return frozenset(
        w[:5]
        for w in words(fold(text))
        if len(w) >= 3 and w not in FUNCTION_WORDS and w not in SHORT_FUNCTION_WORDS
    )


def analyse(
    text: str,
    analyzer: Analyzer,
    language: str,
    keywords: tuple[str, ...] = (),
    likely_wording: str | None = None,
) -> Query:
    """`text` (with the caller's `keywords` and `likely_wording`) read for a case whose keyword
    index uses `analyzer` and whose language is `language`."""
    return Query(
        text=text,
        language=language,
        asked=asked_text(text),
        terms=tuple(analyzer.terms(text)),
        roles=term_roles(text, analyzer),
        keywords=keywords,
        likely_wording=likely_wording,
        word_terms=tuple(analyzer.terms(" ".join([*keywords, likely_wording or ""]))),
    )
