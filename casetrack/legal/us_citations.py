"""US citations through eyecite: full case citations, short forms, id., supra, statutes and regulations,
with short forms, id. and supra resolved to the full citation they refer to within the document
(eyecite's `resolve_citations`), so every mention of one authority carries one key ("410 U.S. 113",
"42 U.S.C. § 1983"). eyecite reads "17 C.F.R. § 240.10b-5" as section 240 and skips "§§" and a "§"
that text extraction turned into "s" ("40 U.S.C. s 270b"); a small regex over U.S.C. / C.F.R. fills
those in."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CASE_KINDS = ("case", "short_case", "id", "supra", "reference")
_CLASS_KIND = {
    "FullCaseCitation": "case",
    "ShortCaseCitation": "short_case",
    "IdCitation": "id",
    "SupraCitation": "supra",
    "ReferenceCitation": "reference",
    "FullLawCitation": "statute",
}
_CODE = re.compile(
    r"(?<![\w.])(?P<title>\d{1,3})\s+(?P<code>U\.\s?S\.\s?C\.(?:\s?A\.)?|C\.\s?F\.\s?R\.)\s*"
    r"(?:(?P<secs>§§?)\s*|(?:sec(?:tion)?s?\.?|ss?)\s+)?(?P<sec>\d+[a-zA-Z]*(?:[.\-]\d+[a-zA-Z0-9]*)*)"
    r"(?P<sub>(?:\([a-zA-Z0-9]{1,4}\))*)"
)


# Words that open a citation sentence or clause rather than a party's name ("See Carson v. ...").
_SIGNALS = frozenset("see see, cf. but accord compare contra also e.g., e.g. in citing quoting".split())
# Lower-case words a party's name holds ("Calvary Chapel of Bangor", "United States ex rel. Briggs").
_CONNECTORS = frozenset(
    "of the and & for on ex rel. re de la del da do dos das du von van y et al. to".split()
)
_DOCKET = re.compile(r",\s*(?:No\.|Nos\.|Civ\.|Case No\.|Docket No\.)\s.*$")
_IN_RE = re.compile(r"(?:\bIn re|\bEx parte|\bMatter of|\bApplication of)\s+[^;()\[\]\"“”]{2,120}?,\s*$")
_BROKEN = re.compile(r"(\w)- ([a-z])")  # a word hyphenated across a line break
MAX_NAME_WORDS = 14


def _plain(word: str) -> bool:
    """A word that can be part of a party's name (not "(citing", "2013);" nor "1983." ending a sentence)."""
    if word.lower() in _CONNECTORS:
        return True
    if any(c in word for c in '();:[]"“”') or not (word[0].isupper() or word[0].isdigit()):
        return False
    return not (word.endswith(".") and word[:-1].isdigit())


def _name_part(segment: str) -> str | None:
    """`segment` up to the comma before a parallel citation ("Young, 209 U.S. 123, 159-160" ->
    "Young"); None when what follows that comma is another citation's ("Marsh, 907 F.2d 210 (1st
    Cir. 1990); In re ...")."""
    m = re.search(r",\s*\d", segment)
    if not m:
        return segment
    return None if re.search(r"[;()]", segment[m.start() :]) else segment[: m.start()]


def _party_start(words: list[str]) -> int:
    """Where the plaintiff's name starts among the words before " v.": the run of capitalised
    words and connectors that ends at "v.", after its last signal word ("See", "Cf.", "In" but
    not "In re") and without a leading page or line number."""
    i = len(words)
    while i > 0 and len(words) - i < MAX_NAME_WORDS and _plain(words[i - 1]):
        i -= 1
    for j in range(len(words) - 1, i - 1, -1):
        word = words[j].lower()
        if word in _SIGNALS and not (word == "in" and j + 1 < len(words) and words[j + 1] == "re"):
            i = j + 1
            break
    while i < len(words) and (words[i].lower() in _CONNECTORS or not re.search(r"[A-Za-z]", words[i])):
        i += 1
    return i


def case_name(text: str, start: int) -> str | None:
    """The case name written just before a full citation at `start` ("Carroll v. National Surety
    Co., 24 F.2d 268" -> "Carroll v. National Surety Co."), line breaks joined; None when the text
    before it is no "X v. Y," (nor "In re X,")."""
    before = _BROKEN.sub(r"\1\2", " ".join(text[max(0, start - 300) : start].split()))
    if not before.endswith(","):
        return None
    before = before[:-1].rstrip()
    head, sep, defendant = before.rpartition(" v. ")
    if not sep:
        head, sep, defendant = before.rpartition(" vs. ")
    defendant = _DOCKET.sub("", defendant)
    name = _name_part(defendant) if sep and not re.search(r";|\(\D*\d{4}\)", defendant) else None
    words = (name or "").split()
    if (
        words
        and len(words) <= MAX_NAME_WORDS
        and all(_plain(w) or w.startswith("(In") or w.endswith(")") for w in words)
    ):
        party = head.split()
        first = _party_start(party)
        if first < len(party):
            return f"{' '.join(party[first:])} v. {' '.join(words)}"
    tail = re.split(r"[;)]\s", before)[-1]
    m = _IN_RE.search(tail + ",")
    named = _name_part(m[0].rstrip(", ")) if m else None
    return named.strip() if named else None


