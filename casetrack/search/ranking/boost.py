"""Stage 3 of search, the ranking step "boost": chunks that hold the query's exact signals rise.

Scale. `boost_scores` gives each candidate a value in [0, 1]; the pipeline adds
`boost_weight * boost / (rrf_k + 1)` to its RRF score. 1 / (rrf_k + 1) is what a first place in
one ranked list is worth, so a boost of 1 (at weight 1) counts as one more list voting the chunk
first, and a chunk ranked ~30th by BM25 and dense that carries the query's CNJ number overtakes
one ranked first by both without it. The scale does not depend on how many candidates there are.

Weights (per signal kind, below). The boost is Σ weight × degree / max(Σ weight, SATURATION),
degree being 1 for a full match, PARTIAL × the share of parts for a partial one (some words of a
name, a statute's section without its title), 0 otherwise. Identifiers that name one thing (a
quoted phrase, a CNJ number, a case citation, a Bates number) weigh 1: one of them alone
saturates the boost. References that recur across documents (every contract has a Section 8.1,
every statute an art. 5º), amounts, dates and names weigh less, so a query with only a name can
lift a chunk by at most 0.5, while a chunk that matches every signal of a query gets that query's
maximum, which is 1 whenever its signals weigh 1 or more together.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from casetrack.search.query.analysis import stems_of
from casetrack.search.query.signals import (
    CODES,
    CONNECTORS,
    NO,
    ORDINALS,
    ROWS,
    VALUE_KINDS,
    E,
    Kind,
    QuerySignals,
    Signal,
    fold,
    folded_rx,
    values,
)

WEIGHTS: dict[Kind, float] = {
    Kind.QUOTE: 1.0,
    Kind.CNJ: 1.0,
    Kind.CASE: 1.0,
    Kind.BATES: 1.0,
    Kind.STATUTE: 0.8,
    Kind.SECTION: 0.6,
    Kind.MONEY: 0.6,
    Kind.DATE: 0.5,
    Kind.NAME: 0.5,
}
SATURATION = 1.0  # total signal weight from which a chunk matching everything gets the full boost of 1
PARTIAL = 0.5  # credit for partial evidence
HEADING_WEIGHT = 0.25  # suggested weight of `heading_cue` when the pipeline adds it to the exact boost

# Keyword regexes per (canonical keyword, language): "art" also finds "artigo", "sec" also "§".
KEYWORDS = {
    (c, lang): "|".join(k for _, c2, k, _, lg in ROWS if c2 == c and lg in ("*", lang))
    for _, c, _, _, lg in ROWS
    if c
    for lang in ("en", "pt")
    if lg in ("*", lang)
}
ORDINAL_KEYWORDS = frozenset(c for _, c, _, ids, _ in ROWS if "w" in ids)  # "cláusula quinta", "§ segundo"
_GAP = r"[^a-z0-9]*"  # between the letters of an abbreviation: "U.S." ~ "U. S." ~ "US"
_HEADED = ("sec", "clause", "art")  # references that a contract also writes as a bare heading: "8.1 Term."
_YEAR = r"(?:\W{1,2}(?:19|20)?\d\d(?!\d))?"  # "CF/88", "CPC/2015"


@dataclass(frozen=True)
class Matcher:
    """Regexes over folded chunk text derived from one signal's key.

    Every regex starts with a literal and checks the word boundary *after* it ("roe(?<![a-z0-9]roe)"):
    the regex engine then skips to occurrences of the literal instead of trying every position, which
    is 10-15 times faster on a 2,500-character chunk. Alternatives are separate regexes for the same reason.
    """

    full: tuple[re.Pattern[bytes], ...]
    partial: tuple[tuple[re.Pattern[bytes], ...], ...] = ()  # alternatives per part; degree counts parts


def _alternatives(src: str) -> list[str]:
    """Split a regex source at its top-level "|"."""
    parts, depth, begin, i = [], 0, 0, 0
    while i < len(src):
        if src[i] == "\\":
            i += 1
        elif src[i] in "()":
            depth += 1 if src[i] == "(" else -1
        elif src[i] == "|" and depth == 0:
            parts.append(src[begin:i])
            begin = i + 1
        i += 1
    return [*parts, src[begin:]]


def _lead(src: str) -> str:
    """A regex source that starts with a literal word, bounded on the left after the literal."""
    units = re.match(r"(?:[a-z0-9](?![?*{])|\\x[0-9a-f]{2}(?![?*{]))+", src)  # "incisos?": "inciso"
    assert units is not None, src
    return units[0] + f"(?<![a-z0-9]{units[0]})" + src[units.end() :]


def _phrase(tokens: Sequence[str], sep: str = r"[^a-z0-9]+") -> re.Pattern[bytes]:
    return folded_rx(_lead(sep.join(re.escape(t) for t in tokens)) + E)


def _id_rx(ident: str, lang: str, ordinal_words: bool) -> str:
    """Regex source for a normalised identifier: "1015" also as "1.015", "5" also as "5º" and "quinto"."""
    m = re.match(r"(\d+)(.*)", ident)
    if not m:
        return re.escape(ident) + E
    head, groups = m[1], ""
    while len(head) > 3:
        head, groups = head[:-3], r"[.,]?" + head[-3:] + groups
    rx = head + groups + (r"(?:\s?[oa](?![a-z]))?" if lang == "pt" else "")
    if ordinal_words and 0 < int(m[1]) <= len(ORDINALS):
        rx = f"(?:{rx}|{ORDINALS[int(m[1]) - 1]}[oa])"
    rest = "".join({"(": r"\s?\(\s?", ")": r"\s?\)"}.get(c, re.escape(c)) for c in m[2])
    return rx + rest + r"(?![0-9]|[.,][0-9])"  # "art. 5" is not "art. 50" nor "art. 5.1"


def _reference(key: str, lang: str) -> list[str]:
    keyword, _, rest = key.partition(" ")
    ident, _, year = rest.partition("/")
    after = r"\W{0,3}" + NO + _id_rx(ident, lang, keyword in ORDINAL_KEYWORDS)
    after += rf"\s?/\s?(?:19|20)?{year[-2:]}(?!\d)" if year else ""
    sources = [_lead(alt) + after for alt in _alternatives(KEYWORDS.get((keyword, lang), re.escape(keyword)))]
    if keyword in _HEADED and "." in ident:  # the section's own heading, at the start of a line
        sources += [rf"\n[ \t]*{_id_rx(ident, lang, False)}", rf"^[ \t]*{_id_rx(ident, lang, False)}"]
    return sources


def _words(key: str, language: str) -> Matcher:
    """Quotes, other statutes, anything else: its words in order."""
    tokens = key.split()
    return Matcher((_phrase(tokens),) if tokens else ())


def _name(key: str, language: str) -> Matcher:
    tokens = key.split()
    names = sorted(set(tokens) - CONNECTORS)
    return Matcher((_phrase(tokens),), tuple((_phrase([n]),) for n in names) if len(names) > 1 else ())


def _cnj(key: str, language: str) -> Matcher:
    rest = r"\W?".join(["", key[7:9], key[9:13], key[13], key[14:16], key[16:]]) + r"(?!\d)"
    short = key[:7].lstrip("0") or "0"  # some systems drop the sequence number's leading zeros
    return Matcher(tuple(folded_rx(f"{n}(?<![0-9]{n}){rest}") for n in {key[:7], short}))


def _bates(key: str, language: str) -> Matcher:
    prefix, digits = re.fullmatch(r"([A-Z]+)(\d+)", key).groups()  # type: ignore[union-attr]
    return Matcher((folded_rx(_lead(prefix.lower()) + rf"[\s_-]?0*{digits.lstrip('0') or '0'}(?!\d)"),))


def _reference_matcher(key: str, language: str) -> Matcher:
    """Sections, articles, clauses, súmulas, acórdãos: keyword + identifier (+ year)."""
    return Matcher(tuple(folded_rx(src) for src in _reference(key, language)))


def _case(key: str, language: str) -> Matcher:
    tokens = key.split()
    if not key[0].isdigit():
        return _reference_matcher(key, language)
    reporter = _GAP.join(re.escape(t) for t in tokens[1:-1])  # "410 u s 113": volume, reporter, page
    return Matcher((folded_rx(_lead(tokens[0]) + rf"\s?{reporter}{_GAP}{tokens[-1]}(?!\d)"),))


def _statute(key: str, language: str) -> Matcher:
    tokens = key.split()
    if re.fullmatch(r"\d+ (?:usc|cfr) \S+", key):
        section = _id_rx(tokens[2], "en", False)
        sign = r"(?:(?:\xa7\xa7?|sec(?:tion)?s?\.?|ss?)\s?)?"
        full = _lead(tokens[0]) + rf"\s?{_GAP.join(tokens[1])}\W*(?:a\W*)?{sign}{section}"
        sign_alone = (r"\xa7\xa7?\s?", _lead(r"sec(?:tion)?\.?") + r"\s?")  # "a § 1983 claim": a part
        return Matcher((folded_rx(full),), (tuple(folded_rx(s + section) for s in sign_alone),))
    if key in CODES:
        return Matcher(tuple(folded_rx(_lead(alt) + _YEAR + E) for alt in _alternatives(CODES[key])))
    if (tokens[0], language) in KEYWORDS:
        return _reference_matcher(key, language)
    return _words(key, language)


_MATCHERS: dict[Kind, Callable[[str, str], Matcher]] = {
    Kind.NAME: _name,
    Kind.CNJ: _cnj,
    Kind.BATES: _bates,
    Kind.CASE: _case,
    Kind.STATUTE: _statute,
    Kind.SECTION: _reference_matcher,
}


@functools.lru_cache(maxsize=2048)
def matcher(kind: Kind, key: str, language: str) -> Matcher:
    """The regexes that find a signal in folded text (cached: the same signals recur across queries)."""
    return _MATCHERS.get(kind, _words)(key, language)


_NUMBER_OR_WORD = frozenset(b"0123456789.,abcdefghijklmnopqrstuvwxyz")
Cue = tuple[bytes, int, int]  # literal, bytes to look at before it, bytes after it


def _windows(folded: bytes, cues: Sequence[Cue]) -> Iterator[tuple[int, int]]:
    """Spans from `before` bytes ahead of each cue to `after` bytes past it, not ending inside a word;
    a cue of digits must not go on with a digit ("/20" is a year in "05/01/20", not in "/2017")."""
    for cue, before, after in cues:
        i = folded.find(cue)
        while i >= 0:
            end = i + len(cue)
            if not (cue[-1:].isdigit() and folded[end : end + 1].isdigit()):
                end = min(len(folded), end + after)
                while end < len(folded) and folded[end] in _NUMBER_OR_WORD:
                    end += 1
                yield max(0, i - before), end
            i = folded.find(cue, i + 1)


# Cues per currency: finding a few literals is cheap; running the money finder over whole chunks is not.
_MONEY_CUES: dict[str, list[Cue]] = {
    "USD": [(b"$", 4, 24), (b"usd", 0, 24), (b"dollar", 32, 0), (b"dolar", 32, 0)],
    "BRL": [(b"$", 4, 24), (b"brl", 0, 24), (b"rea", 32, 2)],  # "reais", "real"
}


def _value_degree(signal: Signal, folded: bytes) -> float:
    """Money and dates match by value, looked for only around their cues (a currency, the year)."""
    if signal.kind == Kind.DATE:
        year = signal.key[:4].encode()
        cues = [(year, 28, 6), (b"/" + year[2:], 6, 0), (b"." + year[2:], 6, 0)]  # "05/01/20" too
    else:
        cues = _MONEY_CUES[signal.key[:3]]
    for start, end in _windows(folded, cues):
        if any(key == signal.key for _, key in values(signal.kind, folded, signal.language, start, end)):
            return 1.0
    return 0.0


def degree(signal: Signal, folded: bytes) -> float:
    """How fully folded text holds a signal: 1.0, PARTIAL × the share of its parts, or 0.0."""
    if signal.kind in VALUE_KINDS:
        return _value_degree(signal, folded)
    found = matcher(signal.kind, signal.key, signal.language)
    if any(p.search(folded) for p in found.full):
        return 1.0
    if found.partial:
        hits = sum(1 for part in found.partial if any(p.search(folded) for p in part))
        return PARTIAL * hits / len(found.partial)
    return 0.0


def matches(signal: Signal, text: str) -> bool:
    """Whether a chunk's text holds the signal in full."""
    return degree(signal, fold(text)) >= 1.0


