"""Statute-aware chunking (issue 15): in a statute (articles, paragraphs, incisos; sections of a
US code), chunks start at article boundaries where they can and each carries
its structural path ("Lei 8.078/1990 › Art. 49 › § único", "Section 4.2 › (a)"), which results
show and the keyword index holds. A contract's chunks carry the path of its articles and numbered
sections too ("Article V › (b)", "7.3 › (d)"), without moving any chunk boundary.

The structure is read over the whole document (a § on page 2 still belongs to the article that
began on page 1) by casetrack/legal/structure.py; a document of another type than
STRUCTURED_TYPES, or with fewer than MIN_UNITS articles or sections, is chunked as before.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

from casetrack.domain import ChunkDraft, ParsedDocument
from casetrack.legal.doctype import classify
from casetrack.legal.extract import PAGE_JOIN, detect_languages
from casetrack.legal.structure import StructUnit, find_structure, statute_title, unit_at

MIN_UNITS = 3  # articles / sections before a document counts as structured
# Document types chunked by their own articles (a decision that quotes a statute's articles at line
# starts is not one: casetrack/legal/doctype.py tells them apart). Contracts chunked at their
# sections measured worse (bench/RESULTS.md: CUAD span recall@5 .584 -> .553, lawyer EN MRR@10
# .667 -> .640), so they keep the plain chunking until a measured variant beats it.
STRUCTURED_TYPES = frozenset({"statute"})
# Document types whose chunks are only labelled with their unit's path ("Article V › (b)", "7.3 › (d)"):
# the chunk boundaries stay the plain ones (see above), the path is shown in results and indexed.
LABELLED_TYPES = frozenset({"contract", "amendment", "nda"})
_BREAK_KINDS = frozenset({"artigo", "article", "section", "clause"})
_MAX_CHARS = 3_000_000  # structure is read over at most this much of a document


@dataclass(frozen=True)
class StructurePlan:
    units: list[StructUnit]
    page_starts: list[int]  # each page's offset in the joined text
    breaks: dict[int, frozenset[int]]  # page index -> offsets where an article or section starts

    def label(self, drafts: list[ChunkDraft]) -> list[ChunkDraft]:
        """Each chunk with the path of the unit it starts in, and the last article it reaches
        when it runs over several ("Lei 8.078/1990 › Art. 49 – Art. 51")."""
        out = []
        for draft in drafts:
            if draft.page_index >= len(self.page_starts):
                out.append(draft)
                continue
            base = self.page_starts[draft.page_index]
            unit = unit_at(self.units, base + draft.char_start)
            if unit is None:
                out.append(draft)
                continue
            path = unit.path_text
            last = [
                u
                for u in self.units
                if u.kind in _BREAK_KINDS and base + draft.char_start < u.start < base + draft.char_end
            ]
            if last and last[-1].label not in unit.path:
                path = f"{path} – {last[-1].label}"
            out.append(replace(draft, section=path))
        return out


def structure_plan(doc: ParsedDocument, filename: str = "") -> StructurePlan | None:
    """The document's structure when it is a statute (STRUCTURED_TYPES: chunks break at its
    articles) or a contract (LABELLED_TYPES: no breaks, labels only), else None."""
    pages = [p.text for p in doc.pages]
    doc_type = classify(pages[:3], filename).type
    if doc_type not in STRUCTURED_TYPES | LABELLED_TYPES:
        return None
    starts, at = [], 0
    for text in pages:
        starts.append(at)
        at += len(text) + len(PAGE_JOIN)
    joined = PAGE_JOIN.join(pages)[:_MAX_CHARS]
    if not joined.strip():
        return None
    languages = detect_languages(joined[:20_000])
    language = languages[0] if languages else "en"
    units = find_structure(joined, language, statute_title(joined[:2_000]) if language == "pt" else None)
    heads = [u for u in units if u.kind in _BREAK_KINDS]
    if len(heads) < MIN_UNITS:
        return None
    breaks: dict[int, set[int]] = {}
    for unit in heads if doc_type in STRUCTURED_TYPES else ():
        page = bisect.bisect_right(starts, unit.start) - 1
        offset = unit.start - starts[page]
        text = pages[page]
        while offset < len(text) and text[offset].isspace():  # chunks start at the heading's first letter
            offset += 1
        breaks.setdefault(page, set()).add(offset)
    return StructurePlan(units, starts, {p: frozenset(o) for p, o in breaks.items()})
