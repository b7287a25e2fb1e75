"""A quote against the text it claims to reproduce, word by word, with what each change means.

Both sides are cut into words (numbers such as "30", "1.5", "1.000,00" and "2º" are one word;
"§" is a word) and each word is compared in a normalised form: lowercase, without accents or
apostrophes; numbers keep their separators, since "1.5" is not "15". Words the text splits at a
line-end hyphen ("Okla-\\nhoma") or the quote splits or joins differently ("non-compete" /
"noncompete") count as equal when their letters are. What is left is listed as differences, each
with a kind, the first that applies of:

- ``number``: a number changed, appeared or went away (digits, number words: "thirty", "trinta");
- ``negation``: a negation appeared or went away ("not", "never", "não", "nem", "sem"...);
- ``modal``: a modal verb changed ("shall" / "may" / "must", "deverá" / "poderá"...);
- ``spelling``: one word for one, alike letter by letter or as OCR reads them ("Lcssee", "rn"/"m");
- ``name``: a capitalised word inside a sentence (a party, a place, a title);
- ``other``.

The words are paired by a fitting alignment (all of the quote against a stretch of the text:
text words around it are context), with words compared in their OCR forms so a misread word
still pairs; difflib's matcher stands in for very long quotes. Words the text has and the
quote leaves out where it shows an ellipsis ("shall ... pay", "…", "[...]") are not a
difference. The first three kinds change what a legal text means (``MEANING_KINDS``). Word
lists are English and Portuguese; "no" is a negation only in English text ("no prazo" is "in
the period").
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

MEANING_KINDS = ("number", "negation", "modal")
KINDS = ("number", "negation", "modal", "spelling", "name", "other")
SPELLING_FLOOR = 0.75  # Indel similarity of two words that are one word misspelt or misread

_WORD = re.compile(r"\d+(?:[.,/]\d+)+[^\W_]*|[^\W_]+(?:['’][^\W_]+)*|§")
_ROMAN = re.compile(r"^[IVXLCDM]{2,7}$")
_ELLIPSIS = re.compile(r"\.\s*\.\s*\.|…")
_LINE_END_HYPHEN = re.compile(r"^-[ \t]*\n[ \t]*$")  # "Okla-\nhoma" (not "-9-\n\nIN", not a paragraph break)

_NEGATIONS_EN = frozenset(
    "not no never nor neither none nothing nobody nowhere without cannot cant dont doesnt didnt isnt arent wasnt "
    "werent wont shant shouldnt wouldnt couldnt mustnt hasnt havent hadnt neednt".split()
)
_NEGATIONS_PT = frozenset(
    "nao nunca nem jamais sem nenhum nenhuma nenhuns nenhumas nada ninguem tampouco".split()
)
_MODALS_EN = frozenset(
    "shall may must will should can could would might ought cannot cant wont shant shouldnt wouldnt couldnt "
    "mustnt required obliged obligated entitled permitted prohibited forbidden".split()
)
_MODALS_PT = frozenset(
    "deve devem devera deverao deveria deveriam devendo podera pode podem poderao poderia poderiam "
    "podendo facultado facultada obrigado obrigada obrigatorio obrigatoria vedado vedada proibido proibida "
    "permitido permitida".split()
)
_MODALS = _MODALS_EN | _MODALS_PT
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million "
    "billion trillion first second third fourth fifth sixth seventh eighth ninth tenth twelfth fifteenth "
    "twentieth thirtieth half twice double triple quarter dozen "
    "um uma dois duas tres quatro cinco seis sete oito nove dez onze doze treze catorze quatorze quinze "
    "dezesseis dezasseis dezessete dezassete dezoito dezenove dezanove vinte trinta quarenta cinquenta sessenta "
    "setenta oitenta noventa cem cento duzentos trezentos quatrocentos quinhentos seiscentos setecentos "
    "oitocentos novecentos mil milhao milhoes bilhao bilhoes primeiro primeira segundo segunda terceiro "
    "terceira quarto quarta quinto quinta sexto sexta setimo setima oitavo oitava nono nona decimo decima "
    "metade dobro triplo".split()
)
_PT_HINTS = frozenset("de da do das dos que em na no para com uma pelo pela ao nao se os as e".split())
_EN_HINTS = frozenset("the of and to in is that for by be this with any shall or as on such".split())
# Glyphs a scanner reads one for another (the first of each group stands for the others).
_LOOKALIKES = (
    ("m", "rn"),
    ("d", "cl"),
    ("w", "vv"),
    ("n", "ri"),
    ("l", "i", "1", "|"),
    ("o", "0"),
    ("s", "5"),
    ("e", "c"),
)
_AS_FIRST = {alt: group[0] for group in _LOOKALIKES for alt in group[1:]}
_LOOKALIKE = re.compile("|".join(re.escape(a) for a in sorted(_AS_FIRST, key=len, reverse=True)))
_SENTENCE_END = frozenset(".!?:;\n\"“”'‘(")


@dataclass(frozen=True)
class Word:
    text: str  # as written
    norm: str  # compared form
    start: int  # span in the text it was cut from
    end: int
    capital: bool  # capitalised inside a sentence (a name, a title)


@dataclass(frozen=True)
class Difference:
    quote: str  # the quote's words ("" when the text has words the quote lacks)
    text: str  # the text's words ("" when the quote has words the text lacks)
    kind: str  # first of KINDS that applies
    kinds: tuple[str, ...]  # every kind that applies (a change can be a number and a negation)
    text_span: tuple[int, int] | None = None  # the text words' span in the compared text
    block: int = 0  # differences of one block of consecutive changed words share it

    def to_json(self) -> dict[str, str]:
        return {"quote": self.quote, "text": self.text, "kind": self.kind}


@dataclass(frozen=True)
class WordDiff:
    differences: list[Difference]
    quote_words: int
    matched: int  # quote words equal to a text word (or differing only in spelling)
    text_start: int  # span of the compared text the quote covers (context words left out)
    text_end: int

    @property
    def meaning_changes(self) -> list[str]:
        """The meaning-changing kinds among the differences, in MEANING_KINDS order."""
        found = {k for d in self.differences for k in d.kinds}
        return [k for k in MEANING_KINDS if k in found]

    @property
    def substantive(self) -> list[Difference]:
        """Differences other than spelling (a misread or misspelt word)."""
        return [d for d in self.differences if d.kind != "spelling"]

    @property
    def changed_words(self) -> int:
        """Words changed, added or left out by the substantive differences (the longer side of each)."""
        return sum(max(len(d.quote.split()), len(d.text.split())) for d in self.substantive)

    @property
    def longest_run(self) -> int:
        """The most words changed in a row (a run of several is another passage, not a misquote)."""
        runs: dict[int, int] = {}
        for d in self.substantive:
            runs[d.block] = runs.get(d.block, 0) + max(len(d.quote.split()), len(d.text.split()))
        return max(runs.values(), default=0)


@lru_cache(maxsize=16384)
def normalise(word: str) -> str:
    """Lowercase without accents; numbers keep their separators, other words only letters/digits."""
    low = unicodedata.normalize("NFKD", word.lower())
    if any(c.isdigit() for c in low):
        return "".join(c for c in low if c.isalnum() or c in ".,/")
    return "".join(c for c in low if c.isalnum() and not unicodedata.combining(c))


def _starts_sentence(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END


def words(text: str) -> list[Word]:
    """The words of `text`; a word broken by a hyphen at a line end is joined back."""
    found: list[Word] = []
    for m in _WORD.finditer(text):
        token = m[0]
        prev = found[-1] if found else None
        gap = text[prev.end : m.start()] if prev else ""
        if (
            prev is not None
            and _LINE_END_HYPHEN.match(gap)
            and prev.text[-1].isalpha()
            and token[0].islower()
        ):
            joined = prev.text + token
            found[-1] = Word(joined, prev.norm + normalise(token), prev.start, m.end(), prev.capital)
            continue
        capital = token[:1].isupper() and not _starts_sentence(text, m.start())
        found.append(Word(token, normalise(token), m.start(), m.end(), capital))
    return found


def looks_portuguese(items: list[Word], default: bool = False) -> bool:
    """Whether words read as Portuguese rather than English (by their commonest words);
    `default` when they do not tell."""
    pt = sum(w.norm in _PT_HINTS for w in items)
    en = sum(w.norm in _EN_HINTS for w in items)
    return default if pt == en else pt > en


def is_number(w: Word) -> bool:
    """Digits (with at most a short suffix: "2nd", "5º", "10k"), a number word or a roman numeral;
    a word whose letters outnumber its digits ("Bi0amber", misread) is not a number."""
    digits = sum(c.isdigit() for c in w.norm)
    if digits:
        return sum(c.isalpha() for c in w.norm) <= max(2, digits)
    return w.norm in _NUMBER_WORDS or bool(_ROMAN.match(w.text))


def _ocr_form(norm: str) -> str:
    return _LOOKALIKE.sub(lambda m: _AS_FIRST[m[0]], norm)


def _kinds(quote: list[Word], text: list[Word], portuguese: bool) -> tuple[str, ...]:
    negations = _NEGATIONS_PT | _NEGATIONS_EN - {"no"} if portuguese else _NEGATIONS_PT | _NEGATIONS_EN

    def bag(items: list[Word], keep: frozenset[str] | None) -> list[str]:
        return sorted(w.norm for w in items if (is_number(w) if keep is None else w.norm in keep))

    one_for_one = len(quote) == 1 and len(text) == 1
    if one_for_one and _ocr_form(quote[0].norm) == _ocr_form(text[0].norm):
        return ("spelling",)  # the same word as a scanner reads it ("3O" for "30", "shaII" for "shall")
    spelled = one_for_one and _alike(quote[0].norm, text[0].norm)
    kinds = [
        kind
        for kind, keep in (("number", None), ("negation", negations), ("modal", _MODALS))
        if bag(quote, keep) != bag(text, keep)
    ]
    if kinds:
        return tuple(kinds)
    if spelled:
        return ("spelling",)
    if any(w.capital for w in (text or quote)):
        return ("name",)
    return ("other",)


def _alike(a: str, b: str) -> bool:
    if min(len(a), len(b)) < 3:
        return False
    return bool(
        Indel.normalized_similarity(a, b) >= SPELLING_FLOOR
        or Indel.normalized_similarity(_ocr_form(a), _ocr_form(b)) >= 0.9
    )


def _difference(quote: list[Word], text: list[Word], portuguese: bool) -> Difference:
    kinds = _kinds(quote, text, portuguese)
    span = (text[0].start, text[-1].end) if text else None
    return Difference(" ".join(w.text for w in quote), " ".join(w.text for w in text), kinds[0], kinds, span)


def _replace(quote: list[Word], text: list[Word], portuguese: bool) -> list[Difference]:
    """The differences of a block of changed words: none when only their spacing or hyphens differ,
    word by word when both sides have as many words, else one for the block."""
    if "".join(w.norm for w in quote) == "".join(w.norm for w in text):
        return []
    if len(quote) == len(text):
        return [
            _difference([q], [t], portuguese) for q, t in zip(quote, text, strict=True) if q.norm != t.norm
        ]
    return [_difference(quote, text, portuguese)]


def _equal_block(quote: list[Word], text: list[Word], portuguese: bool) -> list[Difference]:
    """Words paired as equal by their OCR forms: the ones whose letters differ are misreadings."""
    return [_difference([q], [t], portuguese) for q, t in zip(quote, text, strict=True) if q.norm != t.norm]


Op = tuple[str, int, int, int, int]  # difflib's opcodes: tag, quote[i1:i2], text[j1:j2]
MATCH, ALIKE, MISS = 3, 1, -2  # word scores of the fitting alignment (a gap costs MISS)
MAX_CELLS = 60_000  # above this many word pairs, difflib's matcher instead (long quotes)


def _fit(q: list[str], t: list[str], alike: list[list[bool]]) -> list[Op]:
    """The best alignment of all of `q` with a stretch of `t` (text words before and after it
    cost nothing): dynamic programming over word pairs, where two words of one side that make
    one word of the other ("sys tems" / "systems") also pair; grouped into difflib-style opcodes."""
    n, m = len(q), len(t)
    score = [[0] * (m + 1)] + [[MISS * i] + [0] * m for i in range(1, n + 1)]

    def moves(i: int, j: int) -> list[tuple[int, str, int, int]]:
        """(score, step, quote words, text words) of each way into cell (i, j)."""
        out = [(score[i - 1][j] + MISS, "-", 1, 0)]
        if j:
            pair = MATCH if q[i - 1] == t[j - 1] else (ALIKE if alike[i - 1][j - 1] else MISS)
            out.append((score[i - 1][j - 1] + pair, "=" if pair == MATCH else "~", 1, 1))
            out.append((score[i][j - 1] + MISS, "+", 0, 1))
            if i > 1 and q[i - 2] + q[i - 1] == t[j - 1]:
                out.append((score[i - 2][j - 1] + 2 * MATCH, "j", 2, 1))
            if j > 1 and q[i - 1] == t[j - 2] + t[j - 1]:
                out.append((score[i - 1][j - 2] + 2 * MATCH, "j", 1, 2))
        return out

    for i in range(1, n + 1):
        for j in range(1, m + 1):
            score[i][j] = max(mv[0] for mv in moves(i, j))
    i, j = n, max(range(m + 1), key=lambda k: (score[n][k], k))  # a tie: pair the last word, not drop it
    steps: list[tuple[str, int, int, int, int]] = []
    while i > 0:
        best = max(moves(i, j), key=lambda mv: (mv[0], mv[1] in "=~j"))
        _s, kind, di, dj = best
        steps.append((kind, i - di, di, j - dj, dj))
        i, j = i - di, j - dj
    return _opcodes(steps[::-1])


def _opcodes(steps: list[tuple[str, int, int, int, int]]) -> list[Op]:
    """Steps grouped: equal words into "equal" runs, a joined pair alone (its words are equal
    once joined), every other change into "replace" runs; "delete" / "insert" when one side is empty."""
    ops: list[Op] = []
    last = ""
    for kind, i, di, j, dj in steps:
        group = {"=": "=", "j": "j"}.get(kind, "x")
        if ops and group == last and group != "j":
            tag, i1, _i2, j1, _j2 = ops[-1]
            ops[-1] = (tag, i1, i + di, j1, j + dj)
        else:
            ops.append(("equal" if group == "=" else "replace", i, i + di, j, j + dj))
        last = group
    return [
        (("delete" if j1 == j2 else "insert" if i1 == i2 else tag), i1, i2, j1, j2)
        for tag, i1, i2, j1, j2 in ops
    ]


def _trim_context(ops: list[Op]) -> list[Op]:
    """Drop the text words before the quote's first word and after its last (context)."""
    if ops and ops[0][0] == "insert":
        ops = ops[1:]
    if ops and ops[-1][0] == "insert":
        ops = ops[:-1]
    if ops and ops[0][0] == "replace":
        tag, i1, i2, j1, j2 = ops[0]
        ops[0] = (tag, i1, i2, max(j1, j2 - (i2 - i1)), j2)
    if ops and ops[-1][0] == "replace":
        tag, i1, i2, j1, j2 = ops[-1]
        ops[-1] = (tag, i1, i2, j1, min(j2, j1 + (i2 - i1)))
    return ops


