"""The records the application hands its surfaces (CLI `--json`, MCP structured output).

Their keys are an interface: add keys, never rename. Declared as TypedDicts (from
typing_extensions, which pydantic needs on Python 3.11) so the JSON the CLI prints and the MCP
tools return is the record itself, typed end to end, with no second copy of its shape.
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from casetrack.domain.cases import CaseSettings
from casetrack.domain.provenance import Provenance


class SourceJson(TypedDict):
    """A provenance as results give it (`source` in search results and get_chunk)."""

    document: str
    document_id: str
    page: int | None
    paragraph_start: int
    paragraph_end: int
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    extraction_method: str
    ocr_confidence: (
        float | None
    )  # OCR'd text: the cited lines' mean word confidence (0-100); null when native
    bates: str | None  # the page's production (Bates) stamp, when it carries one
    section: str | None  # statutes and structured texts: the structural path ("Lei 8.078/1990 › Art. 49")
    # Deposition and hearing transcripts: the document's cite label ("Smith Dep.", "Tr."), the
    # printed transcript page of the first and last cited line (line_start/line_end are then the
    # printed margin numbers; transcript_page_end null on one page) and the cite itself
    # ("Smith Dep. 45:3-12"); all null for other documents.
    transcript: str | None
    transcript_page: int | None
    transcript_page_end: int | None
    transcript_cite: str | None


def source_json(p: Provenance) -> SourceJson:
    return {
        "document": p.document,
        "document_id": p.document_id,
        "page": p.page,
        "paragraph_start": p.paragraph_start,
        "paragraph_end": p.paragraph_end,
        "line_start": p.line_start,
        "line_end": p.line_end,
        "char_start": p.char_start,
        "char_end": p.char_end,
        "extraction_method": p.extraction_method.value,
        "ocr_confidence": None if p.ocr_confidence is None else round(p.ocr_confidence, 1),
        "bates": p.bates,
        "section": p.section,
        "transcript": p.transcript if p.is_transcript else None,
        "transcript_page": p.transcript_page if p.is_transcript else None,
        "transcript_page_end": p.transcript_page_end if p.is_transcript else None,
        "transcript_cite": p.transcript_cite(),
    }


class CaseJson(TypedDict):
    """A case's registry record."""

    id: str
    name: str
    type: str
    language: str
    status: str
    created_at: float
    updated_at: float


class CaseDocument(TypedDict):
    """A committed document as the case's summary lists it (from the journal, no LanceDB read)."""

    document_id: str
    name: str
    file_type: str | None
    pages: int | None
    chunks: int
    needs_ocr_pages: list[int]
    source_path: str | None
    sha256: str
    ocr_pages: list[int]  # pages read by OCR


class DocumentLink(TypedDict):
    """Another document of the same case, linked to this one (an e-mail and its attachments)."""

    document_id: str
    name: str


class NearDuplicateJson(TypedDict):
    """The document a near-duplicate nearly copies (store/near_duplicates.py), and how closely."""

    document_id: str
    name: str
    similarity: float  # 0-1: share of the longer text's words the other holds in the same order
    words_changed: int
    lines_changed: int


class ThreadMessageJson(TypedDict):
    """An e-mail of a thread, as `documents info` lists them (oldest first)."""

    document_id: str
    name: str
    date: str | None  # ISO 8601
    sender: str
    subject: str


class DocumentSummary(CaseDocument):
    """A committed document as list_documents gives it."""

    id: str  # = document_id (the name the CLI's `documents list --json` promises; both stay)
    status: str  # "ingested", or "needs_ocr" when some of its pages still need OCR (`casetrack reocr`)
    ingested_at: str | None  # ISO 8601 UTC
    size_bytes: int | None
    # Legal metadata (read at ingest from the text and companion YAML files; None / [] when unknown)
    doc_type: str | None  # "contract", "acordao", "judgment" ... (casetrack/legal/doctype.py)
    doc_date: str | None  # the document's own date, YYYY-MM-DD
    process_numbers: list[str]
    tribunals: list[str]
    tags: list[str]
    attachment_of: (
        DocumentLink | None
    )  # an e-mail's attachment: the e-mail it came with (ingest/attachments.py)
    attachments: list[DocumentLink]  # an e-mail: its attachments, each a document of its own
    near_duplicate_of: NearDuplicateJson | None  # the document of the case this one nearly copies
    near_duplicates: list[DocumentLink]  # the documents that nearly copy this one


class ProcessNumberJson(TypedDict):
    """A CNJ process number a document holds, decoded (casetrack/legal/cnj.py)."""

    number: str  # canonical NNNNNNN-DD.AAAA.J.TR.OOOO
    valid: bool  # its check digits hold
    expected_check_digits: str  # what the other digits give (= DD when valid)
    tribunal: str | None  # decoded from J.TR: 8.26 -> "TJSP"
    segment: str  # the judiciary's segment ("Justiça Estadual" ...)
    problem: str | None  # why it cannot be right (wrong check digits), with what to do


