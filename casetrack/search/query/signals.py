"""Exact-match signals in a query (stage 3 of search): what a lawyer types that must match as typed.

Query and chunk text are compared in one *folded* form: latin-1 bytes, lowercased, accents removed
(á→a, ç→c, º→o), every other character kept one for one, so an offset in the folded text is an
offset in the original. Each signal carries its kind, the text as typed and a key, its normalised
form ("art. 5º", "artigo 5" and "Art 5o" are all "art 5"; "$1,000,000" is "USD 1000000.00"; a CNJ
number is its 20 digits). `casetrack.search.ranking.boost` turns keys into matchers over chunk text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Any

from casetrack.legal.dates import MONTHS

Found = Iterator[tuple[int, int, "Kind", str]]  # start, end, kind, key
Keyed = Iterator[tuple[re.Match[bytes], str]]
Spot = tuple[int, "Signal"]  # where a signal starts, for query order


class Kind(StrEnum):
    QUOTE = "quote"  # "quoted phrase"
    CNJ = "cnj"  # Brazilian unified process number, 20 digits
    CASE = "case"  # 410 U.S. 113, Súmula 331, REsp 1.234.567, Acórdão 2.622/2013
    BATES = "bates"  # ABC0001234, SMITH-000123
    STATUTE = "statute"  # 42 U.S.C. § 1983, Lei 8.666/1993, CF/88, CPC
    SECTION = "section"  # Section 8.1, sec. 12(b), art. 5º, § 2º, parágrafo único, inciso IV, alínea b
    MONEY = "money"  # $1,000,000, $5 million, R$ 10.000,00
    DATE = "date"  # January 5, 2020, 5 de janeiro de 2020, 05/01/2020, 2020-01-05
    NAME = "name"  # party and proper names


def _base(ch: str) -> str:
    base = "".join(c for c in unicodedata.normalize("NFKD", ch.lower()) if not unicodedata.combining(c))
    return base if len(base) == 1 and base.isascii() else "o" if ch == "°" else ch.lower()  # "5°": "5º"


_FOLD = bytes(ord(_base(chr(i))) for i in range(256))  # one byte per latin-1 character


def fold(text: str) -> bytes:
    """Lowercase, accent-free latin-1 bytes of `text`, one byte per character (others become "?")."""
    return text.encode("latin-1", "replace").translate(_FOLD)


def folded_rx(pattern: str) -> re.Pattern[bytes]:
    """Compile a regex written for folded text."""
    return re.compile(pattern.encode("latin-1"))


def words(folded: bytes) -> list[str]:
    """The alphanumeric words of folded text."""
    return re.findall(r"[a-z0-9]+", folded.decode("latin-1"))


B, E = r"(?<![a-z0-9])", r"(?![a-z0-9])"  # word boundaries in folded text
NO = r"(?:(?:n\W?o|n|num(?:ero)?|number|nr)s?\W{0,3})?"  # "nº", "n.º", "No.", "número" before a number
ORDINALS = "primeir segund terceir quart quint sext setim oitav non decim".split()
_IDS = {  # identifier classes: number (8.1, 12(b), 1.015, 5º, 10b-5), roman, letter, "único", ordinal word
    "n": r"(?:\d{1,3}(?:\.\d{3})+(?!\d)|\d+)(?:[a-z](?![a-z]))?(?:\.\d+[a-z]?)*(?:-\d+)?"
    r"(?:\s?\([a-z0-9]{1,4}\))*",
    "r": r"(?=[ivxl])(?:xl|l?x{0,3})(?:ix|iv|v?i{0,3})(?![a-z0-9])",
    "l": r"[\"']?[a-z](?![a-z0-9])",
    "u": r"unico(?![a-z])",
    "w": rf"(?:{'|'.join(ORDINALS)})[oa](?![a-z])",
}
# (kind, canonical keyword, keyword regex, identifier classes, language or "*"). Acórdãos keep their year
# (TCU numbers them per year), laws do not. No canonical keyword: keep the one typed ("RE", "Exhibit").
ROWS = [
    (Kind.SECTION, "art", r"art(?:igo)?s?\.?|articles?", "nrw", "*"),
    (Kind.SECTION, "sec", r"sec(?:tion)?s?\.?|\xa7\xa7?", "n", "en"),
    (Kind.SECTION, "par", r"par(?:agrafo)?s?\.?|\xa7\xa7?", "nuw", "pt"),
    (Kind.SECTION, "para", r"paragraphs?|paras?\.|\xb6\xb6?", "n", "en"),
    (Kind.SECTION, "clause", r"clausulas?|clauses?", "nw", "*"),
    (Kind.SECTION, "rule", r"rules?", "n", "en"),
    (Kind.SECTION, "inciso", r"incisos?|inc\.(?=\s?[ivxl])", "r", "pt"),  # not "Acme Inc.; I-ON"
    (Kind.SECTION, "alinea", r"alineas?", "l", "*"),
    (Kind.SECTION, "", r"exhibit|schedule|annex|anexo|appendix", "nlr", "*"),
    (Kind.STATUTE, "lei", r"lei(?<!decreto.lei)(?:\s+federal|\s+ordinaria)?", "n", "*"),
    (Kind.STATUTE, "lc", r"lei\s+complementar|lc", "n", "pt"),  # abbreviations: not "MP3" in English
    (Kind.STATUTE, "decreto-lei", r"decreto\W?lei|dl", "n", "pt"),
    (Kind.STATUTE, "decreto", r"decreto(?!\W?lei)", "n", "*"),
    (Kind.STATUTE, "mp", r"medida\s+provisoria|mp", "n", "pt"),
    (Kind.STATUTE, "ec", r"emenda\s+constitucional|ec", "n", "pt"),
    (Kind.CASE, "sumula", r"sumula(?:\W+(?:vinculante|tcu|stj|stf|tst))?", "n", "*"),
    (Kind.CASE, "acordao", r"acordao", "n", "*"),
    (Kind.CASE, "", r"resp|aresp|re|are|hc|rhc|ms|rms|adi|adc|ado|adpf|rcl", "n", "*"),
]
_ROW_RX = [
    folded_rx(
        rf"{B}(?P<kw>{kw})\W{{0,3}}{NO}(?P<id>{'|'.join(_IDS[c] for c in ids)})"
        r"(?:\s?/\s?(?P<year>\d{2,4})(?!\d))?"
    )
    for _, _, kw, ids, _ in ROWS
]
CODES = {  # Brazilian codes, by abbreviation or name (Portuguese cases only: "cf." is English too)
    "cf": r"cf|crfb|constituicao(?:\s+da\s+republica|\s+federal)*",
    "cc": r"cc|codigo\s+civil",
    "cpc": r"cpc|codigo\s+de\s+processo\s+civil",
    "cpp": r"cpp|codigo\s+de\s+processo\s+penal",
    "cp": r"cp|codigo\s+penal",
    "ctn": r"ctn|codigo\s+tributario\s+nacional",
    "cdc": r"cdc|codigo\s+de\s+defesa\s+do\s+consumidor",
    "clt": r"clt|consolidacao\s+das\s+leis\s+do\s+trabalho",
}
CODE_RX = {k: folded_rx(rf"{B}(?:{v})(?:\W{{1,2}}(?:19|20)?\d\d(?!\d))?{E}") for k, v in CODES.items()}
_USC = folded_rx(
    r"(?<![a-z0-9])(\d{1,3})\s?(u\.?\s?s\.?\s?c|c\.?\s?f\.?\s?r)\.?(?:\s?a\.?)?\s?"
    r"(?:(?:\xa7\xa7?|sec(?:tion)?s?\.?|ss?)\s?)?"  # "s 270b": § lost in conversion
    r"(\d+[a-z]*(?:[.\-]\d+[a-z]*)*(?:\s?\([a-z0-9]{1,4}\))*)"
)
_CNJ = folded_rx(r"(?<!\d)\d{7}(-?)\d{2}(\.?)\d{4}\.?\d\.?\d{2}\.?\d{4}(?!\d)")
_BATES = re.compile(r"(?<![\w.])([A-Z]{2,10})([-_ ]?)(\d{4,10})(?!\w)")
_SCALE = {
    w: n
    for n, ws in ((3, "thousand k mil"), (6, "million mm m milhao milhoes"), (9, "billion bn bilhao bilhoes"))
    for w in ws.split()
}
_CUR = {
    "$": "USD",
    "us$": "USD",
    "usd": "USD",
    "dollars": "USD",
    "dolares": "USD",
    "r$": "BRL",
    "brl": "BRL",
    "reais": "BRL",
    "real": "BRL",
}
_SC = "|".join(sorted(_SCALE, key=len, reverse=True))
_MONEY = folded_rx(
    rf"(?<![a-z0-9$])(?:(r\$|us\$|\$|usd|brl)\s?(\d[\d.,]*\d|\d)(?:\s?({_SC}){E})?"
    rf"|(\d[\d.,]*\d|\d)(?:\s({_SC}))?(?:\s+de)?\s(dollars|dolares|reais|real){E})"
)
_MONTHS = MONTHS  # legal/dates.py: the one list of month names (EN, PT) and their abbreviations
_MON = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE = folded_rx(
    rf"{B}(?:(?P<m1>{_MON})\.?\s(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?,?\s(?P<y1>\d{{4}})"
    rf"|(?P<d2>\d{{1,2}})(?:st|nd|rd|th|o)?\s(?:day\sof\s|de\s)?(?P<m2>{_MON})\.?,?\s"
    r"(?:de\s|of\s)?(?P<y2>\d{4})|(?P<y3>\d{4})-(?P<m3>\d{1,2})-(?P<d3>\d{1,2})"
    r"|(?P<a>\d{1,2})(?P<s>[/.-])(?P<b>\d{1,2})(?P=s)(?P<y4>\d{4}|\d{2}))(?!\d)"
)
_CITE_HINT = re.compile(r"\d{1,4}\s+[A-Z]|§")  # "410 U.S.", "2020 WL", "Code § 1542": eyecite may help
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|«([^»]+)»')
VALUE_KINDS = (Kind.MONEY, Kind.DATE)


@dataclass(frozen=True)
class Signal:
    """One exact-match signal; `casetrack.search.ranking.boost.matches(signal, text)` looks for it in a chunk."""

    kind: Kind
    text: str
    key: str  # "art 5", "sec 8.1", "42 usc 1983", "410 u s 113", "USD 1000000.00", "2020-01-05", ...
    language: str = "en"  # "en" or "pt": numeric dates are day-first in Portuguese


@dataclass(frozen=True)
class QuerySignals:
    """The exact-match signals of one query, in query order, without duplicates."""

    query: str
    language: str
    signals: tuple[Signal, ...] = ()

    def __iter__(self) -> Iterator[Signal]:
        return iter(self.signals)

    def __len__(self) -> int:
        return len(self.signals)


def _ref_key(row: int, m: re.Match[bytes], lang: str) -> str:
    canon = ROWS[row][1]
    raw = m["id"].decode("latin-1").replace(" ", "").strip("\"'")
    ident = next((str(i) for i, w in enumerate(ORDINALS, 1) if re.fullmatch(w + "[oa]", raw)), raw)
    if num := re.match(r"(\d{1,3}(?:\.\d{3})+(?!\d)|\d+)(.*)", raw):  # "1.015" is 1015, "5º" 5 in Portuguese
        rest = num[2][1:] if lang == "pt" and re.match(r"[oa](?:\W|$)", num[2]) else num[2]
        ident = str(int(num[1].replace(".", ""))) + rest
    year = m["year"].decode() if canon == "acordao" and m["year"] else ""
    return f"{canon or m['kw'].decode()} {ident}" + (f"/{year}" if year else "")


def _value_key(kind: Kind, m: re.Match[bytes], lang: str) -> str | None:
    if kind == Kind.MONEY:
        cur, amount, scale = (m[1] or m[6]).decode(), (m[2] or m[4]).decode(), (m[3] or m[5] or b"").decode()
        dec = re.search(r"[.,](\d{1,2})$", amount)  # "10.000,00", "1,000.00": 1-2 final digits are cents
        whole = re.sub(r"\D", "", amount[: dec.start()] if dec else amount) or "0"
        return f"{_CUR[cur]} {Decimal(f'{whole}.{dec[1] if dec else 0}').scaleb(_SCALE.get(scale, 0)):.2f}"
    g = {k: v.decode() for k, v in m.groupdict().items() if v}
    if "a" in g:  # numeric dates: day first in Portuguese (and with dots), month first in English
        first, second = int(g["a"]), int(g["b"])
        day, month = (first, second) if lang == "pt" or g["s"] == "." else (second, first)
        year = int(g["y4"]) + (0 if len(g["y4"]) == 4 else 2000 if int(g["y4"]) < 50 else 1900)
    else:
        n = next(i for i in "123" if "y" + i in g)
        year, day, month = int(g["y" + n]), int(g["d" + n]), int(g["m3"]) if n == "3" else _MONTHS[g["m" + n]]
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def values(kind: Kind, folded: bytes, language: str, start: int = 0, end: int | None = None) -> Keyed:
    """Money amounts or dates in folded[start:end], with their keys; `language` is "en" or "pt"."""
    finder = _MONEY if kind == Kind.MONEY else _DATE
    for m in finder.finditer(folded, start, len(folded) if end is None else end):
        if key := _value_key(kind, m, language):
            yield m, key


def citation_finder() -> Callable[[str], list[Any]]:
    """eyecite's citation finder, imported on first use (~0.3 s; legal/us_citations.py)."""
    from casetrack.legal.us_citations import eyecite

    return eyecite()[0]