@dataclass(frozen=True)
class UsCitation:
    kind: str  # "case", "short_case", "id", "supra", "reference", "statute", "regulation"
    text: str
    start: int
    end: int
    key: str  # the authority: "410 U.S. 113", "42 U.S.C. § 1983"; "" for an id./supra eyecite could not resolve
    pin_cite: str | None = None
    court: str | None = None  # eyecite's court id ("scotus", "ca9", ...)
    year: str | None = None
    plaintiff: str | None = None
    defendant: str | None = None
    name: str | None = None  # a full case citation's case name: "Carroll v. National Surety Co."

    @property
    def is_statute(self) -> bool:
        return self.kind in ("statute", "regulation")

    def fields(self) -> dict[str, str]:
        pairs = {
            "citation_kind": self.kind,
            "pin_cite": self.pin_cite,
            "court": self.court,
            "year": self.year,
            "plaintiff": self.plaintiff,
            "defendant": self.defendant,
            "name": self.name,
        }
        return {k: " ".join(v.split()) for k, v in pairs.items() if v}


@functools.cache
def eyecite() -> tuple[Callable[..., list[Any]], Callable[..., dict[Any, list[Any]]]]:
    """eyecite's finder and resolver, imported on first use (~0.3 s); ingest and query signals
    (search/signals.py) both take them from here. Its warnings about overlapping citations it
    cannot classify say nothing a user can act on: errors only."""
    from eyecite import get_citations, resolve_citations

    logging.getLogger("eyecite").setLevel(logging.ERROR)
    return get_citations, resolve_citations


def _space(text: str) -> str:
    return " ".join(text.split())


def _law_key(cite: Any) -> str:
    g = cite.groups
    reporter = _space(g.get("reporter") or "")
    title = g.get("title") or g.get("chapter")
    section = g.get("section") or ""
    if title and reporter in ("U.S.C.", "C.F.R.", "U.S.C.A."):
        return f"{title} {reporter.replace('U.S.C.A.', 'U.S.C.')} § {section}"
    return _space(cite.matched_text()).replace("§§", "§")


def _case_key(cite: Any) -> str:
    return _space(cite.corrected_citation())


def _code_key(m: re.Match[str]) -> str:
    code = re.sub(r"\s", "", m["code"]).replace("U.S.C.A.", "U.S.C.")
    section = m["sec"]
    first, _, rest = section.partition("-")
    lead_a, lead_b = re.match(r"\d+", first), re.match(r"\d+", rest)
    if rest and lead_a and lead_b and lead_a[0] == lead_b[0]:
        section = first  # a range "270a-270f" cites its first section; "10b-5" is one section's name
    return f"{m['title']} {code} § {section}"


def _squeeze(text: str) -> tuple[str, list[int]]:
    """`text` with every whitespace run as one space, and the original offset of each character
    (eyecite misses "779 F.2d at\n70-71" across a line break; its own clean_text keeps no offsets)."""
    out: list[str] = []
    where: list[int] = []
    pos = 0
    for m in re.finditer(r"\s+", text):
        out.append(text[pos : m.start()])
        where.extend(range(pos, m.start()))
        out.append(" ")
        where.append(m.start())
        pos = m.end()
    out.append(text[pos:])
    where.extend(range(pos, len(text) + 1))
    return "".join(out), where


def _from_eyecite(original: str) -> list[UsCitation]:
    get_citations, resolve_citations = eyecite()
    text, where = _squeeze(original)
    cites = [c for c in get_citations(text) if type(c).__name__ in _CLASS_KIND]
    resolved: dict[int, str] = {}
    try:
        for resource, members in resolve_citations(cites).items():
            full = resource.citation
            key = _case_key(full) if type(full).__name__ == "FullCaseCitation" else _law_key(full)
            for member in members:
                resolved[id(member)] = key
    except Exception:  # resolution is a best effort: eyecite raises on odd overlaps in rare texts
        resolved = {}
    out = []
    for cite in cites:
        kind = _CLASS_KIND[type(cite).__name__]
        start, end = cite.span()
        meta = cite.metadata
        if kind == "case":
            key = _case_key(cite)
        elif kind == "statute":
            key = _law_key(cite)
            kind = "regulation" if "C.F.R." in key else "statute"
        else:
            key = resolved.get(id(cite), "")
        if kind == "short_case" and not key:
            g = cite.groups
            key = f"{g.get('volume')} {_space(g.get('reporter') or '')} ___" if g.get("volume") else ""
        start, end = where[start], where[end - 1] + 1
        out.append(
            UsCitation(
                kind,
                original[start:end],
                start,
                end,
                key,
                getattr(meta, "pin_cite", None),
                getattr(meta, "court", None),
                getattr(meta, "year", None),
                getattr(meta, "plaintiff", None),
                getattr(meta, "defendant", None),
                case_name(original, start) if kind == "case" else None,
            )
        )
    return out


def find_us_citations(text: str) -> list[UsCitation]:
    """Every US citation in `text`, in reading order, short forms keyed to the case they cite."""
    out = _from_eyecite(text)
    for m in _CODE.finditer(text):  # full sections eyecite cuts short, and "§§" lists it skips
        key = _code_key(m)
        clash = [c for c in out if c.start < m.end() and m.start() < c.end]
        if any(c.is_statute and c.key == key for c in clash):
            continue
        out = [c for c in out if c not in clash or not c.is_statute]
        kind = "regulation" if "C.F.R." in key else "statute"
        out.append(UsCitation(kind, m[0], m.start(), m.end(), key, m["sub"] or None))
    return sorted(out, key=lambda c: c.start)
