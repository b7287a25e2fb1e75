"""Dates as English and Portuguese legal text writes them: CaseTrack's one date grammar.

`legal/docdate.py` picks a document's own date with it, `search/query/signals.py` shares its month
names, and the chronology (`search/chronology/`) reads every date of a case with it.

Absolute dates, read in folded text (`legal/text.fold`: offsets unchanged):
- day: "March 5, 2021", "Mar. 5th, 2021", "5 March 2021", "the 5th day of March, 2021",
  "5th of March 2021", "5 de março de 2021", "1º de março de 2021", "2021-03-05", "03/05/2021"
  (month first in English, day first in Portuguese; day first whenever the first number is over
  12), "05.03.2021" and "05-03-2021" (four-digit years only: "1.5.12" is a section number), and
  "em 5/3/21" (slashes may take a two-digit year: 00-49 are the 2000s, 50-99 the 1900s);
- month: "March 2021", "Mar. 2021", "março de 2021", "dezembro/2016", "jan/2017", and a blank day
  ("August __, 2019"). An English month-year needs its capital ("may 2021" is a verb).
Bare years ("in 2019", "(1928)", "Lei 8.078/1990") are never dates here: in legal text most are a
citation's or a statute's year.

Relative expressions (`find_relative`): what they refer to, for the caller to resolve (the
chronology resolves them against the document's date or the last date before them):
- "as of / on the date hereof", "the date first above written", "the date of this Agreement"
  after what the parties do ("executed", "effective", "dated", "accepted" ...), "today", "hoje",
  "nesta data": the document's own date;
- "that same day", "no mesmo dia": the last date; "the next day", "no dia seguinte": the day
  after it; "thirty days later", "dez dias depois": N days / weeks / months / years after it;
- "on the 5th of that month", "no dia 5 do mesmo mês": that day of the last date's month;
  "the following month", "no mês seguinte": the month after it.
A period or a deadline ("within 30 days after", "two years following the date hereof", "a contar
do dia seguinte à data") is no event and is not read as one.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from casetrack.legal.text import fold

Precision = Literal["day", "month"]

_NAMES = (
    "january february march april may june july august september october november december "
    "janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro dezembro"
).split()
MONTHS: dict[str, int] = {m: i % 12 + 1 for i, m in enumerate(_NAMES)}
MONTHS |= {m[:3]: n for m, n in list(MONTHS.items())} | {"sept": 9}
_MON = "|".join(sorted(MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th|o)?"

# A date of day precision in folded text; the group names are read by `parse_date`.
DATE = (
    rf"(?:(?<![a-z])(?P<m1>{_MON})\.?\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{{4}})"
    rf"|(?<![\w])(?P<d2>\d{{1,2}}){_ORD}\s+(?:day\s+of\s+|of\s+|de\s+)?(?P<m2>{_MON})\.?,?\s+"
    rf"(?:de\s+|of\s+)?(?P<y2>\d{{4}})"
    r"|(?P<y3>(?:19|20)\d\d)-(?P<m3>\d\d)-(?P<d3>\d\d)"
    r"|(?<![\d/.,-])(?P<a>\d{1,2})(?P<s>[/.-])(?P<b>\d{1,2})(?P=s)(?P<y4>(?:19|20)\d\d|\d\d))(?![\d/])"
)
# Month precision: a month and a year, or a blank day ("August __, 2019").
_MONTH_YEAR = (
    rf"(?<![a-z])(?P<m5>{_MON})\.?(?:(?:\s+_{{2,}}\s*)?,?\s+(?P<de>de\s+|of\s+)?|(?P<slash>/))"
    r"(?P<y5>(?:19|20)\d\d)(?![\d/])"
)
_ANY = re.compile(rf"{DATE}|{_MONTH_YEAR}")


def two_digit_year(y: str) -> int:
    value = int(y)
    return value if len(y) == 4 else (2000 + value if value < 50 else 1900 + value)


def parse_date(m: re.Match[str], language: str = "en") -> date | None:
    """The date of a match of DATE; None when it is no calendar date. `language` "pt": numeric
    dates are day first (and always when the first number is over 12, or with dots)."""
    g = {k: v for k, v in m.groupdict().items() if v}
    try:
        if "a" in g:
            if g["s"] != "/" and len(g["y4"]) != 4:
                return None  # "1.5.12", "10-11-12": section and version numbers
            first, second = int(g["a"]), int(g["b"])
            day_first = language == "pt" or g["s"] == "." or first > 12
            day, month = (first, second) if day_first else (second, first)
            return date(two_digit_year(g["y4"]), month, day)
        n = next(i for i in "123" if "y" + i in g)
        month = int(g["m3"]) if n == "3" else MONTHS[g["m" + n]]
        return date(int(g["y" + n]), month, int(g["d" + n]))
    except (ValueError, KeyError, StopIteration):
        return None


@dataclass(frozen=True)
class DateMention:
    """A date written in a text: offsets into that text, its value and how precise it is (a
    month-precision date holds the 1st of its month)."""

    start: int
    end: int
    value: date
    precision: Precision
    text: str


def plausible(d: date) -> bool:
    return 1900 <= d.year <= 2100


def _month_year(m: re.Match[str], text: str) -> DateMention | None:
    start = m.start("m5")
    if not m["de"] and not m["slash"] and not text[start].isupper():
        return None  # English month names are capitalised: "may 2021" is no date
    if m["de"] and m["de"].startswith("of") and not text[start].isupper():
        return None
    value = date(int(m["y5"]), MONTHS[m["m5"]], 1)
    return DateMention(start, m.end(), value, "month", text[start : m.end()])


# Every absolute date ends in a year (ISO dates: in their day): the grammar runs only in a window before each one (a page
# is read ~20 times faster than by running it at every position).
_YEAR_END = re.compile(
    r"(?<!\d)(?:19|20)\d\d-\d\d-\d\d(?!\d)|(?<!\d)(?:19|20)\d\d(?![\d/-])|(?<=/)\d\d(?![\d/])"
)
_WINDOW = 60  # characters before a year where its date may start ("the 11th day of September, 2021")


def find_dates(text: str, language: str = "en", folded: str | None = None) -> list[DateMention]:
    """Every absolute date in `text`, in order (`language` "pt" reads numeric dates day first;
    `folded`: `fold(text)` when the caller has it)."""
    folded = fold(text) if folded is None else folded
    out: list[DateMention] = []
    done = 0  # where the last date found ends: windows overlap
    for year in _YEAR_END.finditer(folded):
        for m in _ANY.finditer(folded, max(done, year.start() - _WINDOW), year.end()):
            if m.end() != year.end():
                continue
            mention = _mention(m, text, language)
            if mention is not None and plausible(mention.value):
                out.append(mention)
                done = m.end()
            break
    return out


def _mention(m: re.Match[str], text: str, language: str) -> DateMention | None:
    if m["m5"]:
        return _month_year(m, text)
    value = parse_date(m, language)
    start = next(m.start(g) for g in ("m1", "d2", "y3", "a") if m.start(g) >= 0)
    return DateMention(start, m.end(), value, "day", text[start : m.end()]) if value else None


# -- relative expressions -------------------------------------------------------------------------

RelativeKind = Literal["document", "same_day", "next_day", "later", "day_of_month", "next_month"]

_NUMBER_WORDS = {
    w: n
    for n, ws in {
        1: "one a an um uma",
        2: "two dois duas",
        3: "three tres",
        4: "four quatro",
        5: "five cinco",
        6: "six seis",
        7: "seven sete",
        8: "eight oito",
        9: "nine nove",
        10: "ten dez",
        12: "twelve doze",
        14: "fourteen quatorze catorze",
        15: "fifteen quinze",
        20: "twenty vinte",
        30: "thirty trinta",
        45: "forty-five",
        60: "sixty sessenta",
        90: "ninety noventa",
    }.items()
    for w in ws.split()
}
_NUM = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
_UNITS = {
    "day": "days",
    "days": "days",
    "dia": "days",
    "dias": "days",
    "week": "weeks",
    "weeks": "weeks",
    "semana": "weeks",
    "semanas": "weeks",
    "month": "months",
    "months": "months",
    "mes": "months",
    "meses": "months",
    "year": "years",
    "years": "years",
    "ano": "years",
    "anos": "years",
}
_DOC_REF = (
    r"(?:as\s+of|on),?\s+(?P<doc>the\s+date\s+(?:first\s+(?:above\s+)?written(?:\s+above)?|hereof"
    r"|of\s+this\s+(?:agreement|letter|notice|order|amendment|addendum)))"
)
_RELATIVE = re.compile(
    rf"\b(?:{_DOC_REF}"
    r"|(?P<today>today|hoje|nesta\s+data|na\s+presente\s+data)"
    r"|(?P<same>(?:that|the)\s+same\s+day|no\s+mesmo\s+dia|na\s+mesma\s+data)"
    r"|(?P<next>the\s+(?:next|following)\s+day|the\s+day\s+after|(?:n?o)\s+dia\s+(?:imediatamente\s+)?seguinte)"
    r"(?!\s+(?:a|ao|as|aos|to|of|after|da|do|de|the)\b)"
    rf"|(?P<n>\d{{1,3}}|{_NUM})(?:\s+\(\d{{1,3}}\))?\s+(?P<unit>{'|'.join(_UNITS)})\s+(?:later|depois|mais\s+tarde)"
    r"(?!\s+(?:de|da|do|than|of)\b)"
    r"|(?:on\s+)?the\s+(?P<dom>\d{1,2})(?:st|nd|rd|th)\s+(?:day\s+)?of\s+(?:that|the\s+same)\s+month"
    r"|(?:n?o\s+)?dia\s+(?P<dom_pt>\d{1,2})o?\s+(?:do\s+mesmo\s+mes|daquele\s+mes|deste\s+mes)"
    r"|(?P<nextm>the\s+(?:following|next)\s+month|n?o\s+mes\s+seguinte))\b"
)
# Before a relative expression, these make it a period or a deadline, not an event.
_PERIOD_BEFORE = re.compile(
    r"(?:\b(?:within|until|till|before|after|following|from|prior\s+to|no\s+prazo\s+de|prazo\s+de|ate|a\s+contar"
    r"|for\s+a\s+period\s+of|period\s+of|years?|months?|days?|weeks?|anos?|meses|dias?|speaks?\s+only)\s*)$"
)


# "as of the date hereof" dates an event only after what the parties do on that day.
_EXECUTED = re.compile(
    r"\b(?:execut|effective|dated|entered|agreed|accepted|made|signed|sign|hands|delivered|acknowledg)"
)


@dataclass(frozen=True)
class RelativeMention:
    """A relative date expression: what it refers to (`kind`), and its step (days, weeks, months
    or years after the anchor for "later"; the day of the month for "day_of_month")."""

    start: int
    end: int
    kind: RelativeKind
    text: str
    amount: int = 0
    unit: str = "days"


_FIXED: tuple[tuple[str, RelativeKind, int, str], ...] = (
    ("doc", "document", 0, "days"),
    ("today", "document", 0, "days"),
    ("same", "same_day", 0, "days"),
    ("next", "next_day", 1, "days"),
    ("nextm", "next_month", 1, "months"),
)


def _relative_of(m: re.Match[str]) -> tuple[RelativeKind, int, str, str]:
    """(kind, amount, unit, the group that matched) of a match of _RELATIVE."""
    for group, kind, amount, unit in _FIXED:
        if m[group]:
            return kind, amount, unit, group
    if m["n"]:
        raw = m["n"]
        return "later", int(raw) if raw.isdigit() else _NUMBER_WORDS[raw], _UNITS[m["unit"]], "n"
    return "day_of_month", int(m["dom"] or m["dom_pt"]), "days", "dom" if m["dom"] else "dom_pt"


# Every relative expression holds one of these words: the grammar runs only around them.
_TRIGGER = re.compile(
    r"date|hereof|written|today|hoje|data|same|mesm|next|following|seguinte|later|depois|tarde|month|\bmes\b"
)


def find_relative(text: str, folded: str | None = None) -> list[RelativeMention]:
    """Every relative date expression of `text` that names a point in time (not a period)."""
    folded = fold(text) if folded is None else folded
    out: list[RelativeMention] = []
    done = 0  # where the last expression read ends: windows overlap
    for word in _TRIGGER.finditer(folded):
        for m in _RELATIVE.finditer(folded, max(done, word.start() - 60), min(len(folded), word.end() + 50)):
            if not m.start() <= word.start() < m.end():
                continue
            done = m.end()
            if mention := _relative_mention(m, text, folded):
                out.append(mention)
            break
    return out


def _relative_mention(m: re.Match[str], text: str, folded: str) -> RelativeMention | None:
    kind, amount, unit, group = _relative_of(m)
    start = m.start(group) if group == "doc" else m.start()
    if _PERIOD_BEFORE.search(folded[max(0, m.start() - 40) : m.start()]):
        return None
    if group == "doc" and not _EXECUTED.search(folded[max(0, m.start() - 80) : m.start()]):
        return None  # "outstanding as of the date hereof": a representation, not an event
    return RelativeMention(start, m.end(), kind, text[start : m.end()], amount, unit)


def add_months(d: date, months: int) -> date:
    month0 = d.month - 1 + months
    year, month = d.year + month0 // 12, month0 % 12 + 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 28)


def resolve(mention: RelativeMention, anchor: date, precision: Precision) -> tuple[date, Precision] | None:
    """The date `mention` refers to from `anchor` (the document's date for "document", the last
    date before it otherwise), or None when the anchor is too coarse for it (a day after a month)."""
    kind, unit = mention.kind, mention.unit
    months = {"next_month": 1}.get(kind, mention.amount * {"months": 1, "years": 12}.get(unit, 0))
    if kind in ("document", "same_day"):
        found: tuple[date, Precision] | None = (anchor, precision)
    elif kind == "next_month":
        found = (add_months(anchor.replace(day=1), months), "month")
    elif kind == "later" and months:
        found = (add_months(anchor, months), precision)
    elif precision != "day" and kind != "day_of_month":
        found = None  # a day after a month-precision date cannot be told
    elif kind == "day_of_month":
        found = (anchor.replace(day=mention.amount), "day") if mention.amount <= _month_days(anchor) else None
    else:
        found = (anchor + timedelta(days=mention.amount * (7 if unit == "weeks" else 1)), "day")
    return found


def _month_days(d: date) -> int:
    return calendar.monthrange(d.year, d.month)[1]