COMMON_MIN_CANDIDATES = 20  # below this, how many candidates hold a signal says little
RARE_SHARE = 0.05  # a signal held by at most this share of the candidates keeps its full weight


def rarity(share: float) -> float:
    """Weight multiplier for a signal held in full by `share` of the candidates: 1 up to RARE_SHARE,
    then falling like an IDF to 0 when every candidate holds it (0.5 at ~22%, 0.23 at 50%)."""
    if share <= RARE_SHARE:
        return 1.0
    return max(0.0, math.log(1.0 / share) / math.log(1.0 / RARE_SHARE))


# Signals that say which document is meant rather than which passage: a party's name is on the
# cover page and the signature block, not in the clause the question is about.
DOCUMENT_KINDS = frozenset({Kind.NAME})


def boost_scores(
    signals: QuerySignals,
    candidates: Sequence[tuple[str, str]],
    heading_weight: float = 0.0,
    discount_common: bool = False,
    document_of: Callable[[str], str] | None = None,
    heading_stems: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """Exact-match boost in [0, 1] per (chunk_id, text) candidate; all zeros for a query without signals.

    With `heading_weight` > 0 (HEADING_WEIGHT is the suggested value), a chunk whose heading holds
    the query's words (`heading_stems`: query/analysis.py `Query.stems`) also gets
    `heading_weight × heading_cue`, the sum capped at 1.
    With `discount_common`, a signal that most candidates hold (a contract's own title or its
    parties' names in a question about one clause, a quoted term every clause uses) does not
    tell them apart: its weight shrinks by `rarity` of its share among the candidates.
    With `document_of` (chunk_id -> document), a DOCUMENT_KINDS signal counts for every candidate
    of a document that holds it anywhere: names pick the document, the other lists and signals
    pick the passage inside it (measured on our lawyer questions, bench/RESULTS.md).
    """
    total, wanted = sum(WEIGHTS[s.kind] for s in signals), heading_stems
    folded = [(chunk_id, text, fold(text)) for chunk_id, text in candidates]
    degrees = [[degree(s, f) for s in signals] for _, _, f in folded]
    weights = [WEIGHTS[s.kind] for s in signals]
    if discount_common and len(folded) >= COMMON_MIN_CANDIDATES:
        for j in range(len(weights)):
            share = sum(1 for row in degrees if row[j] >= 1.0) / len(folded)
            weights[j] *= rarity(share)
    if document_of is not None:
        spread = [j for j, sig in enumerate(signals) if sig.kind in DOCUMENT_KINDS]
        docs = [document_of(chunk_id) for chunk_id, _, _ in folded]
        for j in spread:
            best: dict[str, float] = {}
            for doc, row in zip(docs, degrees, strict=True):
                best[doc] = max(best.get(doc, 0.0), row[j])
            for doc, row in zip(docs, degrees, strict=True):
                row[j] = best[doc]
    scores: dict[str, float] = {}
    for (chunk_id, text, _), row in zip(folded, degrees, strict=True):
        exact = sum(w * d for w, d in zip(weights, row, strict=True)) / max(total, SATURATION)
        cue = heading_weight * _heading_share(text, wanted) if heading_weight else 0.0
        scores[chunk_id] = min(1.0, exact + cue)
    return scores


_FIRST_LINE = re.compile(r"\s*([^\n]{0,300})")  # without copying a whole chunk to split it
_NUMBERED = re.compile(
    r"\s*(?:\d+(?:\.\d+)*\.?\s|(?:section|article|cl[aá]usula|cap[ií]tulo|t[ií]tulo|"
    r"se[cç][aã]o|schedule|exhibit|anexo)\b)",
    re.IGNORECASE,
)


def heading_cue(text: str, query: str) -> float:
    """Share of the query's content words in the chunk's heading; 0.0 if its first line is no heading.

    A heading is a first line of at most 100 characters in capitals ("ACÓRDÃO", "CLÁUSULA QUINTA -
    DA RESCISÃO") or in title case without closing punctuation ("Governing Law"); a numbered one
    ends at its first full stop ("8.1 Termination. Either party may..."). Document-type words in a
    query ("acórdão", "deposition") find such headings too.
    """
    return _heading_share(text, stems_of(query))


def _heading_share(text: str, wanted: frozenset[str]) -> float:
    first = _FIRST_LINE.match(text)
    line = first[1].strip() if first else ""
    if _NUMBERED.match(line):
        line = re.split(r"(?<=\w\w)[.:]\s", line, maxsplit=1)[0]
    letters = [c for c in line if c.isalpha()]
    long_words = [w for w in line.split() if len(w) > 3]
    titled = sum(w[0].isupper() for w in long_words) >= 0.6 * len(long_words) and line[-1:] not in ".;,:"
    if not wanted or not letters or len(line) > 100 or not (all(c.isupper() for c in letters) or titled):
        return 0.0
    return len(wanted & stems_of(line)) / len(wanted)
