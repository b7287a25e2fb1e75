"""What a page view is asked for, resolved to a document, a page and the cited lines.

Every surface names a cited place its own way: a search result or a `get_chunk` answer by its
source (document id, page, character span), a `find_entity` mention and a `verify_citation`
answer by a citation string, `casetrack show` by a citation string or a chunk id. All become a
`Target`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from casetrack.errors import CaseTrackError, Fix
from casetrack.search.citecheck.citation import cite_spec
from casetrack.store.case_store import CaseStore
from casetrack.store.chunk_view import CHUNK_HINT
from casetrack.store.documents import resolve_document
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import CHUNKS, sql_str
from casetrack.view.page import Cited

# "Smith Dep. 45:3-12 (Smith_depo.pdf, p. 46, ABC0001)": the file and its page are in the brackets.
_TRANSCRIPT = re.compile(r"^[^(]*\d+:\d+(?:-\d+(?::\d+)?)?\s*\((?P<inner>[^()]+)\)\s*$")
# "Contract.pdf, p. 12, ll. 1-4 (ABC0001234)": a Bates stamp closes the citation.
_BATES = re.compile(r"\s*\((?P<stamp>[^()]*)\)\s*$")
_PAGE_PART = re.compile(r"^\s*pp?\.\s*\d", re.IGNORECASE)


@dataclass(frozen=True)
class ViewRequest:
    """A page view as asked for (every field optional; see `resolve`)."""

    citation: str | None = None
    chunk_id: str | None = None
    document: str | None = None
    page: int | None = None  # the page number as cited
    page_index: int | None = None  # 0-based (the view's own previous/next steps)
    char_start: int | None = None
    char_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None


@dataclass(frozen=True)
class Target:
    entry: JournalEntry
    page_index: int
    cited: Cited


def clean_citation(citation: str) -> str:
    """A citation as CaseTrack prints it, without what `cite_spec` does not read: a transcript's
    own cite before the file's (the file and page in brackets) and a closing Bates stamp."""
    text = " ".join(citation.split())
    m = _TRANSCRIPT.match(text)
    if m:
        inner = [p.strip() for p in m["inner"].split(",")]
        kept = [inner[0], *(p for p in inner[1:] if _PAGE_PART.match(p))]
        return ", ".join(kept)
    return _BATES.sub("", text)


def _page_index(store: CaseStore, entry: JournalEntry, page: int) -> int:
    """The 0-based index of the page cited as `page` (stored with the page's chunks)."""
    table = store.lance.table(CHUNKS)
    where = f"doc_id = {sql_str(entry.doc_id)} AND gen = {int(entry.gen)} AND page = {int(page)}"
    if table is not None:
        rows = table.search().where(where).select(["page_index"]).limit(1).to_arrow().to_pylist()
        if rows:
            return int(rows[0]["page_index"])
    return page - 1  # a page without text: paged formats number their pages from 1


def _from_chunk(store: CaseStore, chunk_id: str) -> Target:
    key = chunk_id.strip()
    row = store.lance.fetch_chunks([key]).get(key) if key else None
    visible = store.visible()
    if row is None or visible.get(str(row["doc_id"])) != int(row["gen"]):
        raise CaseTrackError(f"No chunk '{chunk_id}' in case '{store.record.name}'.", CHUNK_HINT)
    entry = resolve_document(store, str(row["doc_id"]))
    cited = Cited(char_start=int(row["char_start"]), char_end=int(row["char_end"]))
    return Target(entry, int(row["page_index"]), cited)


def resolve(store: CaseStore, request: ViewRequest) -> Target:
    """The document, page and cited lines `request` names (the fields given win over the
    citation string's parts, as in verify_citation)."""
    r = request
    if r.chunk_id and r.chunk_id.strip() and not (r.char_start is not None or r.line_start is not None):
        return _from_chunk(store, r.chunk_id)
    if r.citation and r.citation.strip():
        spec = cite_spec(clean_citation(r.citation), r.document, r.page, None, r.line_start, r.line_end)
        document, page, lines = spec.document, spec.page_start, (spec.line_start, spec.line_end)
    else:
        if not (r.document and r.document.strip()):
            raise CaseTrackError(
                "Say which page to show: a citation, a chunk id, or a document and page.",
                fix=Fix(
                    "Give the citation of a search result",
                    cli='casetrack show "Contract.pdf, p. 12, ll. 4-9"',
                    tool="get_page_view",
                    args={"citation": "Contract.pdf, p. 12, ll. 4-9"},
                ),
            )
        document, page, lines = r.document, r.page, (r.line_start, r.line_end)
    entry = resolve_document(store, document)
    if r.page_index is not None:
        index = r.page_index
    elif page is not None:
        index = _page_index(store, entry, page)
    else:
        index = 0
    if r.char_start is not None and r.char_end is not None:
        cited = Cited(char_start=r.char_start, char_end=r.char_end)
    else:
        cited = Cited(line_start=lines[0], line_end=lines[1])
    return Target(entry, index, cited)
