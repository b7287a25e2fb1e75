"""A quote checked against its citation (`casetrack verify`, verify_citation): the cite read from
a citation string and/or structured fields, then the text matching of search/verify.py."""

from __future__ import annotations

from casetrack.domain.views import VerifyJson
from casetrack.search.citecheck.citation import cite_spec
from casetrack.search.citecheck.verdict import verify_citation
from casetrack.store.case_store import CaseStore


def verify_quote(
    store: CaseStore,
    quote: str,
    citation: str | None = None,
    document: str | None = None,
    page: int | None = None,
    paragraph: int | None = None,
    line_start: int | None = None,
    line_end: int | None = None,
) -> VerifyJson:
    """The verdict on `quote` at the cited place; the fields given win over the string's parts."""
    spec = cite_spec(citation, document, page, paragraph, line_start, line_end)
    return verify_citation(store, quote, spec, citation)