def _cnj_numbers(text: str, folded: bytes, lang: str) -> Found:
    for m in _CNJ.finditer(folded):
        d = re.sub(rb"\D", b"", m[0]).decode()
        if m[1] or m[2] or int(d[7:9]) == 98 - int(d[:7] + d[9:]) * 100 % 97:  # bare digits: check digits
            yield m.start(), m.end(), Kind.CNJ, d


def _us_code(text: str, folded: bytes, lang: str) -> Found:
    for m in _USC.finditer(folded):
        code, sec = re.sub(rb"\W", b"", m[2]).decode(), m[3].decode().replace(" ", "")
        yield m.start(), m.end(), Kind.STATUTE, f"{m[1].decode()} {code} {sec}"


def _us_citations(text: str, folded: bytes, lang: str) -> Found:
    for cite in citation_finder()(text) if lang == "en" and _CITE_HINT.search(text) else ():
        (start, end), g = cite.span(), cite.groups
        if g.get("volume") and g.get("page") and g.get("reporter"):
            yield start, end, Kind.CASE, " ".join([g["volume"], *words(fold(g["reporter"])), g["page"]])
        elif g.get("section"):  # state codes and the like ("Cal. Civ. Code § 1542")
            yield start, end, Kind.STATUTE, " ".join(words(folded[start:end]))


