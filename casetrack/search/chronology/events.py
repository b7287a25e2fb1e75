"""The dated events of one document's text: each sentence that holds a date (`legal/dates.py`),
one event per date, relative dates resolved in reading order.

What is not an event (decided for the chronology; bench/chronology_gold/README.md marks the same):
- a running header or footer: a line that comes back on several pages (page numbers aside), the
  court's ECF stamp ("Case 1:20-cv-1 Document 5 Filed 04/16/21 Page 3 of 9"), an EDGAR exhibit's
  "Source: ..., 8-K, 12/6/2017";
- a citation's date: a US reporter's parenthetical ("24 F.2d 268 (2d Cir. Mar. 5, 1928)"), a cited
  precedent's judgment or publication ("Rel. Min. X, julgado em 5/3/2019, DJe 12/3/2019"), a
  statute's own date ("Lei nº 11.340, de 7 de agosto de 2006", "Act of March 3, 1875");
- a relative date in an obligation ("shall be paid during the following month", "deverá ser
  pago no dia seguinte"): a term of the deal, not a day that happened;
- bare years, periods and deadlines in words ("within 30 days", "two years following the date
  hereof"), blank form fields ("Dated: ________"): `legal/dates.py` never reads them as dates.
A date written out in a deadline ("file the forms by October 4, 2017") is an event: it is a day
of the matter's calendar.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from casetrack.legal.dates import (
    DateMention,
    Precision,
    RelativeMention,
    find_dates,
    find_relative,
    resolve,
)
from casetrack.legal.text import fold
from casetrack.search.pincite.layout import line_end, line_of, line_starts, sentences

MAX_SENTENCE = 500  # longer "sentences" are tables or lists: the event is the date's own line
_LONE_NUMBER = re.compile(r"(?<![\d/.-])\d{1,6}(?![\d/.-])")
_ECF = re.compile(r"^\s*(?:appellate\s+)?case:?\s.{0,60}\bdocument:?\s.{0,120}\b(?:filed|page)\b")
_EDGAR = re.compile(r"\bsource:\s[^\n:]{0,160}$")  # "Source: GRIDIRON BIONUTRIENTS, INC., 8-K, " + date
_PAGE_AFTER = re.compile(
    r"^\s*(?:-\s*)?page\s+\d+\b"
)  # "September 2, 1998 Page 17": a footer run into the text
_REPORTER_BEFORE = re.compile(
    r"(?:\d+\s+[A-Z][A-Za-z0-9.' ]{0,24}?\s\d+(?:,\s*\d+(?:-\d+)?)?|\bWL\s+\d+)\s*$"
)
_COURT_IN_PARENS = re.compile(r"\b(?:Cir|Dist|App|Ct|Bankr|Cl|Fed|Supp)\.|\b[SNEWCM]\.D\.")
_PRECEDENT_BEFORE = re.compile(
    r"(?:\bdj(?:-?e)?|\bdejt|\bdou|\bj\.|julgad[oa]s?\s+em|julgamento(?:\s+em)?|data\s+d[oe]\s+julgamento"
    r"|publicad[oa](?:\s+no\s+dje?|\s+em)?|publicacao(?:\s+da\s+sumula)?(?:\s+em)?)\s*:?\s*(?:de\s+|em\s+)?$"
)
# Who decided it, or the cited case's class and number ("AgRg no REsp 936574", "RR - 144-53.2012...").
_PRECEDENT_MARK = re.compile(
    r"\b(?:rel|rei)(?:ator|atora)?\b|\b(?:min|mm|des)\.|\bministr[oa]\b|\b(?:oj|sbdi|sumula)\b|\b(?:resp|agrg|agint|edcl|hc|rhc|re|are|aresp|ai|airr"
    r"|rr|adi|adpf|ms|rms|ag|ap|apelacao|embargos|acordao|processo)\b[^;]{0,40}?\d"
)
_OBLIGATION = re.compile(r"\b(?:shall|must|will|deve|devera|deverao|devem)\b")
_STATUTE_BEFORE = re.compile(
    r"(?:\b(?:leis?|decretos?(?:-leis?)?|medidas?\s+provisorias?|resolu(?:cao|coes)|portarias?|instrucao\s+normativa"
    r"|emendas?\s+constituciona(?:l|is)|circular|provimento)\b(?:[^;()]{0,80}?\d[\d./-]*,?\s+de\s*"
    r"|[^;]{0,160}?\bpublicad[oa]s?\b[^;]{0,80}?\b(?:de|em)\s*)"  # the act's publication: "publicada no DOU de"
    r"|\b(?:vol\.|no\.?)\s*\d+,\s*"  # a journal's issue: "Revista LTr ..., vol. 69, nº 04, abril de 2005"
    r"|\b(?:directive|regulation)\b[^;()]{0,80}?\bof\s*|\bact\s+of\s*)$"
)


@dataclass(frozen=True)
class TextEvent:
    """A dated event in a document: the sentence (offsets in its page's text) and its date."""

    page: int  # index into the document's pages
    start: int
    end: int
    date_start: int
    date_end: int
    value: date
    precision: Precision
    date_text: str
    relative: str | None = None  # a relative date's kind ("document", "next_day" ...), resolved


def line_key(line: str) -> str:
    """A line as a running header repeats it: page numbers aside, spacing aside."""
    return " ".join(_LONE_NUMBER.sub("#", fold(line)).split())


def running_lines(pages: Sequence[str]) -> frozenset[str]:
    """The keys of the lines that come back in the document (headers, footers, letterheads)."""
    counts = Counter(line_key(line) for page in pages for line in page.split("\n") if line.strip())
    return frozenset(k for k, n in counts.items() if n >= 2 and len(k) <= 200 and re.search(r"\d", k))


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    stop = text.find("\n", pos)
    return text[start : len(text) if stop < 0 else stop]


def _clause_start(text: str, pos: int) -> int:
    """Where the clause holding `pos` starts: after the last open parenthesis or semicolon."""
    window_start = max(0, pos - 300)
    depth, at = 0, pos - 1
    while at >= window_start:
        ch = text[at]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                return at
            depth -= 1
        elif ch == ";" and depth == 0:
            return at + 1
        at -= 1
    return window_start


def is_header(text: str, pos: int, end: int, repeated: frozenset[str]) -> bool:
    """A running header or footer: a repeated line, the ECF stamp, an EDGAR "Source:" line, a
    date followed by a page number."""
    line = _line_at(text, pos)
    if line_key(line) in repeated or _ECF.match(fold(line)):
        return True
    return bool(
        _EDGAR.search(fold(text[max(0, pos - 200) : pos])) or _PAGE_AFTER.match(fold(text[end : end + 30]))
    )


def is_citation(text: str, folded: str, start: int) -> bool:
    """A cited authority's date: a reporter's parenthetical, a precedent's judgment or
    publication, a statute's own date. `folded`: `text` folded."""
    clause = _clause_start(text, start)
    if text[clause : clause + 1] == "(":
        before = text[max(0, clause - 60) : clause]
        if _REPORTER_BEFORE.search(before) or _COURT_IN_PARENS.search(text[clause:start]):
            return True
    if _PRECEDENT_BEFORE.search(folded[max(0, start - 40) : start]):
        # "(DJe de 04.5.2016)" closes "Apelação 27-89.2015/MS, Ministro-Relator ...": look before the parenthesis too
        reach = max(0, clause - 150) if text[clause : clause + 1] == "(" else clause
        if _PRECEDENT_MARK.search(folded[reach:start]):
            return True
    return bool(_STATUTE_BEFORE.search(folded[max(0, start - 100) : start]))


def _event_span(text: str, sentence: tuple[int, int], date_start: int, date_end: int) -> tuple[int, int]:
    """The sentence, or the date's own lines when the sentence is a table, a list or a run-on."""
    start, end = sentence
    if end - start <= MAX_SENTENCE:
        return start, end
    starts = line_starts(text)
    first, last = line_of(starts, date_start), line_of(starts, max(date_end - 1, date_start))
    return max(start, starts[first]), min(end, line_end(text, starts, last))


@dataclass
class _Anchors:
    """What relative dates resolve against, as the reading goes on."""

    document: tuple[date, Precision] | None
    first: tuple[date, Precision] | None = None
    last: tuple[date, Precision] | None = None

    def of(self, mention: RelativeMention) -> tuple[date, Precision] | None:
        if mention.kind != "document":
            return self.last
        if "first" in mention.text.lower():  # "the date first above written": the first date written
            return self.first or self.document
        return self.document or self.first


def _page_events(
    text: str, page: int, language: str, repeated: frozenset[str], anchors: _Anchors
) -> list[TextEvent]:
    out: list[TextEvent] = []
    folded = fold(text)
    spans = sentences(text)
    firsts = [s for s, _ in spans]
    found: list[DateMention | RelativeMention] = [
        *find_dates(text, language, folded),
        *find_relative(text, folded),
    ]
    for mention in sorted(found, key=lambda m: m.start):
        at, stop = mention.start, mention.end
        s, e = spans[max(bisect.bisect_right(firsts, at) - 1, 0)]
        if isinstance(mention, DateMention):
            if is_header(folded, at, stop, repeated) or is_citation(text, folded, at):
                continue
            value, precision, relative = mention.value, mention.precision, None
            anchors.first = anchors.first or (value, precision)
            anchors.last = (value, precision)
        else:
            if mention.kind != "document" and _OBLIGATION.search(folded[s:e]):
                continue  # "paid during the following month": a term of the deal, not an event
            anchor = anchors.of(mention)
            resolved = resolve(mention, *anchor) if anchor else None
            if resolved is None:
                continue
            (value, precision), relative = resolved, mention.kind
            if mention.kind != "document":
                anchors.last = (value, precision)
        span = _event_span(text, (s, max(e, stop)), at, stop)
        out.append(TextEvent(page, *span, at, stop, value, precision, mention.text, relative))
    return out


def document_events(
    pages: Sequence[str], language: str = "en", doc_date: date | None = None
) -> list[TextEvent]:
    """Every dated event of a document whose pages are `pages`, in reading order. `language`
    "pt" reads numeric dates day first; `doc_date` (the document's own date, legal metadata)
    resolves "the date hereof", "today"."""
    repeated = running_lines(pages)
    anchors = _Anchors((doc_date, "day") if doc_date else None)
    out: list[TextEvent] = []
    for index, text in enumerate(pages):
        out += _page_events(text, index, language, repeated, anchors)
    return out
