"""The document's own date: the date it was decided, signed or made, not a date it cites.

Rules, strongest first (the first that fires on any page wins; within a rule, the first match):
decision ("Decided November 7, 1997", "Data da sessão 11/05/2016"), a court's "Filed" stamp atop a
page, dated ("Dated: March 3, 2021", "dated as of", "this 3rd day of March, 2021", "made ... on July 26,
2013"), city line ("São Paulo, 12 de março de 2023", "Brasília (DF), 5 de maio de 2020"), "julgado em"
(after the city line: acórdãos cite their precedents "julgado em ..."), filed ("Filed: 04/16/21"),
"Date: ...", publication ("DJe 15/03/2023"), and finally the first
written-out date of the first page. Numeric dates are month-first in English, day-first in Portuguese.
"""

from __future__ import annotations

import re
from datetime import date

from casetrack.legal.dates import DATE, parse_date
from casetrack.legal.model import DocDate
from casetrack.legal.text import fold

# The date grammar is legal/dates.py's (written-out, numeric and ISO dates of day precision).
_CITY = r"(?:^|\n)[^\S\n]*[a-z][a-z' ]{2,30}(?:\s*[/(-]\s*[a-z]{2}\)?)?\s*,\s*(?:em\s+)?"
_WORDY = DATE.split("|(?P<y3>")[0] + ")"  # written-out dates only
RULES = (
    (
        "decision",
        rf"\b(?:decided|argued\s+and\s+submitted|data\s+d[eoa]\s+julgamento\s*:?|"
        rf"data\s+da\s+sessao\s*:?|sessao\s+(?:virtual\s+)?de)\s*{DATE}",
    ),
    ("filed_header", rf"^[\s\S]{{0,250}}?\bfiled\s*:?\s*{DATE}"),  # a court's stamp atop the page
    (
        "dated",
        rf"\b(?:dated|effective\s+as\s+of|made|entered\s+into|executed)(?:\s+and\s+effective)?"
        rf"(?:\s+(?:as\s+of|on|this))?\s*:?\s*(?:the\s+)?{DATE}",
    ),
    ("this_day", rf"\bthis\s+{DATE}"),
    ("city_date", _CITY + _WORDY),
    ("julgado_em", rf"\bjulgad[oa]\s+em\s*{DATE}"),
    ("filed", rf"\b(?:date\s+)?filed\s*:?\s*{DATE}"),
    ("date_line", rf"\bdate\s*:\s*{DATE}"),
    ("publication", rf"\b(?:dje|dj|dou|publicad[oa]\s+em|data\s+da\s+publicacao)\s*:?\s*(?:dje\s*)?{DATE}"),
)
_FALLBACK = re.compile(r"(?<![\d/])" + DATE)
_COMPILED = tuple((name, re.compile(rx)) for name, rx in RULES)


_CITED_IN_PARENS = ("decision", "julgado_em", "publication")


def _in_parens(text: str, pos: int) -> bool:
    before = text[max(0, pos - 250) : pos]
    return before.count("(") > before.count(")")


def _plausible(d: date) -> bool:
    return 1900 <= d.year <= 2100


def find_doc_date(pages: list[str], language: str = "en") -> DocDate | None:
    """The document's date from its pages (all are read for the strong rules; the fallback reads page 1)."""
    folded = [fold(p) for p in pages]
    for name, rx in _COMPILED:
        for i, page in enumerate(folded):
            for m in rx.finditer(page) if name != "filed_header" else rx.finditer(page[:400]):
                start = next(m.start(g) for g in ("m1", "d2", "y3", "a") if m.start(g) >= 0)
                if name in _CITED_IN_PARENS and _in_parens(page, m.start()):
                    continue  # "(Acórdão n. 187778, ..., Data de Julgamento: 23/09/2003)": a cited precedent
                if (d := parse_date(m, language)) and _plausible(d):
                    return DocDate(d.isoformat(), name, pages[i][start : m.end()], i, start)
    if folded:
        for m in _FALLBACK.finditer(folded[0][:3000]):
            if m["a"]:
                continue  # a bare numeric date on page 1 is too often a case number or a cited date
            if (d := parse_date(m, language)) and _plausible(d):
                return DocDate(d.isoformat(), "first_date", pages[0][m.start() : m.end()], 0, m.start())
    return None