class DocumentDetails(DocumentSummary):
    """One document in full (`get_document`, `casetrack case info --document`)."""

    extraction_method: str | None  # "native", "ocr", ... or "mixed"; None without chunks
    extraction_methods: dict[str, int]  # method -> chunk count
    source_exists: bool
    generation: int
    warnings: list[str]
    page_ocr_confidence: dict[str, float]  # page number -> its mean word confidence (0-100), OCR'd pages
    low_confidence_pages: list[int]  # OCR'd under 70: check them against the scan before quoting
    bates: list[str]  # the first and last Bates stamps of the document ([] when it carries none)
    parties: list[str]
    languages: list[str]
    fields: dict[str, Any]  # custom fields of the companion YAML files
    authorities: list[str]  # the authorities it cites most (canonical keys)
    process_checks: list[ProcessNumberJson]  # its CNJ numbers decoded, wrong check digits flagged
    thread: list[ThreadMessageJson]  # an e-mail: every message of its thread in the case, oldest first


class CaseSummary(CaseJson):
    """A case with its counts and documents (`case info --json`, get_case_info)."""

    directory: str
    embedding_model: str | None
    document_count: int
    page_count: int
    chunk_count: int
    in_progress: list[str]  # documents whose ingest has not finished
    documents: list[CaseDocument]
    settings: CaseSettings
    schema_version: int  # the version of the case's stored data (store/migrations)


class ChunkBrief(TypedDict):
    chunk_id: str
    text: str
    citation: str


class ChunkView(TypedDict):
    """A committed chunk with its citation and its neighbours in reading order."""

    chunk_id: str
    document: str
    document_id: str
    seq: int  # 0-based position in the document
    document_chunks: int
    text: str
    citation: str
    citation_short: str
    source: SourceJson
    before: list[ChunkBrief]
    after: list[ChunkBrief]
    # With a query: `citation`/`source` are the pin-cite for it, `snippet` its text, and these
    # the whole chunk's (without a query `citation`/`source` are the chunk's and these absent).
    snippet: NotRequired[str]
    chunk_citation: NotRequired[str]
    chunk_source: NotRequired[SourceJson]


class SlotStatusJson(TypedDict):
    slot: str
    purpose: str
    model: str | None
    fingerprint: str | None
    residency: str
    loaded: bool
    used_in_search: bool
    problem: str | None


class CaseModelStatus(TypedDict):
    """One case's models: fingerprints used, mismatches, missing vectors, skipped stages."""

    name: str
    language: str
    models: dict[str, dict[str, Any]]  # slot -> case.json record of the model used
    mismatched: dict[str, str]
    chunks_missing: dict[str, int]
    search_skips: dict[str, str]
    windows_missing: int


class MissingModelJson(TypedDict):
    """A model the memory mode would use that is not installed (status, search)."""

    slot: str
    purpose: str  # what the slot is for ("primary dense" ...)
    stage: str  # the search stage that runs without it
    model: str  # the catalog id a download installs for it
    languages: list[str]  # case languages it is missing for ("en", "pt")
    size_bytes: int | None  # the download's size, when the catalog knows every file's
    pinned: bool  # the catalog pins its revision and hashes (else a download needs allow_unpinned)


class ModelsFixJson(TypedDict):
    """How to install the missing models, in each surface's words."""

    cli: str  # the command that downloads them
    tool: str  # the MCP tool call that does the same
    offline_cli: str  # an air-gapped machine: import copied files
    offline_tool: str


class StatusReport(TypedDict):
    """`casetrack status --json` (and the app part of get_status)."""

    version: str
    data_dir: str
    models_dir: str
    models_source: (
        str  # how models_dir was found: explicit | data_dir | install | empty (config.MODELS_SOURCES)
    )
    models_install_dir: str  # where downloads and imports install models
    models_missing: list[MissingModelJson]  # what the memory mode would use and is not installed
    models_fix: ModelsFixJson | None  # None when nothing is missing
    memory_mode: str
    memory_mode_reason: str
    loaded_models: list[str]
    cases: int
    slots: dict[str, list[SlotStatusJson]]  # case language -> slots
    ocr: OcrStatusJson
    case: NotRequired[CaseModelStatus]


class OcrStatusJson(TypedDict):
    """Whether scanned pages and images can be read (tesseract), in `status --json`."""

    available: bool
    version: str | None
    languages: list[str]  # installed tesseract languages ("eng", "por", "osd", ...)
    problem: str | None  # what is missing (tesseract, a language) ...
    fix: str | None  # ... and the command that installs it


class ContextJson(TypedDict):
    before: str | None
    after: str | None


