"""Where an entity's words occur in a text: folding, citation tokens, exact and fuzzy mentions.

Text and entity are folded the same way (lowercase, accents removed, offsets kept) and cut into
words, so punctuation and spacing never matter ("Smith v. Jones" is "SMITH V JONES", "Ação" is
"acao"). Citations (entity_type statute / case_citation, or an entity with digits, "§" or "v.")
are normalised further: initials joined ("U.S.C." = "USC"), "sec." / "section" / "nº" / "No."
before a number dropped like "§", "vs." = "v.", "artigo" = "art.", "5º" = "5", digit groups
joined ("0001234-56.2023..." = "0001234562023...").

An exact mention has the entity's words in order. A fuzzy one is a window of about as many words
(one fewer to one more) with the same numbers (a different section number is another statute,
not a typo) whose similarity with the entity is FUZZY_THRESHOLD or more. The similarity is
rapidfuzz's Indel ratio of the words joined by spaces, raised half-way towards the ratio of
their OCR forms, where characters a scanner confuses count as one ("rn" = "m", "1" = "l" = "i"):
"Srnith" is 0.727 of "Smith" letter by letter but 1.0 as OCR forms, so 0.864, while "Smithson"
(0.769) and "Smyth" (0.8), other names, stay below. The words must also pair up with the
entity's, each pair WORD_FLOOR alike or more (one word for one, or two joined for one where OCR
lost or added a space): "Brown v. Board of Elections" is 0.885 of "... Education" overall, but
"elections" is 0.667 of "education", another case. Indel credits scattered shared letters more
than difflib's Ratcliff-Obershelp did ("intellectual property that" was 0.852 of "... rights",
now 0.889), and the pairing is what keeps such windows out.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

FUZZY_THRESHOLD = 0.85
WORD_FLOOR = 0.7  # each word of a window against its counterpart in the entity
SNIPPET_CHARS = 80  # each side of a mention

Token = tuple[str, int, int]  # normalised word, start and end in the original text

_WORD = re.compile(r"[^\W_]+")
_CITATION_HINT = re.compile(r"\d|§|(?<!\w)(?:v|vs|versus)\.?\s", re.IGNORECASE)
_ORDINAL = re.compile(r"(\d+)[oa]")
_CITE_DROP = frozenset("sec secs section sections n no nos nr num numero number".split())
_CITE_SAME = {
    "vs": "v",
    "versus": "v",
    "artigo": "art",
    "artigos": "art",
    "arts": "art",
    "article": "art",
    "articles": "art",
}
# Glyphs OCR reads one for another, the first of each group standing for all of them.
_LOOKALIKES = (("m", "rn"), ("d", "cl"), ("w", "vv"), ("l", "i", "1"), ("o", "0"), ("s", "5"))
_AS_FIRST = {alt: group[0] for group in _LOOKALIKES for alt in group[1:]}
_LOOKALIKE = re.compile("|".join(sorted(_AS_FIRST, key=len, reverse=True)))
_MISREAD = {c: [alt for alt in group if alt != c] for group in _LOOKALIKES for c in group if len(c) == 1}


# -- normalisation --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _fold_char(ch: str) -> str:
    low = ch.lower()
    if len(low) != 1:
        low = ch
    base = "".join(c for c in unicodedata.normalize("NFKD", low) if not unicodedata.combining(c))
    return base if len(base) == 1 else low


def fold(text: str) -> str:
    """Lowercase without accents, one character per character: offsets stay those of `text`."""
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(c) for c in text)


def looks_like_citation(entity: str) -> bool:
    """Digits, "§" or a "v." between parties: normalise it as a citation."""
    return bool(_CITATION_HINT.search(entity))


def tokens(text: str, citation: bool = False) -> list[Token]:
    """The normalised words of `text` with their spans (see the module docstring)."""
    folded = fold(text)
    words: list[Token] = [(m[0], m.start(), m.end()) for m in _WORD.finditer(folded)]
    if not citation:
        return words
    out: list[Token] = []
    initials = False  # out[-1] is a run of single letters ("u", "us", ...)
    for word, start, end in words:
        if out:
            prev, prev_start, prev_end = out[-1]
            gap = folded[prev_end:start]
            if prev.isdigit() and word.isdigit() and gap in (".", "-", "/"):
                out[-1] = (prev + word, prev_start, end)
                continue
            if initials and len(word) == 1 and word.isalpha() and "." in gap and not gap.strip(". "):
                if len(gap) <= 2:
                    out[-1] = (prev + word, prev_start, end)
                    continue
        out.append((word, start, end))
        initials = len(word) == 1 and word.isalpha()
    canonical: list[Token] = []
    for k, (word, start, end) in enumerate(out):
        if word in _CITE_DROP and k + 1 < len(out) and out[k + 1][0][:1].isdigit():
            continue  # "§"-like words before a number: "sec. 1983", "nº 123", "No. 12"
        ordinal = _ORDINAL.fullmatch(word)
        canonical.append((ordinal[1] if ordinal else _CITE_SAME.get(word, word), start, end))
    return canonical


@functools.lru_cache(maxsize=65536)
def ocr_form(word: str) -> str:
    """`word` with the glyphs OCR confuses made one ("srnith" and "sm1th" are "smlth"); numbers stay."""
    return word if word.isdigit() else _LOOKALIKE.sub(lambda m: _AS_FIRST[m[0]], word)


def misreadings(word: str) -> list[str]:
    """`word` as OCR may have read it, one look-alike swapped at a time ("smith" -> "srnith", ...)."""
    return [word[:k] + alt + word[k + 1 :] for k, c in enumerate(word) for alt in _MISREAD.get(c, ())]


# -- matching -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    first: int  # token indexes, inclusive
    last: int
    similarity: float


def _numbers(words: Iterable[str]) -> list[str]:
    return sorted(w for w in words if w.isdigit())


def similarity(window: Sequence[str], entity: Sequence[str]) -> float:
    """How alike two word sequences are, 0 to 1, OCR look-alikes counting half (module docstring)."""
    plain = fuzz.ratio(" ".join(window), " ".join(entity)) / 100
    looks = fuzz.ratio(" ".join(map(ocr_form, window)), " ".join(map(ocr_form, entity))) / 100
    return max(plain, (plain + looks) / 2)


def _word_by_word(window: Sequence[str], entity: Sequence[str]) -> bool:
    """Whether the words pair up, each like its own ("Elections" is not "Education").

    One word for one, or, where OCR lost or added a space, two adjacent words joined for one.
    """
    if len(window) == len(entity):
        pairings = [(list(window), list(entity))]
    else:
        more, fewer = (window, entity) if len(window) > len(entity) else (entity, window)
        joined = [[*more[:k], more[k] + more[k + 1], *more[k + 2 :]] for k in range(len(more) - 1)]
        pairings = [(words, list(fewer)) for words in joined]
    return any(
        all(similarity((a,), (b,)) >= WORD_FLOOR for a, b in zip(x, y, strict=True)) for x, y in pairings
    )


def _fuzzy(words: list[str], entity: list[str]) -> list[Match]:
    """Every window of n - 1 to n + 1 words that passes as a fuzzy mention of the entity's n words."""
    n, cutoff = len(entity), 100 * FUZZY_THRESHOLD
    looks = [ocr_form(w) for w in words]
    targets = (" ".join(entity), " ".join(map(ocr_form, entity)))
    numbers = _numbers(entity)
    out: list[Match] = []
    for size in sorted({max(1, n - 1), n, n + 1}):
        # A passing window has a plain or an OCR-form ratio over the threshold: rapidfuzz finds
        # those (in C++, cut off early), the rest of the checks run on very few windows.
        hits: set[int] = set()
        for target, forms in zip(targets, (words, looks), strict=True):
            # The word list zipped with itself shifted: no slice per window, the shortest copy ends them.
            windows = list(map(" ".join, zip(*(forms[k:] for k in range(size)), strict=False)))
            hits.update(
                i
                for _, _, i in process.extract(
                    target, windows, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None
                )
            )
        for i in sorted(hits):
            window = words[i : i + size]
            if _numbers(window) != numbers or not _word_by_word(window, entity):
                continue
            if FUZZY_THRESHOLD <= (score := similarity(window, entity)) < 1.0:
                out.append(Match(i, i + size - 1, score))
    return out


