"""A cited page built for viewing: the stored lines of the page, the cited ones marked, each
placed on the page as the original lays it out (view/geometry.py, matched by view/align.py).

The text comes from the case (the stored chunks of the page, search/citecheck/cited_text.py
rebuilds it), so what is shown is what is cited; only the positions come from the original.
When the original is gone, changed since ingest (another SHA-256) or cannot be drawn (a
password, a format without pages), the page is shown as its text laid out with its line
numbers, and `warnings` says why and what brings the picture back.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casetrack.errors import CaseTrackError, Fix
from casetrack.search.citecheck.cited_text import TEXT_COLUMNS, document_where, page_from_rows
from casetrack.store.case_store import CaseStore
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import CHUNKS
from casetrack.view.align import align_lines
from casetrack.view.geometry import PageGeometry
from casetrack.view.records import PageView, ViewLine

log = logging.getLogger(__name__)

VIEW_COLUMNS = [*TEXT_COLUMNS, "bates", "extraction_method", "line_confidences", "ocr_confidence"]
DRAWN_TYPES = ("pdf", "image")  # file types whose pages are drawn; the others are laid out as text

# (original, file type, page index, OCR?) -> the page's geometry (view/views.py caches them).
GeometryReader = Callable[[Path, str, int, bool], PageGeometry]


@dataclass(frozen=True)
class Cited:
    """Which lines of the page are cited: a character span of the page's text, or line numbers
    (a citation string gives only those); neither: none (a page stepped to)."""

    char_start: int | None = None
    char_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None

    def covers(self, number: int, start: int, end: int) -> bool:
        if self.char_start is not None and self.char_end is not None:
            return start < max(self.char_end, self.char_start + 1) and end > self.char_start
        if self.line_start is not None:
            last = self.line_end if self.line_end is not None else self.line_start
            return self.line_start <= number <= last
        return False


@dataclass(frozen=True)
class StoredLine:
    number: int
    text: str
    start: int
    end: int
    confidence: float | None


@dataclass(frozen=True)
class StoredPage:
    """A page as the case stores it."""

    page: int | None
    lines: tuple[StoredLine, ...]
    bates: str | None
    extraction_method: str
    transcript: str | None


def page_rows(store: CaseStore, entry: JournalEntry, page_index: int) -> list[dict[str, Any]]:
    """The stored chunk rows of one page of a document (its committed generation)."""
    table = store.lance.table(CHUNKS)
    if table is None:
        return []
    where = document_where(entry, f"page_index = {int(page_index)}")
    n = int(table.count_rows(where))
    if n == 0:
        return []
    rows: list[dict[str, Any]] = (
        table.search().where(where).select(list(VIEW_COLUMNS)).limit(n).to_arrow().to_pylist()
    )
    return rows


def _confidences(rows: list[dict[str, Any]]) -> dict[int, float]:
    """Page offset of each OCR'd line's start -> its mean word confidence."""
    out: dict[int, float] = {}
    for row in rows:
        stored = row.get("line_confidences")
        if not isinstance(stored, list | tuple) or not stored:
            continue
        text, offset = str(row["text"]), int(row["char_start"])
        starts, pos = [], 0
        for piece in text.split("\n"):
            if piece:
                starts.append(offset + pos)
            pos += len(piece) + 1
        if len(starts) == len(stored):
            out.update({s: float(c) for s, c in zip(starts, stored, strict=True)})
    return out


def stored_page(rows: list[dict[str, Any]]) -> StoredPage | None:
    """The page's lines (number, text, span) from its chunk rows; None for a page without text."""
    if not rows:
        return None
    text = page_from_rows(list[Mapping[str, Any]](rows))
    confidences = _confidences(rows)
    lines = tuple(
        StoredLine(
            n.number,
            text.text[n.start - text.base : n.end - text.base],
            n.start,
            n.end,
            confidences.get(n.start),
        )
        for n in text.lines
    )
    methods = {str(r.get("extraction_method") or "native") for r in rows}
    bates = next((str(r["bates"]) for r in rows if r.get("bates")), None)
    return StoredPage(
        text.page,
        lines,
        bates,
        "ocr" if "ocr" in methods else sorted(methods)[0],
        text.transcript,
    )


@functools.lru_cache(maxsize=64)
def _sha256(path: str, mtime_ns: int, size: int) -> str:
    from casetrack.ingest.files import sha256_file

    return sha256_file(Path(path))