def _align_words(q: list[Word], t: list[Word]) -> list[Op]:
    qk, tk = [_ocr_form(w.norm) for w in q], [_ocr_form(w.norm) for w in t]
    if len(q) * len(t) > MAX_CELLS:
        return _trim_context(list(difflib.SequenceMatcher(None, qk, tk, autojunk=False).get_opcodes()))
    similar = cdist(qk, tk, scorer=Indel.normalized_similarity) >= SPELLING_FLOOR
    long_enough = np.minimum.outer(np.array([len(k) for k in qk]), np.array([len(k) for k in tk])) >= 3
    alike: list[list[bool]] = (similar & long_enough).tolist()
    return _fit(qk, tk, alike)


def diff_words(quote: str, text: str, portuguese: bool | None = None) -> WordDiff:
    """Word differences between `quote` and `text`, where `text` is the passage the quote was
    aligned to, possibly with a few words of context around it: text words before the quote's
    first word and after its last are context, not differences. Words are paired by their OCR
    forms, so a misread word still anchors the alignment. `portuguese` defaults to a guess from
    the words."""
    q, t = words(quote), words(text)
    pt = looks_portuguese(q + t) if portuguese is None else portuguese
    ops = _align_words(q, t)
    differences: list[Difference] = []
    matched = 0
    for block, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            matched += i2 - i1
            differences += _equal_block(q[i1:i2], t[j1:j2], pt)
            continue
        if tag == "insert" and 0 < i1 < len(q) and _ELLIPSIS.search(quote, q[i1 - 1].end, q[i1].start):
            continue  # words the quote leaves out and says so ("shall ... pay")
        found = [replace(d, block=block) for d in _replace(q[i1:i2], t[j1:j2], pt)]
        differences += found
        if tag == "replace":
            changed = sum(len(d.quote.split()) for d in found if d.kind != "spelling")
            matched += max(0, (i2 - i1) - changed)
    start = t[ops[0][3]].start if ops and ops[0][3] < len(t) else 0
    last = ops[-1][4] - 1 if ops else -1
    end = t[last].end if 0 <= last < len(t) else (t[-1].end if t else 0)
    return WordDiff(differences, len(q), min(matched, len(q)), start, end)