def _references(text: str, folded: bytes, lang: str) -> Found:
    for row, row_rx in enumerate(_ROW_RX):
        for m in row_rx.finditer(folded) if ROWS[row][4] in ("*", lang) else ():
            if ROWS[row][1] or ROWS[row][0] != Kind.CASE or text[m.start()].isupper():  # not "re 5"
                yield m.start(), m.end(), ROWS[row][0], _ref_key(row, m, lang)


def _codes(text: str, folded: bytes, lang: str) -> Found:
    for name, code_rx in CODE_RX.items() if lang == "pt" else ():
        for m in code_rx.finditer(folded):
            yield m.start(), m.end(), Kind.STATUTE, name


def _bates_numbers(text: str, folded: bytes, lang: str) -> Found:
    for bates in _BATES.finditer(text):  # zero-padded or long: "ABC0001234", "SMITH-000123", not "ISO 9001"
        if bates[3][0] == "0" or (len(bates[3]) >= 5 and bates[2] != " "):
            yield bates.start(), bates.end(), Kind.BATES, bates[1] + bates[3]


def _amounts_and_dates(text: str, folded: bytes, lang: str) -> Found:
    for kind in VALUE_KINDS:
        for m, key in values(kind, folded, lang):
            yield m.start(), m.end(), kind, key


