"""Portuguese legislation references with canonical keys.

"Lei nº 8.078/1990", "Lei 8.078/90" and "Lei 8.078, de 11 de setembro de 1990" are all
"lei 8078/1990"; a code is its abbreviation ("CPC", "Código de Processo Civil" → "cpc") and its
enacting law is one of its keys too ("cdc" and "lei 8078/1990"); a pinpoint adds article, paragraph,
inciso and alínea: "art. 300, § 1º, inciso II, do CPC" → "cpc art. 300 § 1 inc. II"; "arts. 186 e 927
do Código Civil" names two articles. Matching runs on folded text (`text.fold`), so accents and case
do not matter except for abbreviations, which must be written in capitals ("CC", "MP", "EC").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from casetrack.legal.text import fold, number, spaced, year4
from casetrack.legal.tribunals import STATES

ACTS = [  # (canonical type, folded regex, abbreviation written in capitals)
    ("lc", r"leis?\s+complementar(?:es)?(?:\s+(?:federal|estadual|distrital|municipal)(?:is)?)?", "LC"),
    ("decreto-lei", r"decreto\s*-?\s*lei", "DL"),
    ("decreto legislativo", r"decreto\s+legislativo", ""),
    ("decreto", r"decretos?(?:\s+(?:federal|estadual|distrital|municipal|regulamentar)(?:is)?)?", ""),
    ("lei", r"leis?(?:\s+(?:federal|estadual|distrital|municipal|ordinaria)(?:is|s)?)?", ""),
    ("mp", r"medida\s+provisoria", "MP"),
    ("ec", r"emenda\s+constitucional", "EC"),
    ("resolução", r"resolucao", ""),
    ("portaria", r"portaria", ""),
    ("instrução normativa", r"instrucao\s+normativa", "IN"),
]
# Code key: (folded names, abbreviations in capitals, the enacting act's key).
CODES: dict[str, tuple[str, str, str]] = {
    "cf": (
        r"constituicao\s+(?:da\s+republica(?:\s+federativa\s+do\s+brasil)?|federal)(?:\s+de\s+1988)?"
        r"|carta\s+(?:magna|politica)(?:\s+de\s+1988)?|lei\s+maior",
        "CF|CRFB|CR",
        "",
    ),
    "cpc": (r"codigo\s+de\s+processo\s+civil", "CPC|NCPC", "lei 13105/2015"),
    "cpp": (r"codigo\s+de\s+processo\s+penal", "CPP", "decreto-lei 3689/1941"),
    "cppm": (r"codigo\s+de\s+processo\s+penal\s+militar", "CPPM", "decreto-lei 1002/1969"),
    "cpm": (r"codigo\s+penal\s+militar", "CPM", "decreto-lei 1001/1969"),
    "cc": (r"codigo\s+civil(?:\s+brasileiro)?", "CC|CCB", "lei 10406/2002"),
    "cp": (r"codigo\s+penal", "CP", "decreto-lei 2848/1940"),
    "ctn": (r"codigo\s+tributario\s+nacional", "CTN", "lei 5172/1966"),
    "cdc": (r"codigo\s+de\s+(?:protecao\s+e\s+)?defesa\s+do\s+consumidor", "CDC", "lei 8078/1990"),
    "clt": (r"consolidacao\s+das\s+leis\s+do\s+trabalho", "CLT", "decreto-lei 5452/1943"),
    "eca": (r"estatuto\s+da\s+crianca\s+e\s+do\s+adolescente", "ECA", "lei 8069/1990"),
    "lindb": (
        r"lei\s+de\s+introducao\s+(?:as\s+normas\s+do\s+direito\s+brasileiro|ao\s+codigo\s+civil)",
        "LINDB|LICC",
        "decreto-lei 4657/1942",
    ),
    "ctb": (r"codigo\s+de\s+transito\s+brasileiro", "CTB", "lei 9503/1997"),
    "ce": (r"codigo\s+eleitoral", "", "lei 4737/1965"),
    "lep": (r"lei\s+de\s+execucao\s+penal|lei\s+de\s+execucoes\s+penais", "LEP", "lei 7210/1984"),
    "lrf": (r"lei\s+de\s+responsabilidade\s+fiscal", "LRF", "lc 101/2000"),
    "loman": (r"lei\s+organica\s+da\s+magistratura(?:\s+nacional)?", "LOMAN", "lc 35/1979"),
    "lgpd": (r"lei\s+geral\s+de\s+protecao\s+de\s+dados(?:\s+pessoais)?", "LGPD", "lei 13709/2018"),
}
NAMED_LAWS = {  # popular names of laws: folded name → act key
    r"lei\s+maria\s+da\s+penha": "lei 11340/2006",
    r"nova\s+lei\s+de\s+licitacoes(?:\s+e\s+contratos(?:\s+administrativos)?)?": "lei 14133/2021",
    r"lei\s+de\s+licitacoes(?:\s+e\s+contratos(?:\s+administrativos)?)?": "lei 8666/1993",
    r"lei\s+de\s+improbidade(?:\s+administrativa)?": "lei 8429/1992",
    r"lei\s+de\s+acesso\s+a\s+informacao": "lei 12527/2011",
    r"marco\s+civil\s+da\s+internet": "lei 12965/2014",
    r"lei\s+de\s+(?:falencias|recuperacao\s+judicial)(?:\s+e\s+(?:falencias|recuperacao\s+judicial))?": "lei 11101/2005",
    r"lei\s+do\s+inquilinato": "lei 8245/1991",
    r"lei\s+dos\s+juizados\s+especiais": "lei 9099/1995",
    r"estatuto\s+do\s+idoso|estatuto\s+da\s+pessoa\s+idosa": "lei 10741/2003",
    r"estatuto\s+da\s+(?:advocacia|oab)": "lei 8906/1994",
    r"lei\s+organica\s+do\s+tcu": "lei 8443/1992",
}
_LAW_TO_CODE = {law: code for code, (_, _, law) in CODES.items() if law}
_LAW_TO_CODE |= {
    law.split("/")[0]: code for law, code in _LAW_TO_CODE.items()
}  # "Decreto-Lei 4.657" without its year

_NUM = r"(?:n\s?[o.]*\s*\.?\s*|numero\s+)?(?P<num>\d{1,3}(?:\.\d{3})+|\d+)(?:\s?-\s?(?P<suf>\d{1,2}|[a-z])(?![a-z0-9]))?"
_MORE = re.compile(
    r"(?:\s*[,;]\s*(?:e\s+)?|\s+e\s+)(?:n\s?[o.]*s?\s*\.?\s*)?(?P<num>\d{1,3}(?:\.\d{3})+|\d+)\s?/\s?(?P<y>\d{4}|\d{2})(?![\d.])"
)
_YEAR = (
    r"(?:\s?/\s?(?P<y1>\d{4}|\d{2})(?![\d.])"
    r"|,?\s+de\s+(?:\d{1,2}o?\.?\s+de\s+[a-z]+\s+de\s+)?(?P<y2>(?:18|19|20)\d{2})(?!\d))?"
)


@dataclass(frozen=True)
class Authority:
    key: str  # "lei 8078/1990", "cpc", "cf", "" for "desta Lei"
    start: int
    end: int
    keys: tuple[str, ...] = ()  # the key and its aliases ("cdc", "lei 8078/1990")


@dataclass(frozen=True)
class LegislationRef:
    key: str  # the first pinpoint, or the authority alone
    keys: tuple[str, ...]  # every pinpoint, then the authority and its aliases
    authority: str
    text: str
    start: int
    end: int
    pinpoints: tuple[str, ...] = field(default=())


@functools.cache
def _act_rx() -> re.Pattern[str]:
    types = "|".join(
        rf"(?P<t{i}>{rx}{'|' + abbr.lower() if abbr else ''})" for i, (_, rx, abbr) in enumerate(ACTS)
    )
    return re.compile(rf"(?<![a-z0-9])(?:{types})\s*{_NUM}{_YEAR}")


@functools.cache
def _code_rx() -> re.Pattern[str]:
    states = "|".join(f"(?P<ce_{uf}>{spaced(name)})" for uf, name in sorted(STATES, key=lambda s: -len(s[1])))
    names = [rf"(?P<c_{k}>{v[0]})" for k, v in sorted(CODES.items(), key=lambda kv: -len(kv[1][0]))]
    names += [rf"(?P<n{i}>{rx})" for i, rx in enumerate(NAMED_LAWS)]
    names += [
        rf"constituicao\s+(?:do\s+estado\s+d[eo]\s+|estadual\s+d[eo]\s+)(?:{states})",
        r"(?P<cesp>constituicao\s+paulista)",
        r"(?P<ce>constituicao\s+estadual)",
        r"(?P<ri>regimento\s+interno)",
    ]
    return re.compile(
        rf"(?<![a-z])(?:{'|'.join(names)})(?:\s?/\s?(?P<cy>(?:19|20)?\d\d)(?!\d)|\s+de\s+(?P<cy2>19\d\d|20\d\d))?(?![a-z])"
    )


_ABBR = re.compile(
    r"(?<![A-Za-z0-9/])(?P<abbr>"
    + "|".join(
        sorted((a for _, abbrs, _ in CODES.values() for a in abbrs.split("|") if a), key=len, reverse=True)
    )
    + r")(?:\s?[/-]\s?(?P<cy>(?:19|20)?\d\d)(?!\d))?(?![A-Za-z0-9])"
)
_ABBR_CODE = {a: k for k, (_, abbrs, _) in CODES.items() for a in abbrs.split("|") if a}


def _code_key(code: str, year: str | None) -> tuple[str, ...]:
    y = year4(year) if year else None
    if code == "cpc" and y == 1973:
        return ("cpc/1973", "lei 5869/1973")
    if code == "cc" and y == 1916:
        return ("cc/1916", "lei 3071/1916")
    if code == "cf" and y and y != 1988:
        return (f"cf/{y}",)
    law = CODES[code][2]
    return (code, law) if law else (code,)


def _act_keys(kind: str, num: str, suf: str | None, year: str | None) -> tuple[str, ...]:
    key = f"{kind} {number(num)}{'-' + suf if suf else ''}{'/' + str(year4(year)) if year else ''}"
    code = _LAW_TO_CODE.get(key)
    return (code, key) if code else (key,)


def find_authorities(text: str, folded: str | None = None) -> list[Authority]:
    """Acts, codes and named laws in `text`, in reading order, without overlaps."""
    f = fold(text) if folded is None else folded
    found: list[Authority] = []

    def add(start: int, end: int, keys: tuple[str, ...]) -> None:
        if not any(a.start < end and start < a.end for a in found):
            found.append(Authority(keys[0], start, end, keys))

    for m in _code_rx().finditer(f):
        group = next(k for k, v in m.groupdict().items() if v is not None and k not in ("cy", "cy2"))
        year = m["cy"] or m["cy2"]
        if group.startswith("c_"):
            add(m.start(), m.end(), _code_key(group[2:], year))
        elif group.startswith("n"):
            add(m.start(), m.end(), (list(NAMED_LAWS.values())[int(group[1:])],))
        else:
            add(
                m.start(),
                m.end(),
                (
                    {"ri": "regimento interno", "ce": "ce", "cesp": "ce-sp"}.get(group)
                    or f"ce-{group[3:].lower()}",
                ),
            )
    for m in _act_rx().finditer(f):
        i = next(
            int(k[1:]) for k, v in m.groupdict().items() if v is not None and k[0] == "t" and k[1:].isdigit()
        )
        kind, _, abbr = ACTS[i]
        if (
            abbr
            and text[m.start() : m.start() + len(abbr)] == abbr
            or not abbr
            or len(m[f"t{i}"]) > len(abbr)
        ):
            add(m.start(), m.end(), _act_keys(kind, m["num"], m["suf"], m["y1"] or m["y2"]))
            end = m.end()
            while more := _MORE.match(f, end):  # "Leis 9.784/1999 e 8.112/1990", "LCs 797/95, 788/94"
                add(more.start("num"), more.end(), _act_keys(kind, more["num"], None, more["y"]))
                end = more.end()
    for m in _ABBR.finditer(text):
        add(m.start(), m.end(), _code_key(_ABBR_CODE[m["abbr"]], m["cy"]))
    return sorted(found, key=lambda a: a.start)


# -- article pinpoints ------------------------------------------------------------------------------

_ART_HEAD = re.compile(r"(?<![a-z])(?:arts?\s?\.?|artigos?)\s*(?=\d)")
_SEP = re.compile(r"(?:\s*(?:,|;|\(|\)|\be\b|\bou\b|c/c|\bbem\s+como\b)\s*)*\s*")
_PIN = re.compile(
    r"(?P<parun>paragrafo\s+unico|p\.\s?u\.?(?![a-z])|par\.\s?un(?:ico)?\.?|§\s?unico)"
    r"|(?:§§?|paragrafos?|par\.)\s*(?P<par>\d+)\s?o?(?![\d.])"
    r"|(?P<caput>caput)"
    r"|(?:incisos?|inc\.)\s*(?P<inc>[ivxlc]+)(?![a-z])"
    r"|(?:alineas?|letras?|al\.)\s*[\"']*\s*(?P<ali>[a-z])(?![a-z])\s*[\"']*"
    r"|(?:arts?\.?\s*|artigos?\s*)?(?P<art>\d{1,3}(?:\.\d{3})+|\d+)(?:\s?o(?![a-z]))?(?:\s?-\s?(?P<asuf>[a-z])(?![a-z]))?(?![\d/])"
    r"|(?P<rom>[ivxl]+)(?![a-z0-9])"
)
_LINK = re.compile(
    r"\s*,?\s*(?:(?:d[oa]s?|desta|deste|na|no|em|da\s+referida|do\s+referido|todos\s+d[oa])\s+)?"
)
_SELF = re.compile(
    r"\s*,?\s*(?:desta|deste|nesta|neste)\s+(?:lei|codigo|constituicao|decreto|resolucao|portaria)"
)


def _pinpoints(f: str, pos: int) -> tuple[list[dict[str, str]], int]:
    """Parse an article list starting at `pos` (after "art."): its components and where it ends."""
    parts: list[dict[str, str]] = []
    last = "art"
    while True:
        sep = _SEP.match(f, pos)
        start = sep.end() if sep else pos
        m = _PIN.match(f, start)
        if not m or (m["rom"] and (not parts or "," not in f[pos:start] and " e " not in f[pos:start])):
            break
        if (
            m["art"]
            and parts
            and last == "par"
            and not m[0].startswith("art")
            and f[pos:start].strip(" ,") == "e"
        ):
            level, value = "par", number(m["art"])  # "§§ 1º e 2º"
        elif m["art"]:
            if parts and start > pos and "§" not in f[pos:start] and not _list_sep(f[pos:start]):
                break
            parts.append({"art": number(m["art"]) + (f"-{m['asuf'].upper()}" if m["asuf"] else "")})
            pos, last = m.end(), "art"
            continue
        else:
            level = next(k for k in ("parun", "par", "caput", "inc", "ali", "rom") if m[k])
            value = {
                "parun": "único",
                "caput": "caput",
                "inc": (m["inc"] or "").upper(),
                "rom": (m["rom"] or "").upper(),
            }.get(level, m[level])
            level = {"parun": "par", "rom": "inc"}.get(level, level)
        if not parts:
            break
        _attach(parts, level, value)
        pos, last = m.end(), level
    return parts, pos


def _list_sep(sep: str) -> bool:
    return bool(re.fullmatch(r"\s*(?:,|;|e|ou|c/c)?\s*(?:,|;|e|ou)?\s*", sep))


_ORDER = ("art", "par", "caput", "inc", "ali")


def _attach(parts: list[dict[str, str]], level: str, value: str) -> None:
    cur = parts[-1]
    if level in cur or any(k in cur for k in _ORDER[_ORDER.index(level) + 1 :]):
        keep = {k: v for k, v in cur.items() if _ORDER.index(k) < _ORDER.index(level)}
        cur = dict(keep)
        parts.append(cur)
    cur[level] = value


def pinpoint_key(authority: str, part: dict[str, str]) -> str:
    """ "cpc art. 300 § 1 inc. II al. a" from the authority key and one article component."""
    out = [authority] if authority else []
    out.append(f"art. {part['art']}")
    if "par" in part:
        out.append(f"§ {part['par']}")
    if "inc" in part:
        out.append(f"inc. {part['inc']}")
    if "ali" in part:
        out.append(f"al. {part['ali']}")
    return " ".join(out)


def find_legislation(text: str) -> Iterator[LegislationRef]:
    """Legislation references in reading order: article pinpoints with their authority, and
    authorities named alone."""
    f = fold(text)
    authorities = find_authorities(text, f)
    by_start = {a.start: a for a in authorities}
    used: set[int] = set()
    refs: list[LegislationRef] = []
    for head in _ART_HEAD.finditer(f):
        if refs and head.start() < refs[-1].end:
            continue
        parts, end = _pinpoints(f, head.end())
        if not parts:
            continue
        start, auth = head.start(), None
        link = _LINK.match(f, end)
        if link and (a := by_start.get(link.end())) and link.end() - end <= 20:
            auth, end = a, a.end
        elif s := _SELF.match(f, end):
            end = s.end()
        else:  # "CF, art. 5º" / "Lei 8.078/1990, art. 49": the authority comes first
            before = next(
                (a for a in authorities if a.end <= start and re.fullmatch(r"\s*,\s*", f[a.end : start])),
                None,
            )
            if before:
                auth, start = before, before.start
        akey = auth.key if auth else ""
        if auth:
            used.add(auth.start)
        pins = tuple(dict.fromkeys(pinpoint_key(akey, p) for p in parts))
        keys = pins + (auth.keys if auth else ())
        refs.append(LegislationRef(pins[0], keys, akey, text[start:end], start, end, pins))
    for a in authorities:
        if a.start not in used and not any(r.start <= a.start < r.end for r in refs):
            refs.append(LegislationRef(a.key, a.keys, a.key, text[a.start : a.end], a.start, a.end))
    yield from sorted(refs, key=lambda r: r.start)
