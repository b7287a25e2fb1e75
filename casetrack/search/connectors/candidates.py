"""Stage 1 of a connectors search: the passages that could match, from the case's tantivy index.

The index holds stems (English: stemmed, stopwords dropped; Portuguese: two stems per word, with
and without accents), so a word is looked up by the stems the analyzer gives its forms, and a root
(`terminat!`) by every indexed term starting with its letters plus the stems of its letters with
each usual ending, because a stemmer may cut into the letters typed ("terminat" + "ion" is
indexed as "termin"). A word the index cannot hold (an English stopword, a word of 40+
letters) constrains nothing. Connectors become AND of both sides (proximity and sentence are
checked on the text), OR stays OR, NOT constrains nothing (a superset is all this stage owes).
Every candidate is then verified on its text (match.py).
"""

from __future__ import annotations

import functools
import re

import tantivy

from casetrack.search.connectors.expr import And, Near, Node, Not, Or, Phrase, Word
from casetrack.store.analyzers import CaseAnalyzer

# Word endings (English and Portuguese); every tail of each is tried after a root's letters.
ENDINGS = """
ability abilities ibility ibilities ization izations isation isations ational ationally ations
ation ically ically ionally iveness ivenesses ousness fulness lessness ements ements ments ment
encies ancies ences ances ency ancy ings ingly edly ers ors ists isms ables ibles ately atives
ative ities ity izes ized izer izers izing ises ised ising ieth ies ied ier iest ily ful fully
ally als ously ous ents ants ices ics ship ships ness less lessly ward wards like
amentos amento imentos imento mente amente idades idade adoras adores adora ador idoras idores
ações ação ições ição ucões ução ências ência âncias ância ários árias ário ária ismos ismo
istas ista áveis ável íveis ível ivas ivos iva ivo osas osos osa oso ezas eza ados adas idos
idas ando endo indo aram eram iram ariam eriam iriam assem essem issem ará erá irá aria eria
iria arem erem irem ões ãos ães ão ã ais eis óis uis abilidades ibilidades avelmente ivelmente
"""


@functools.lru_cache(maxsize=1)
def tails() -> tuple[str, ...]:
    """Every tail of every ending ("ation" gives ation, tion, ion, on, n), shortest first."""
    out = {""}
    for ending in ENDINGS.split():
        out.update(ending[i:] for i in range(len(ending)))
    return tuple(sorted(out, key=lambda t: (len(t), t)))


def word_terms(word: Word, analyzer: CaseAnalyzer) -> tuple[list[str], str | None]:
    """(exact index terms, a prefix regex or None) for `word`; ([], None): it constrains nothing."""
    if len(word.text) >= 40:
        return [], None
    if word.literal:
        forms = [word.text, word.text + "s", word.text + "es"]
        terms = list(dict.fromkeys(t for f in forms for t in analyzer.analyze(f)))
        return terms, None
    stem = word.stem
    terms = list(dict.fromkeys(t for tail in tails() for t in analyzer.analyze(stem + tail)))
    return terms, re.escape(stem) + ".*"


class CandidateQuery:
    """Builds the tantivy query of an expression for one case's index."""

    def __init__(self, schema: tantivy.Schema, analyzer: CaseAnalyzer) -> None:
        self.schema, self.analyzer = schema, analyzer

    def of(self, node: Node) -> tantivy.Query | None:
        """The query every matching passage satisfies; None: it constrains nothing."""
        if isinstance(node, Word):
            return self._word(node)
        if isinstance(node, Phrase):
            return self._in_a_row(node.words) or self._all([self._word(w) for w in node.words])
        if isinstance(node, Or):
            return self._any([self.of(p) for p in node.parts])
        if isinstance(node, And):
            return self._all([self.of(p) for p in node.parts])
        if isinstance(node, Not):
            return self.of(node.keep)
        near = self._near(node) if isinstance(node, Near) else None
        return near or self._all([self.of(node.left), self.of(node.right)])

    def _regex(self, word: Word) -> str | None:
        """One regular expression for every index term of `word` (None: a word the index lacks)."""
        terms, prefix = word_terms(word, self.analyzer)
        alternatives = [re.escape(t) for t in terms] + ([prefix] if prefix else [])
        return "|".join(alternatives) if alternatives else None

    def _in_a_row(self, words: tuple[Word, ...]) -> tantivy.Query | None:
        """A phrase by positions (the index keeps each word's position, a dropped stopword's too),
        when the index holds every one of its words."""
        regexes = [self._regex(w) for w in words]
        if any(r is None for r in regexes):
            return None
        row: list[str | tuple[int, str]] = [r for r in regexes if r]
        return tantivy.Query.regex_phrase_query(self.schema, "text", row, 0)

    def _near(self, node: Near) -> tantivy.Query | None:
        """Two words within n positions, by the index's positions: tantivy's slop k lets the second
        follow the first by up to k + 1 positions, so w/n asks for both orders with slop n - 1."""
        if not (isinstance(node.left, Word) and isinstance(node.right, Word)):
            return None
        left, right = self._regex(node.left), self._regex(node.right)
        if left is None or right is None:
            return None
        orders: list[list[str | tuple[int, str]]] = [[left, right]]
        if not node.ordered:
            orders.append([right, left])
        queries = [tantivy.Query.regex_phrase_query(self.schema, "text", o, node.n - 1) for o in orders]
        return queries[0] if len(queries) == 1 else self._any(list(queries))

    def _any(self, parts: list[tantivy.Query | None]) -> tantivy.Query | None:
        if any(p is None for p in parts):
            return None
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, p) for p in parts if p is not None])

    def _all(self, parts: list[tantivy.Query | None]) -> tantivy.Query | None:
        kept = [p for p in parts if p is not None]
        if not kept:
            return None
        if len(kept) == 1:
            return kept[0]
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, p) for p in kept])

    def _word(self, word: Word) -> tantivy.Query | None:
        terms, prefix = word_terms(word, self.analyzer)
        if not terms and prefix is None:
            return None
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        if terms:
            clauses.append((tantivy.Occur.Should, tantivy.Query.term_set_query(self.schema, "text", terms)))
        if prefix is not None:
            clauses.append((tantivy.Occur.Should, tantivy.Query.regex_query(self.schema, "text", prefix)))
        return clauses[0][1] if len(clauses) == 1 else tantivy.Query.boolean_query(clauses)