# Every signal but quotes and names, the most specific finders first (the first to claim a span wins).
_FINDERS: tuple[Callable[[str, bytes, str], Found], ...] = (
    _cnj_numbers,
    _us_code,
    _us_citations,
    _references,
    _codes,
    _bates_numbers,
    _amounts_and_dates,
)


def _find(text: str, folded: bytes, lang: str) -> Found:
    """Every signal but quotes and names, as (start, end, kind, key), the most specific finders first."""
    for finder in _FINDERS:
        yield from finder(text, folded, lang)


_STOP = (
    frozenset(
        words(
            fold("""
    the a an this that these those what which who whom whose when where why how is are was were be been do
    does did can could should would may might must shall will has have had find show list give search get
    any all each every i we you he she it they my our your their in on at for to by with from under per and
    or not no yes if summarize summarise describe explain identify compare locate retrieve quote cite about
    between whether section article clause agreement contract court plaintiff defendant party parties
    company exhibit schedule amendment act code rule law state appellant appellee petitioner respondent
    licensee licensor buyer seller lessor lessee tenant landlord employer employee borrower lender customer
    supplier vendor purchaser affiliate term termination notice confidential o os as um uma qual quais
    quando onde como que quem porque por para com sem sobre entre na nos nas em ou se há existe lei súmula
    tribunal acórdão contrato cláusula processo recurso autor autora réu ré parte partes relator relatora
    decisão sentença petição voto ementa código constituição estado união
""")
        )
    )
    | _MONTHS.keys()
)
CONNECTORS = frozenset("da de do das dos e di del della van von der den la le du of and".split())
_TITLES = frozenset("mr mrs ms dr dra judge justice juiz juiza ministro ministra desembargador".split())
_SUFFIX = frozenset("inc incorporated llc lp llp ltd limited corp corporation co plc ltda s.a sa s/a".split())
_TOKEN = re.compile(r"[^\W\d_][\w'’&./-]*|&")


