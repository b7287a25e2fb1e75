"""Brazilian tribunal mentions, by acronym ("STJ", "TJ-SP", "TRT da 2ª Região") or by full name
("Superior Tribunal de Justiça", "Tribunal de Justiça do Estado de São Paulo"), as the acronym.

The tables here also decode the J.TR segment of a CNJ number (`cnj.py`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from casetrack.legal.text import fold

# The states in the order of Resolução CNJ 65/2008, annex VIII (TR of segments 6, 8 and 9).
STATES: tuple[tuple[str, str], ...] = (
    ("AC", "acre"),
    ("AL", "alagoas"),
    ("AP", "amapa"),
    ("AM", "amazonas"),
    ("BA", "bahia"),
    ("CE", "ceara"),
    ("DF", "distrito federal"),
    ("ES", "espirito santo"),
    ("GO", "goias"),
    ("MA", "maranhao"),
    ("MT", "mato grosso"),
    ("MS", "mato grosso do sul"),
    ("MG", "minas gerais"),
    ("PA", "para"),
    ("PB", "paraiba"),
    ("PR", "parana"),
    ("PE", "pernambuco"),
    ("PI", "piaui"),
    ("RJ", "rio de janeiro"),
    ("RN", "rio grande do norte"),
    ("RS", "rio grande do sul"),
    ("RO", "rondonia"),
    ("RR", "roraima"),
    ("SC", "santa catarina"),
    ("SE", "sergipe"),
    ("SP", "sao paulo"),
    ("TO", "tocantins"),
)
UFS = frozenset(uf for uf, _ in STATES)
SEGMENTS = {
    1: "Supremo Tribunal Federal",
    2: "Conselho Nacional de Justiça",
    3: "Superior Tribunal de Justiça",
    4: "Justiça Federal",
    5: "Justiça do Trabalho",
    6: "Justiça Eleitoral",
    7: "Justiça Militar da União",
    8: "Justiça Estadual",
    9: "Justiça Militar Estadual",
}
TRF_REGIONS = 6
TRT_REGIONS = 24
MILITARY_STATE_COURTS = {"MG", "RS", "SP"}  # the only states with a Tribunal de Justiça Militar

SUPERIOR = {  # acronym: full name, folded
    "STF": r"supremo\s+tribunal\s+federal|excelso\s+pretorio",
    "STJ": r"superior\s+tribunal\s+de\s+justica",
    "TST": r"tribunal\s+superior\s+do\s+trabalho",
    "TSE": r"tribunal\s+superior\s+eleitoral",
    "STM": r"superior\s+tribunal\s+militar",
    "TCU": r"tribunal\s+de\s+contas\s+da\s+uniao",
    "CNJ": r"conselho\s+nacional\s+de\s+justica",
    "CJF": r"conselho\s+da\s+justica\s+federal",
    "CSJT": r"conselho\s+superior\s+da\s+justica\s+do\s+trabalho",
    "CARF": r"conselho\s+administrativo\s+de\s+recursos\s+fiscais",
}


def _numbered(prefix: str, last: int) -> Callable[[int], str | None]:
    return lambda tr: f"{prefix}{tr}" if 1 <= tr <= last else None


# By the CNJ number's J (the branch of justice): its national body (TR 00 or 90), then its regional
# courts by TR: a region's number (federal, labour, military) or a state's position in STATES.
_NATIONAL: dict[int, dict[int, str]] = {
    1: {0: "STF"},
    2: {0: "CNJ"},
    3: {0: "STJ"},
    4: {90: "CJF"},
    5: {0: "TST", 90: "CSJT"},
    6: {0: "TSE"},
    7: {0: "STM"},
}
_REGIONAL: dict[int, Callable[[int], str | None]] = {
    4: _numbered("TRF", TRF_REGIONS),
    5: _numbered("TRT", TRT_REGIONS),
    6: lambda tr: f"TRE-{_uf(tr)}" if _uf(tr) else None,
    7: _numbered("CJM", 12),
    8: lambda tr: ("TJDFT" if _uf(tr) == "DF" else f"TJ{_uf(tr)}") if _uf(tr) else None,
    9: lambda tr: f"TJM{_uf(tr)}" if _uf(tr) else None,
}


def _uf(tr: int) -> str | None:
    return STATES[tr - 1][0] if 1 <= tr <= len(STATES) else None


def tribunal_of_segment(segment: int, tr: int) -> str | None:
    """The acronym of a CNJ number's J.TR: (8, 26) → "TJSP", (4, 3) → "TRF3", (5, 2) → "TRT2"."""
    national = _NATIONAL.get(segment, {})
    if tr in national:
        return national[tr]
    regional = _REGIONAL.get(segment)
    return regional(tr) if regional is not None else None


@dataclass(frozen=True)
class TribunalMention:
    acronym: str
    start: int
    end: int
    text: str


_SPACE = r"\s+"
_ORD = r"(\d{1,2})\s?(?:a|o|\.a)?"  # "2ª", "15a", "1.a" (folded)


