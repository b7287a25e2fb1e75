"""Structured outputs of the MCP tools (their `outputSchema`). Field names are an interface:
add fields, never rename. Nested records are the app's own (domain/views.py), as the CLI's
`--json` prints them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from casetrack.domain.views import CaseDocument, DocumentSummary, HitJson


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class CaseOut(_Out):
    id: str
    name: str
    type: str
    language: str
    status: str
    created_at: float
    updated_at: float
    document_count: int | None = None
    chunk_count: int | None = None
    page_count: int | None = None
    active: bool = False


class CaseListOut(_Out):
    cases: list[CaseOut]
    active_case: str | None = None
    status_filter: str = "active"


class CaseInfoOut(CaseOut):
    directory: str
    storage_bytes: int
    documents: list[CaseDocument]
    in_progress: list[str] = []


class DeletedOut(_Out):
    deleted: bool
    case: str
    document: str | None = None


class JobOut(_Out):
    id: str
    case_id: str
    case_name: str
    status: str
    done: int
    total: int
    current: str | None = None
    stage: str | None = None
    results: list[dict[str, Any]] = []
    error: str | None = None
    hint: str | None = None
    # ingest_folder: entries the folder walk left out (links out of the folder, loops, unreadable)
    skipped: list[dict[str, str]] = []


class JobListOut(_Out):
    jobs: list[JobOut]


class DocumentListOut(_Out):
    case: str
    documents: list[DocumentSummary]


class DocumentOut(_Out):
    case: str
    document_id: str
    name: str


class SearchOut(_Out):
    query: str
    case: str
    results: list[HitJson]
    no_good_match: bool = False
    keywords: list[str] = []
    likely_wording: str | None = None
    syntax: str = "plain"
    expression: str | None = None
    total_matches: int | None = None
    stages_used: list[str]
    stages_skipped: dict[str, str]
    timings_ms: dict[str, float]
    warnings: list[str]


class ChunkOut(_Out):
    case: str
    chunk_id: str
    text: str


class EntityOut(_Out):
    case: str
    entity: str
    entity_type: str
    documents: list[dict[str, Any]]


class AuthoritiesOut(_Out):
    case: str
    total: int
    shown: int
    authorities: list[dict[str, Any]]


class StatusOut(_Out):
    version: str
    data_dir: str
    memory_mode: str
    cases: int
    active_case: str | None = None
    daemon: dict[str, Any]


class PageViewOut(_Out):
    """get_page_view: a cited page (casetrack/view/records.py PageViewJson)."""

    case: str
    document: str
    document_id: str
    page: int | None
    page_index: int
    page_count: int
    citation: str
    kind: str
    lines: list[dict[str, Any]]
    highlights: list[list[float]]
    warnings: list[str]


class PageImageOut(_Out):
    """get_page_image: which page the PNG (the tool's image content) shows."""

    document_id: str
    page_index: int
    width: int
    mime_type: str