class HitJson(TypedDict):
    """One search result (`results` of `casetrack search --json` and search_case).

    `citation`/`source` are the pin-cite: the lines inside the chunk that answer the query, whose
    text (made readable) is `snippet`; `chunk_citation`/`chunk_source` are the whole chunk's
    range, whose text is `text`.
    """

    chunk_id: str
    text: str
    snippet: str
    score: float
    citation: str
    citation_short: str
    source: SourceJson
    chunk_citation: str
    chunk_source: SourceJson
    relevance: float | None  # 0-1, how well it answers the query (README: "Reading results")
    match: str  # relevance's label: exact | strong | good | weak | poor
    context: NotRequired[ContextJson]  # when neighbouring text was asked for
    matched: NotRequired[list[str]]  # terms and connectors: the text of each occurrence (first five)

    # near_duplicates="group": the near-duplicate documents whose results were folded into this one
    near_duplicates: NotRequired[list[str]]


class DocumentHitJson(TypedDict):
    document: str
    document_id: str
    score: float
    matching_chunks: int
    best: HitJson


class SearchJson(TypedDict):
    """`casetrack search --json` and search_case's structured output."""

    query: str
    case: str
    results: list[HitJson]
    stages_used: list[str]
    stages_skipped: dict[str, str]
    timings_ms: dict[str, float]
    warnings: list[str]
    no_good_match: bool  # the best result is weak: the case probably does not say that
    models_missing: list[str]  # slots this search ran without because their model is not installed
    keywords: list[str]  # the caller's alternative searches, as used
    likely_wording: str | None  # the caller's guess at the answer's wording, as used (never a finding)
    documents: NotRequired[list[DocumentHitJson]]  # the per-document view, when asked
    syntax: str  # how the query was read: plain | connectors
    expression: NotRequired[str]  # connectors: the expression as parsed, fully parenthesised
    total_matches: NotRequired[int]  # connectors: how many passages match in all


class DifferenceJson(TypedDict):
    """One word-level difference between a quote and the text (`verify_citation`)."""

    quote: str  # the quote's words ("" when the text has words the quote lacks)
    text: str  # the text's words ("" when the quote has words the text lacks)
    kind: str  # number | negation | modal | spelling | name | other


class VerifyJson(TypedDict):
    """`casetrack verify --json` and verify_citation's structured output.

    verdict: exact (the quote is at the cite), close (at the cite with small differences),
    elsewhere (in the case at another place: `found_at`), not_found. `differences` compare the
    quote with the text it was found in (at the cite for close, at `found_at` for elsewhere);
    `meaning_changes` lists the kinds among them that change what the text says (number,
    negation, modal).
    """

    case: str
    verdict: str
    message: str
    quote: str
    citation: str  # the citation as given (or built from the fields given)
    cite_resolved: str | None  # the place checked, with the document's full name
    cite_problem: str | None  # why the cited place could not be read (no such page...), else None
    text_at_cite: str
    text_at_cite_trimmed: bool  # a long cited place (a page) cut to the lines that best match
    found_at: str | None  # where the quote is (exact pin-cite); None when not found
    also_found_at: list[str]  # other places that hold it
    differences: list[DifferenceJson]
    meaning_changed: bool
    meaning_changes: list[str]
    similarity: float  # 0-1: the quote against the text it is compared with
    elapsed_ms: float


class ChronologyEventJson(TypedDict):
    """One dated event of a case's chronology (`casetrack chronology --json`, build_chronology)."""

    date: str  # ISO: "2021-03-05"; a month-precision date "2021-03"
    precision: str  # day | month
    date_text: str  # as the document writes it: "March 5, 2021", "no dia seguinte", "the date hereof"
    relative: (
        str | None
    )  # a relative date, resolved: document | same_day | next_day | later | day_of_month | next_month
    sentence: str  # the event: the sentence that holds the date (a table's row)
    citation: str  # the pin-cite of that sentence: "Contract.pdf, p. 2, para. 3, ll. 4-6"
    document: str
    document_id: str
    doc_type: str | None  # the document's legal type (contract, judgment, acordao, letter ...)
    doc_date: str | None  # the document's own date (YYYY-MM-DD), when its metadata has one
    chunk_id: str  # for get_chunk / `casetrack chunk`: the passage around the event
    source: SourceJson  # the sentence's page, paragraphs, lines and offsets


class ChronologyJson(TypedDict):
    """`casetrack chronology --json` and build_chronology's structured output."""

    case: str
    total: int  # events that match (before offset / max_events)
    shown: int
    offset: int
    events: list[ChronologyEventJson]
    documents: int  # documents read
    undated_documents: list[str]  # documents read that hold no dated event
    query: str | None  # --query: the events of the chunks a search found for it
    date_from: str | None
    date_to: str | None