def _names(text: str) -> Found:
    """Capitalised runs of two or more name words ("João da Silva", "Acme Holdings"); one word is enough
    after a title ("Judge Smith"), with a company suffix ("Acme Corp.") or beside "v." ("Roe v. Wade")."""
    tokens: dict[int, re.Match[str]] = {}  # by position in `classes`
    classes, end = "", 0
    for m in _TOKEN.finditer(text):
        classes += "|" if text[end : m.start()].strip() else ""  # punctuation between two words ends a name
        end, word, tokens[len(classes)] = m.end(), fold(m[0].rstrip(".")).decode("latin-1"), m
        classes += (
            "t"
            if word in _TITLES
            else "v"
            if word in ("v", "vs", "versus", "x")
            else "s"
            if word in _SUFFIX
            else "c"
            if word in CONNECTORS or word == "&"
            else "C"
            if m[0][0].isupper() and word not in _STOP
            else "x"
        )
    for run in re.finditer(r"C(?:c*C|s)*", classes):
        a, b, names = run.start(), run.end(), run[0].count("C")  # "C" name word, "c" connector, "s" suffix
        first, last = tokens[a], tokens[a + run[0].rindex("C")]
        # A lone capital may just start a sentence: it counts only after a title or beside "v.".
        if names >= 2 or "s" in run[0] or classes[a - 1 : a] in ("t", "v") or classes[b : b + 1] == "v":
            start, end = first.start(), last.end()
            yield start, end, Kind.NAME, " ".join(words(fold(text[start:end])))


def _collect(text: str, found: Found, lang: str, taken: list[tuple[int, int]]) -> Iterator[Spot]:
    for start, end, kind, key in found:
        if not any(start < e and s < end for s, e in taken):  # the first (most specific) finder wins
            taken.append((start, end))
            yield start, Signal(kind, text[start:end].strip(), key, lang)


def _unique(found: Iterable[Spot]) -> tuple[Signal, ...]:
    first: dict[tuple[Kind, str], Signal] = {}
    for _, signal in sorted(found, key=lambda t: t[0]):
        first.setdefault((signal.kind, signal.key), signal)
    return tuple(first.values())


def extract_signals(query: str, language: str = "en") -> QuerySignals:
    """The exact-match signals of a query: quotes, citations, references, numbers, dates and names."""
    lang, taken = "pt" if language.lower().startswith("pt") else "en", list[tuple[int, int]]()
    found = list(_collect(query, _find(query, fold(query), lang), lang, taken))
    masked = "".join(" " if any(s <= i < e for s, e in taken) else c for i, c in enumerate(query))
    names = list(_collect(query, _names(masked), lang, []))
    quotes = [
        (m.start(), Signal(Kind.QUOTE, m[0], " ".join(words(fold(m[1] or m[2] or m[3]))), lang))
        for m in _QUOTED.finditer(query)  # not a quote that only wraps another signal: alínea “b”
        if not any(s <= m.start() + 1 and m.end() - 1 <= e for s, e in taken)
    ]
    return QuerySignals(query, lang, _unique([q for q in quotes if q[1].key] + found + names))


def find_signals(text: str, language: str = "en") -> tuple[Signal, ...]:
    """Signals present in a chunk's text (no quotes, no names: those only make sense in a query)."""
    lang = "pt" if language.lower().startswith("pt") else "en"
    return _unique(_collect(text, _find(text, fold(text), lang), lang, []))
