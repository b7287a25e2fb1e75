"""Citations as CaseTrack prints them, read back: `Contract.pdf, p. 12, para. 8, ll. 1-4`.

A citation is a document name followed by pin parts, each after a comma: `p. 12` / `pp. 12-13`
(also `page`, `pages`), `para. 8` / `paras. 3-5` (also `paragraph(s)`, `¶`), `l. 7` /
`ll. 1-4` (also `line(s)`). Ranges take `-`, `–`, `—` or `to`. The name may itself hold commas
("Smith, Jones & Co. Agreement.pdf, p. 3"): pin parts are read from the right and everything
before them is the name. A pin part glued to the name without a comma ("Contract.pdf p. 12")
is read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from casetrack.errors import CaseTrackError

_KINDS = {
    "p": "page",
    "pp": "page",
    "pg": "page",
    "pgs": "page",
    "page": "page",
    "pages": "page",
    "para": "paragraph",
    "paras": "paragraph",
    "paragraph": "paragraph",
    "paragraphs": "paragraph",
    "par": "paragraph",
    "pars": "paragraph",
    "¶": "paragraph",
    "¶¶": "paragraph",
    "l": "line",
    "ll": "line",
    "line": "line",
    "lines": "line",
}
_PART = (
    r"(?P<kind>pp|pgs|pg|p|pages|page|paras|para|paragraphs|paragraph|pars|par|¶¶|¶|ll|l|lines|line)\.?"
    r"\s*(?P<a>\d+)(?:\s*(?:-|–|—|to)\s*(?P<b>\d+))?"
)
_WHOLE_PART = re.compile(rf"^\s*{_PART}\s*$", re.IGNORECASE)
_TRAILING_PART = re.compile(rf"^(?P<rest>.*?\S)\s+{_PART}\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class CiteSpec:
    """The place a citation names: a document and optional page, paragraph and line ranges."""

    document: str
    page_start: int | None = None
    page_end: int | None = None
    paragraph_start: int | None = None
    paragraph_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None

    @property
    def pinned(self) -> bool:
        """True when the citation names more than the document."""
        return any(v is not None for v in (self.page_start, self.paragraph_start, self.line_start))

    def pins(self) -> str:
        """The pin parts as CaseTrack writes them ("p. 12, para. 8, ll. 1-4"; "" for none)."""
        parts = []
        for start, end, one, many in (
            (self.page_start, self.page_end, "p.", "pp."),
            (self.paragraph_start, self.paragraph_end, "para.", "paras."),
            (self.line_start, self.line_end, "l.", "ll."),
        ):
            if start is None:
                continue
            last = end if end is not None else start
            parts.append(f"{one} {start}" if last == start else f"{many} {start}-{last}")
        return ", ".join(parts)

    def describe(self, document: str | None = None) -> str:
        """The citation in CaseTrack's form, with `document` (the resolved name) if given."""
        pins = self.pins()
        name = document or self.document
        return f"{name}, {pins}" if pins else name


def _ordered(a: int, b: int | None) -> tuple[int, int]:
    last = a if b is None else b
    return (a, last) if a <= last else (last, a)


def _with_part(spec: CiteSpec, kind: str, a: int, b: int | None) -> CiteSpec:
    start, end = _ordered(a, b)
    if kind == "page":
        return replace(spec, page_start=start, page_end=end)
    if kind == "paragraph":
        return replace(spec, paragraph_start=start, paragraph_end=end)
    return replace(spec, line_start=start, line_end=end)


def parse_citation(citation: str) -> CiteSpec:
    """The document and pins of a citation string (pins read from the right; see the module doc)."""
    pieces = citation.strip().split(",")
    spec = CiteSpec(document="")
    while pieces:
        m = _WHOLE_PART.match(pieces[-1])
        if m is None:
            break
        pieces.pop()
        kind = _KINDS[m["kind"].lower()]
        spec = _with_part(spec, kind, int(m["a"]), int(m["b"]) if m["b"] else None)
    name = ",".join(pieces).strip()
    while True:  # "Contract.pdf p. 12": a pin part glued to the name
        m = _TRAILING_PART.match(name)
        if m is None or "." not in m["rest"]:  # only after a file name with its extension
            break
        kind = _KINDS[m["kind"].lower()]
        spec = _with_part(spec, kind, int(m["a"]), int(m["b"]) if m["b"] else None)
        name = m["rest"].strip().rstrip(",").strip()
    return replace(spec, document=name)


def _range(name: str, start: int | None, end: int | None) -> tuple[int | None, int | None]:
    if start is None and end is None:
        return None, None
    first = start if start is not None else end
    assert first is not None
    if first < 1 or (end is not None and end < 1):
        raise CaseTrackError(
            f"{name} numbers start at 1, got {first if first < 1 else end}.",
            "Give the numbers as the citation prints them (p. 12, ll. 1-4).",
        )
    return _ordered(first, end)


def cite_spec(
    citation: str | None = None,
    document: str | None = None,
    page: int | None = None,
    paragraph: int | None = None,
    line_start: int | None = None,
    line_end: int | None = None,
) -> CiteSpec:
    """One citation from a citation string and/or structured fields; the fields win over the
    string's parts (a string with only pins, "p. 12, ll. 1-4", takes its document from `document`)."""
    spec = parse_citation(citation) if citation and citation.strip() else CiteSpec(document="")
    if document and document.strip():
        spec = replace(spec, document=document.strip())
    if page is not None:
        first, _ = _range("Page", page, None)
        spec = replace(spec, page_start=first, page_end=first)
    if paragraph is not None:
        first, _ = _range("Paragraph", paragraph, None)
        spec = replace(spec, paragraph_start=first, paragraph_end=first)
    if line_start is not None or line_end is not None:
        first, last = _range("Line", line_start, line_end)
        spec = replace(spec, line_start=first, line_end=last)
    if not spec.document:
        raise CaseTrackError(
            "The citation names no document.",
            "Give a citation such as 'Contract.pdf, p. 12, ll. 1-4', or the document name.",
        )
    return spec
