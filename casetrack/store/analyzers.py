"""Per-language text analysis for the BM25 index: what is indexed, queried and highlighted.

Chosen by `bench/bm25_analyzers.py` (BM25 only, no embeddings; run it for the full table):

* English: lowercase, English stopwords, English stemmer, ascii fold. Stemming is worth +0.056
  nDCG@10 on ACORD and +0.085 hit@3 on CUAD questions inside their contract; stopwords removed
  *in the index* add +0.021 on that hit@3 and +0.006 chunk hit@10 over the whole corpus, with
  ACORD unchanged. Removing them from the query only gives the same in-contract gain but 0.009
  less chunk hit@10: part of the gain is document lengths counted without stopwords.
* Portuguese: no stopwords (they cost 0.002-0.008 nDCG@10 on JurisTCU, in the index or in the
  query). The Snowball stemmer expects accents ("contestações" -> "contest", but
  "contestacoes" -> "contestaco"): stemming before folding groups inflections, folding before
  stemming matches text typed without accents. Both tokens are indexed at each position
  ("dual") and queries use the stem -> fold one, so accented queries get the full stemmer and
  queries typed without accents still find accented text. The -ões plural is also merged into
  the -ão singular, which Snowball leaves apart in short words (questões / questão). JurisTCU
  nDCG@10: 0.711 with accents, 0.706 with the query's accents stripped; the previous stem ->
  fold analyzer had 0.709 and 0.656; fold -> stem alone (0.708 / 0.708) splits 238 of 3,662
  inflection classes of the pool (aplicação / aplicações ...).

Positions come from the tokenizer, before any filter: a removed stopword leaves a gap, which
phrase queries keep (see `CaseAnalyzer.positions`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import tantivy


@dataclass(frozen=True)
class Profile:
    """One language's analysis. `version` changes whenever indexed tokens would change."""

    version: str
    stemmer: str
    stopwords: bool
    dual: bool  # Portuguese: Python finishes the stems and adds the fold -> stem token


PROFILES = {
    "en": Profile("en-2:lower,stop,stem,fold", "english", stopwords=True, dual=False),
    "pt": Profile("pt-2:lower,stem,oes-ao,fold|lower,fold,stem", "portuguese", stopwords=False, dual=True),
}


def profile_for(language: str) -> Profile:
    """The case language's profile; other languages get English, as they always did."""
    return PROFILES.get(language, PROFILES["en"])


def _chain(profile: Profile, fold_first: bool, fold_last: bool) -> tantivy.TextAnalyzer:
    # remove_long: base64 blobs and long garbage runs from OCR would bloat the term dictionary.
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
    )
    if profile.stopwords:
        # Before fold and stem: the lists hold accented, unstemmed words.
        builder = builder.filter(tantivy.Filter.stopword(profile.stemmer))
    if fold_first:
        builder = builder.filter(tantivy.Filter.ascii_fold())
    builder = builder.filter(tantivy.Filter.stemmer(profile.stemmer))
    if fold_last:
        builder = builder.filter(tantivy.Filter.ascii_fold())
    return builder.build()


_FOLD = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw()).filter(tantivy.Filter.ascii_fold()).build()


@functools.lru_cache(maxsize=1 << 16)
def _finish_pt_stem(stem: str) -> str:
    """Merge the -ões plural into the -ão singular, then fold accents (tantivy's own folding).

    Snowball strips -ação/-ações only deep inside long words, so "questões" -> "questõ" but
    "questão" -> "questã": 66 of the 117 -ões plurals of JurisTCU missed their singular.
    """
    if stem.endswith("õ"):
        stem = stem[:-1] + "ã"
    if stem.isascii():
        return stem
    folded = _FOLD.analyze(stem)
    return folded[0] if folded else stem


class CaseAnalyzer:
    """The analysis of one case language, in the forms the index needs.

    `tokenizer` is what tantivy runs on plain text (English: the whole analysis); `index_form`
    gives pre-tokenized text when Python finishes the tokens (Portuguese); `positions`/`terms`
    build queries; `analyze` (every token the index could hold for a text) scores snippets.
    """

    def __init__(self, language: str) -> None:
        self.profile = profile_for(language)
        dual = self.profile.dual
        self.tokenizer = _chain(self.profile, fold_first=False, fold_last=not dual)
        self._alt = _chain(self.profile, fold_first=True, fold_last=False) if dual else None

    @property
    def version(self) -> str:
        return self.profile.version

    def _main(self, text: str) -> list[tantivy.Token]:
        tokens = self.tokenizer.pre_tokenize(text).tokens
        if self._alt is None:
            return tokens
        out = []
        for t in tokens:
            raw = t.text
            done = _finish_pt_stem(raw)
            # New Token objects only where the text changed: this runs on every indexed word.
            out.append(
                t if done == raw else tantivy.Token(done, t.position, t.char_offset_from, t.char_offset_to)
            )
        return out

    def positions(self, text: str) -> list[tuple[int, str]]:
        """Query tokens with their positions (gaps where stopwords were removed)."""
        return [(t.position, t.text) for t in self._main(text)]

    def terms(self, text: str) -> list[str]:
        """Distinct query tokens, in order of first appearance."""
        tokens = self.tokenizer.analyze(text)
        if self._alt is not None:
            tokens = [_finish_pt_stem(t) for t in tokens]
        return list(dict.fromkeys(tokens))

    def analyze(self, text: str) -> list[str]:
        """Every token the index holds for `text` (both forms in Portuguese).

        For snippets: a query typed without accents must still light up the accented sentence.
        """
        form = self.index_form(text)
        return self.tokenizer.analyze(text) if form is None else [t.text for t in form.tokens]

    def index_form(self, text: str) -> tantivy.PreTokenizedString | None:
        """Pre-tokenized text with both tokens per position, or None: let tantivy tokenize."""
        if self._alt is None:
            return None
        # Both chains share the tokenizer and drop the same tokens, so positions pair them up.
        alt = {t.position: t.text for t in self._alt.pre_tokenize(text).tokens}
        out: list[tantivy.Token] = []
        for a in self._main(text):
            out.append(a)
            b = alt.get(a.position, a.text)
            if b != a.text:
                out.append(tantivy.Token(b, a.position, a.char_offset_from, a.char_offset_to))
        return tantivy.PreTokenizedString(text, out)


def build_analyzer(language: str) -> CaseAnalyzer:
    """The analyzer of a case language (kept as a function: callers and tests use it)."""
    return CaseAnalyzer(language)