def match_tokens(text_tokens: list[Token], entity: list[str]) -> list[Match]:
    """Exact and fuzzy mentions of the `entity` words among `text_tokens`, without overlaps.

    Exact mentions come first; then fuzzy ones, best first, where no mention is yet.
    """
    n = len(entity)
    words = [t[0] for t in text_tokens]
    taken = [False] * len(words)
    found: list[Match] = []
    for i in range(len(words) - n + 1):
        if words[i] == entity[0] and words[i : i + n] == entity and not any(taken[i : i + n]):
            found.append(Match(i, i + n - 1, 1.0))
            taken[i : i + n] = [True] * n
    for m in sorted(_fuzzy(words, entity), key=lambda m: (-m.similarity, m.first)):
        if not any(taken[m.first : m.last + 1]):
            found.append(m)
            taken[m.first : m.last + 1] = [True] * (m.last - m.first + 1)
    return sorted(found, key=lambda m: m.first)


def snippet_around(text: str, start: int, end: int, width: int = SNIPPET_CHARS) -> str:
    """About `width` characters each side of text[start:end], cut at spaces, on one line."""
    a, b = max(0, start - width), min(len(text), end + width)
    if a > 0:
        space = text.find(" ", a, start)
        a = space + 1 if space >= 0 else a
    if b < len(text):
        space = text.rfind(" ", end, b)
        b = space if space >= 0 else b
    body = " ".join(text[a:b].split())
    return ("… " if a > 0 else "") + body + (" …" if b < len(text.rstrip()) else "")
