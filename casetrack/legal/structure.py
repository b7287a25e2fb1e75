"""Structural units of statutes and structured texts, so a chunker can break at article boundaries and
label each chunk: "Lei 11.340/2006 › Art. 5 › § único", "Article V › Section 4.2 › (a)".

A heading counts only at the start of a line (a reference inside a sentence, "nos termos do art. 5º",
is not a boundary). Each unit runs from its heading to the next heading of the same or a higher level.
Portuguese: LIVRO, PARTE, TÍTULO, CAPÍTULO, Seção, Subseção (containers), Art., §, Parágrafo único,
incisos "I -", alíneas "a)". English: ARTICLE, Section / § / numbered clauses "4.2", "(a)".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from casetrack.legal.legislation import find_authorities
from casetrack.legal.text import fold, roman_to_int

# (kind, level, regex over folded text at a line start, label format)
_PT = (
    ("livro", 0, r"livro\s+(?P<id>[ivxlc]+|\w+)\b", "Livro {}"),
    ("parte", 0, r"parte\s+(?P<id>geral|especial|[ivxlc]+)\b", "Parte {}"),
    ("titulo", 1, r"titulo\s+(?P<id>[ivxlc]+|unico)\b", "Título {}"),
    ("capitulo", 2, r"capitulo\s+(?P<id>[ivxlc]+(?:-[a-z])?|unico)\b", "Capítulo {}"),
    ("secao", 3, r"secao\s+(?P<id>[ivxlc]+|unica)\b", "Seção {}"),
    ("subsecao", 4, r"subsecao\s+(?P<id>[ivxlc]+|unica)\b", "Subseção {}"),
    (
        "artigo",
        5,
        r"art(?:igo)?\.?\s*(?P<id>\d{1,3}(?:\.\d{3})*)\s?(?:o|\.o)?(?:\s?-\s?(?P<suf>[a-z]))?(?=[\s.\-])",
        "Art. {}",
    ),
    ("paragrafo", 6, r"(?:§\s*(?P<id>\d+)\s?o?|(?P<unico>paragrafo\s+unico))(?=[\s.\-:])", "§ {}"),
    ("inciso", 7, r"(?P<id>[ivxlc]+)\s*[-\u2013\u2014]\s", "{}"),
    ("alinea", 8, r"(?P<id>[a-z])\)\s", "{})"),
)
_EN = (
    ("article", 1, r"article\s+(?P<id>[ivxlc]+|\d+)\b", "Article {}"),
    ("section", 2, r"(?:section|sec\.)\s+(?P<id>\d+(?:\.\d+)*)\b", "Section {}"),
    ("section", 2, r"§\s*(?P<id>\d+[a-z]?(?:\.\d+)*)\b", "§ {}"),
    ("clause", 2, r"(?P<id>\d+\.\d+(?:\.\d+)*)\.?\s+(?=[a-z])", "{}"),
    ("subclause", 3, r"\((?P<id>[a-z]{1,2})\)\s", "({})"),
)
_COMPILED = {
    lang: [(k, lvl, re.compile(r"(?m)^[^\S\n]*" + rx), fmt) for k, lvl, rx, fmt in table]
    for lang, table in (("pt", _PT), ("en", _EN))
}
_CONTAINER_MAX_LEVEL = {"pt": 4, "en": 1}


@dataclass(frozen=True)
class StructUnit:
    kind: str  # "artigo", "paragrafo", "inciso", "alinea", "capitulo", ... / "article", "section", "clause"
    label: str  # "Art. 49", "§ único", "II", "a)", "Section 4.2", "(a)"
    level: int
    start: int  # the heading's offset
    end: int  # where the unit ends: the next heading of the same or a higher level, or the text's end
    path: tuple[str, ...]  # "Lei 8.078/1990", "Art. 49", "§ único" (containers left out)
    containers: tuple[str, ...]  # "Título II", "Capítulo I" ...

    @property
    def path_text(self) -> str:
        return " › ".join(self.path)


def _label(kind: str, fmt: str, m: re.Match[str], raw: str) -> str:
    if kind == "paragrafo" and m["unico"]:
        return "§ único"
    ident = raw[m.start("id") : m.end("id")]
    if kind == "artigo":
        ident = ident.replace(".", "") + (f"-{m['suf'].upper()}" if m["suf"] else "")
    elif (
        kind in ("titulo", "capitulo", "secao", "subsecao", "livro", "inciso", "article") and ident.isalpha()
    ):
        ident = ident.upper() if kind != "parte" else ident.capitalize()
    return fmt.format(ident)


def _headings(text: str, lang: str) -> list[tuple[int, int, str, str]]:
    f = fold(text)
    found: dict[int, tuple[int, int, str, str]] = {}
    for kind, level, rx, fmt in _COMPILED[lang]:
        for m in rx.finditer(f):
            if m.start("id") < 0 and kind != "paragrafo":
                continue
            if kind == "inciso" and not _roman_ok(m["id"]):
                continue
            start = m.start() + len(m[0]) - len(m[0].lstrip())
            found.setdefault(start, (start, level, kind, _label(kind, fmt, m, text)))
    return sorted(found.values())


def _roman_ok(ident: str) -> bool:
    return bool(re.fullmatch(r"(?:xl|l?x{0,3})(?:ix|iv|v?i{0,3})", ident)) and roman_to_int(ident) > 0


def find_structure(text: str, language: str = "pt", name: str | None = None) -> list[StructUnit]:
    """Structural units of `text` in order; `name` ("Lei 8.078/1990") heads every path when given."""
    lang = "pt" if language.startswith("pt") else "en"
    heads = _headings(text, lang)
    units: list[StructUnit] = []
    stack: list[tuple[int, str, str]] = []  # (level, kind, label) of the open units
    top = _CONTAINER_MAX_LEVEL[lang]
    for i, (start, level, kind, label) in enumerate(heads):
        end = next((s for s, lvl, _, _ in heads[i + 1 :] if lvl <= level), len(text))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, kind, label))
        path = tuple(lbl for lvl, _, lbl in stack if lvl > top or lang == "en" and lvl >= top)
        containers = tuple(lbl for lvl, _, lbl in stack if lvl <= top and lang == "pt")
        units.append(StructUnit(kind, label, level, start, end, ((name,) if name else ()) + path, containers))
    return units


def unit_at(units: list[StructUnit], offset: int) -> StructUnit | None:
    """The innermost unit holding `offset` (for labelling a chunk by where it starts)."""
    best = None
    for unit in units:
        if unit.start <= offset < unit.end and (best is None or unit.level >= best.level):
            best = unit
    return best


_DISPLAY = {
    "lei": "Lei",
    "lc": "Lei Complementar",
    "decreto": "Decreto",
    "decreto-lei": "Decreto-Lei",
    "mp": "MP",
    "ec": "EC",
    "resolução": "Resolução",
    "portaria": "Portaria",
    "instrução normativa": "Instrução Normativa",
}


def statute_title(text: str) -> str | None:
    """A display name for the act a statute's text enacts, from its heading: "Lei 11.340/2006"."""
    for auth in find_authorities(text[:600]):
        for key in auth.keys:
            m = re.fullmatch(r"(.+?) (\d+)((?:-\w+)?)(?:/(\d{4}))?", key)
            if m and m[1] in _DISPLAY:
                num = f"{int(m[2]):,}".replace(",", ".")
                return f"{_DISPLAY[m[1]]} {num}{m[3]}" + (f"/{m[4]}" if m[4] else "")
    return None
