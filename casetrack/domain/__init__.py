"""Domain layer: the types every other layer shares (documents, provenance, search results, case vocabulary, model slots, the records surfaces render); it imports nothing of CaseTrack's above it."""

from casetrack.domain.cases import CASE_TYPES, LANGUAGES, CaseStatus, CaseType, Language
from casetrack.domain.document import (
    ExtractionMethod,
    FileType,
    Page,
    Paragraph,
    ParagraphKind,
    ParsedDocument,
    Span,
)
from casetrack.domain.provenance import ChunkDraft, Provenance
from casetrack.domain.search import DocumentHit, SearchHit, SearchResponse

__all__ = [
    "CASE_TYPES",
    "LANGUAGES",
    "CaseStatus",
    "CaseType",
    "ChunkDraft",
    "DocumentHit",
    "ExtractionMethod",
    "FileType",
    "Language",
    "Page",
    "Paragraph",
    "ParagraphKind",
    "ParsedDocument",
    "Provenance",
    "SearchHit",
    "SearchResponse",
    "Span",
]