def original_problem(entry: JournalEntry, case: str) -> str | None:
    """Why the original cannot be drawn (gone, changed since ingest), with the command that
    brings it back; None when it is there, unchanged."""
    source = entry.source_path
    again = Fix(
        "Ingest the file again from where it is now",
        cli=f'casetrack ingest --case "{case}" "<path of {entry.name}>"',
        tool="ingest_document",
        args={"case_name": case, "path": f"<path of {entry.name}>"},
    )
    if not source:
        return f"The original of {entry.name} was not recorded at ingest: the page is shown as its text."
    path = Path(source)
    try:
        st = os.stat(path)
    except OSError:
        return (
            f"The original of {entry.name} is no longer at {source} (moved or deleted): the page is shown "
            f"as its text. {again.for_cli()}"
        )
    if _sha256(str(path), st.st_mtime_ns, st.st_size) != entry.sha256:
        return (
            f"{entry.name} at {source} has changed since it was ingested: the page is shown as the case "
            f"stores it, as text. {again.for_cli()}"
        )
    return None


def _placed(page: StoredPage, geometry: PageGeometry, cited: Cited) -> tuple[ViewLine, ...]:
    """Each stored line with its box on the page (None where no read line matches it)."""
    matches = align_lines([ln.text for ln in page.lines], [g.text for g in geometry.lines])
    out = []
    for ln, k in zip(page.lines, matches, strict=True):
        geo = geometry.lines[k] if k is not None else None
        out.append(
            ViewLine(
                ln.number,
                ln.text,
                cited.covers(ln.number, ln.start, ln.end),
                geo.box if geo is not None else None,
                geo.pieces if geo is not None else (),
            )
        )
    return tuple(out)


def citation_of(entry: JournalEntry, page: StoredPage | None, lines: tuple[ViewLine, ...]) -> str:
    """The cited lines in CaseTrack's form (`Contract.pdf, p. 12, ll. 4-9`); "" when none is cited."""
    cited = [ln.number for ln in lines if ln.cited]
    if not cited:
        return ""
    parts = [entry.name]
    if page is not None and page.page is not None:
        parts.append(f"p. {page.page}")
    first, last = cited[0], cited[-1]
    parts.append(f"l. {first}" if first == last else f"ll. {first}-{last}")
    cite = ", ".join(parts)
    return f"{cite} ({page.bates})" if page is not None and page.bates else cite


def build_page_view(
    store: CaseStore,
    entry: JournalEntry,
    page_index: int,
    cited: Cited,
    geometry: GeometryReader,
) -> PageView:
    """The page `page_index` of `entry` with `cited` marked, drawn when its original can be."""
    meta: Mapping[str, Any] = entry.meta
    file_type = str(meta["file_type"]) if meta.get("file_type") else None
    count = int(meta.get("page_count") or 1)
    if not 0 <= page_index < max(count, 1):
        raise CaseTrackError(
            f"{entry.name} has {count} page{'s' if count != 1 else ''}; there is no page {page_index + 1}.",
            fix=Fix(
                "Give a page from 1 to the document's page count",
                cli=f'casetrack show --case "{store.record.name}" "{entry.name}, p. 1"',
                tool="get_page_view",
                args={"document": entry.name, "page": 1},
            ),
        )
    page = stored_page(page_rows(store, entry, page_index))
    lines = tuple(
        ViewLine(ln.number, ln.text, cited.covers(ln.number, ln.start, ln.end))
        for ln in (page.lines if page else ())
    )
    warnings: list[str] = []
    kind, width, height, unit, boxes_from = "text", None, None, None, None
    if file_type in DRAWN_TYPES:
        problem = original_problem(entry, store.record.name)
        if problem is None:
            ocr = page is not None and page.extraction_method == "ocr" or file_type == "image"
            try:
                geo = geometry(Path(str(entry.source_path)), file_type or "", page_index, ocr)
            except CaseTrackError as e:
                warnings.append(f"The page could not be drawn ({e.message}): it is shown as its text.")
            else:
                kind, width, height, unit, boxes_from = "image", geo.width, geo.height, geo.unit, geo.source
                if page is not None and geo.lines:
                    lines = _placed(page, geo, cited)
                missing = [ln.number for ln in lines if ln.cited and ln.box is None]
                if missing:
                    warnings.append(
                        f"Line{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} could not be placed "
                        "on the page image: read them in the text below it."
                    )
        else:
            warnings.append(problem)
    cited_conf = [
        ln.confidence
        for ln in (page.lines if page else ())
        if ln.confidence is not None and cited.covers(ln.number, ln.start, ln.end)
    ]
    all_conf = [ln.confidence for ln in (page.lines if page else ()) if ln.confidence is not None]
    confidence = cited_conf or all_conf
    return PageView(
        case=store.record.name,
        document=entry.name,
        document_id=entry.doc_id,
        file_type=file_type,
        page=page.page if page is not None else (page_index + 1 if file_type in DRAWN_TYPES else None),
        page_index=page_index,
        page_count=max(count, 1),
        citation=citation_of(entry, page, lines),
        bates=page.bates if page else None,
        ocr_confidence=round(sum(confidence) / len(confidence), 1) if confidence else None,
        extraction_method=page.extraction_method if page else "none",
        lines=lines,
        kind=kind,
        width=width,
        height=height,
        unit=unit,
        boxes_from=boxes_from,
        warnings=tuple(warnings),
    )