def _state_alternation() -> str:
    # Longest names first: "mato grosso do sul" before "mato grosso", "rio grande do sul" before "rio".
    names = sorted(((name, uf) for uf, name in STATES), key=lambda t: -len(t[0]))
    return "|".join(f"(?P<uf_{uf}>{name.replace(' ', _SPACE)})" for name, uf in names)


@functools.cache
def _name_rx() -> re.Pattern[str]:
    states = _state_alternation()
    of_state = rf"(?:\s+d[oae]s?)?(?:\s+estado\s+d[oae]s?)?\s+(?:{states})"
    parts = [rf"(?P<sup_{acr}>{rx})" for acr, rx in SUPERIOR.items()]
    parts += [
        rf"tribunal\s+regional\s+federal\s+da\s+{_ORD.replace('(', '(?P<trf>', 1)}\s+regiao",
        rf"tribunal\s+regional\s+do\s+trabalho\s+da\s+{_ORD.replace('(', '(?P<trt>', 1)}\s+regiao",
        rf"tribunal\s+regional\s+eleitoral{of_state}".replace("uf_", "tre_"),
        r"tribunal\s+de\s+justica\s+do\s+distrito\s+federal(?P<tjdft>)(?:\s+e\s+(?:dos\s+)?territorios)?",
        rf"tribunal\s+de\s+justica\s+militar{of_state}".replace("uf_", "tjm_"),
        rf"tribunal\s+de\s+justica{of_state}",
        rf"tribunal\s+de\s+contas{of_state}".replace("uf_", "tce_"),
    ]
    return re.compile(rf"(?<![a-z])(?:{'|'.join(parts)})(?![a-z])")


_UF = "|".join(sorted(UFS))
_ACRONYM = re.compile(
    r"(?<![A-Za-z0-9])(?:(?:C|E|Eg|Col)\.\s?)?"
    r"(?:(?P<sup>STF|STJ|TST|TSE|STM|TCU|CNJ|CJF|CSJT|CARF)"
    r"|TRF\s?[-/]?\s?(?P<trf>[1-6])(?:\s?ª)?(?:\s?R(?:egião)?)?"
    r"|TRF\s+da\s+(?P<trf2>[1-6])\s?ª\s+Regi[ãa]o"
    r"|TRT\s?[-/]?\s?(?P<trt>[1-9]|1\d|2[0-4])(?:\s?ª)?(?:\s?R(?:egião)?)?"
    r"|TRT\s+da\s+(?P<trt2>[1-9]|1\d|2[0-4])\s?ª\s+Regi[ãa]o"
    rf"|(?P<kind>TJM|TRE|TCE|TCM|TJ)\s?[-/]?\s?(?P<uf>{_UF})"
    r"|(?P<tjdft>TJDFT))(?![A-Za-z0-9])"
)


def _acronym_of(m: re.Match[str]) -> str:
    if m["sup"]:
        return m["sup"]
    if m["tjdft"] is not None:
        return "TJDFT"
    if m["trf"] or m["trf2"]:
        return f"TRF{m['trf'] or m['trf2']}"
    if m["trt"] or m["trt2"]:
        return f"TRT{m['trt'] or m['trt2']}"
    kind, uf = m["kind"], m["uf"]
    if kind == "TJ" and uf == "DF":
        return "TJDFT"
    return f"{kind}-{uf}" if kind in ("TRE", "TCE", "TCM") else f"{kind}{uf}"


def _name_acronym(m: re.Match[str]) -> str | None:
    group = next((k for k, v in m.groupdict().items() if v is not None), None)
    if group is None:
        return None
    if group.startswith("sup_"):
        return group[4:]
    if group in ("trf", "trt"):
        n = int(m[group])
        return f"{group.upper()}{n}" if 1 <= n <= (TRF_REGIONS if group == "trf" else TRT_REGIONS) else None
    if group == "tjdft":
        return "TJDFT"
    prefix, uf = group.split("_")
    if uf == "DF" and prefix == "uf":
        return "TJDFT"
    return {"uf": f"TJ{uf}", "tre": f"TRE-{uf}", "tjm": f"TJM{uf}", "tce": f"TCE-{uf}"}[prefix]


def find_tribunals(text: str) -> Iterator[TribunalMention]:
    """Tribunal mentions in reading order; a full name and an acronym inside it count once."""
    found: list[TribunalMention] = []
    for m in _name_rx().finditer(fold(text)):
        if acronym := _name_acronym(m):
            found.append(TribunalMention(acronym, m.start(), m.end(), text[m.start() : m.end()]))
    for m in _ACRONYM.finditer(text):
        if not any(f.start < m.end() and m.start() < f.end for f in found):
            found.append(TribunalMention(_acronym_of(m), m.start(), m.end(), m[0]))
    yield from sorted(found, key=lambda f: f.start)


def normalise_tribunal(name: str) -> str | None:
    """The acronym of one tribunal name or acronym, or None: "Tribunal Regional do Trabalho da 2ª Região"
    → "TRT2", "tj-sp" → "TJSP"."""
    for mention in find_tribunals(name.strip()):
        return mention.acronym
    for mention in find_tribunals(name.strip().upper()):
        return mention.acronym
    return None
