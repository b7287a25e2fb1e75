"""Which reading a query gets: terms and connectors, or plain words (a question, keywords).

A query is read as connectors only on signs a plain question does not carry: a proximity or
sentence connector (`/s`, `w/5`, `pre/3`, `+2`), `&` or `%` standing alone, a word ending in `!`
or holding `*`, or AND / OR / NOT written in capitals between terms of a query that is not a
question. "What happens if the tenant and landlord disagree?" stays plain; a quoted phrase alone
stays plain too (the plain search matches quoted phrases already).
"""

from __future__ import annotations

import re
from typing import Literal

Syntax = Literal["connectors", "plain"]
SYNTAXES: tuple[str, ...] = ("auto", "connectors", "plain")

_PROXIMITY = re.compile(r"(?:^|[\s()\"”])(?:w/|/|pre/|\+)(?:\d+|[sp])(?=[\s()\"“]|$)", re.IGNORECASE)
_ALONE = re.compile(r"(?:^|[\s()])[&%](?=[\s(\"“]|$)")
_ROOT = re.compile(r"[^\W\d_]{3}!(?=[\s()\"”]|$)")
_WILDCARD = re.compile(r"[^\W\d_]{3}\*")
_CAPITAL = re.compile(r"(?<=\S)\s+(?:AND|OR|NOT|BUT NOT)\s+(?=\S)")
_QUESTION_WORDS = frozenset(
    """what when where which who whom whose why how does do did is are was were can could should
    would will may might has have had must shall qual quais quando onde quem como porque por
    quanto quanta quantos quantas existe existem há pode podem deve devem""".split()
)
# A sentence may end with "!": a root at the very end counts only in a short query.
_SHORT = 3


def detect(query: str) -> Syntax:
    """ "connectors" when the query carries connector syntax, else "plain"."""
    text = query.strip()
    if _PROXIMITY.search(text):  # never in a plain sentence
        return "connectors"
    if _is_question(text):
        return "plain"
    roots = [m for m in _ROOT.finditer(text) if m.end() < len(text) or len(text.split()) <= _SHORT]
    if roots or _ALONE.search(text) or _WILDCARD.search(text) or _CAPITAL.search(text):
        return "connectors"
    return "plain"


def _is_question(text: str) -> bool:
    first = text.split(None, 1)[0].lower().strip("¿(\"'") if text.split() else ""
    return text.rstrip().endswith("?") or first in _QUESTION_WORDS


def resolve(syntax: str | None, query: str) -> Syntax:
    """The reading asked for (`syntax`: auto, None, connectors or plain)."""
    if syntax in ("connectors", "plain"):
        return syntax  # type: ignore[return-value]  # narrowed by the test
    return detect(query)
