"""US court rules cited in a text: the Federal Rules (of Civil, Appellate, Criminal and Bankruptcy
Procedure, and of Evidence), the Supreme Court's and the circuits' own rules, and district courts'
local rules, each keyed to the rule it cites ("Fed. R. Civ. P. 12", the subdivision "(b)(6)" kept as
the pin), however it is written ("Fed.R.Civ.P. 12(b)(6)", "Federal Rule of Civil Procedure 12",
"FRCP 12"). eyecite finds none of them. A bare "Rule 12(b)(6)" is left out: state courts number
their rules the same way, so it names no rule set.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_NUM = r"(?P<num>\d{1,4}(?:[.\-]\d+)*[a-z]?)(?P<sub>(?:\s?\([a-zA-Z0-9]{1,4}\))*)"
_SETS = {  # the words after "Fed. R." (folded: lower case, no dots or spaces) -> the set's abbreviation
    "civ": "Civ. P.",
    "civil": "Civ. P.",
    "app": "App. P.",
    "appellate": "App. P.",
    "crim": "Crim. P.",
    "criminal": "Crim. P.",
    "bankr": "Bankr. P.",
    "bankruptcy": "Bankr. P.",
    "evid": "Evid.",
    "evidence": "Evid.",
}
_FEDERAL = re.compile(
    r"(?<![\w.])Fed(?:eral|\.)\s?R(?:ules?|\.)\s?(?:of\s)?"
    r"(?P<set>Civ(?:il|\.)|App(?:ellate|\.)|Crim(?:inal|\.)|Bankr(?:uptcy|\.)|Evid(?:ence|\.))"
    r"(?:\s?P(?:roc(?:edure|\.)|\.))?,?\s?(?:Rule\s)?" + _NUM,
    re.IGNORECASE,  # "FED. R. CIV. P. 12(b)(6)" in small capitals
)
_ACRONYM = {"FRCP": "Civ. P.", "FRAP": "App. P.", "FRCrP": "Crim. P.", "FRE": "Evid.", "FRBP": "Bankr. P."}
_FEDERAL_ACRONYM = re.compile(r"(?<![\w.])(?P<set>FRCP|FRAP|FRCrP|FRE|FRBP)\s?(?:Rule\s)?" + _NUM)
_SUPREME = re.compile(r"(?<![\w.])(?:Sup\.\s?Ct\.\s?R\.|Supreme\sCourt\sRule)\s?" + _NUM)
_CIRCUIT = re.compile(
    r"(?<![\w.])(?:(?P<cir>\d{1,2}(?:st|nd|rd|th)|D\.\s?C\.|Fed\.)\s?Cir(?:cuit|\.)\s?R(?:ule|\.)|Circuit\sRule)\s?"
    + _NUM
)
_LOCAL = re.compile(
    r"(?<![\w.])(?:Local\s(?P<kind1>Civil\s|Criminal\s|Bankruptcy\s|Admiralty\s)?Rules?"
    r"|(?P<kind2>Civ(?:il)?\.?\s|Crim(?:inal)?\.?\s)?L\.\s?R\.|L\.\s?(?P<kind3>Civ|Cr)\.\s?R\.|LCv?R|LCrR)"
    r"\s?" + _NUM
)


@dataclass(frozen=True)
class CourtRule:
    key: str  # the rule: "Fed. R. Civ. P. 12", "Local Civil Rule 56.1", "9th Cir. R. 28-2.6"
    text: str  # as written
    start: int
    end: int
    pin: str | None  # the subdivision: "(b)(6)"


def _set(word: str) -> str:
    return _SETS[re.sub(r"[^a-z]", "", word.lower())]


def _local_kind(m: re.Match[str]) -> str:
    word = (m["kind1"] or m["kind2"] or m["kind3"] or "").strip().lower().rstrip(".")
    if m[0].startswith("LCrR"):
        word = "cr"
    if m[0].startswith("LCv"):
        word = "civ"
    kind = {"civ": "Civil", "civil": "Civil", "cr": "Criminal", "crim": "Criminal", "criminal": "Criminal"}
    return (
        f"Local {kind[word]} Rule" if word in kind else f"Local {word.title()} Rule" if word else "Local Rule"
    )


def _circuit(m: re.Match[str]) -> str:
    cir = re.sub(r"\s", "", m["cir"] or "")
    return f"{cir} Cir. R." if cir else "Cir. R."


def find_court_rules(text: str) -> Iterator[CourtRule]:
    """Every federal, circuit, Supreme Court and local rule cited in `text`, in reading order."""
    found: list[CourtRule] = []
    finders = (
        (_FEDERAL, lambda m: f"Fed. R. {_set(m['set'])}"),
        (_FEDERAL_ACRONYM, lambda m: f"Fed. R. {_ACRONYM[m['set']]}"),
        (_SUPREME, lambda m: "Sup. Ct. R."),
        (_CIRCUIT, _circuit),
        (_LOCAL, _local_kind),
    )
    for rx, prefix in finders:
        for m in rx.finditer(text):
            if any(f.start < m.end() and m.start() < f.end for f in found):
                continue
            num = m["num"].rstrip(".")
            sub = re.sub(r"\s", "", m["sub"] or "") or None
            found.append(CourtRule(f"{prefix(m)} {num}", m[0], m.start(), m.end(), sub))
    yield from sorted(found, key=lambda r: r.start)
