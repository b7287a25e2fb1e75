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
