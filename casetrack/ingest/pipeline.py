"""Ingest one file into a case: validate → parse → chunk → embed → commit to both stores.

Bad input never raises out of `ingest_file`: every problem becomes a `FileResult` with a
status, a one-line error and the next step, so a batch goes on. An e-mail's attachments and a
mailbox's messages are ingested as documents of their own (ingest/attachments.py); their results
are listed under the e-mail's or the mailbox's (`attachments`, `messages`).
"""

from __future__ import annotations

import logging
import shutil
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa

from casetrack.chunk.chunker import chunk_document
from casetrack.chunk.structure import structure_plan
from casetrack.domain import ChunkDraft, FileType, ParsedDocument
from casetrack.embed.protocols import EmbedderPool
from casetrack.errors import CaseTrackError, NoTextError, ParseError, ScanNotReadError
from casetrack.ingest import pending_ocr
from casetrack.ingest.attachments import Origin, clear_scratch, ingest_attachments, ingest_mailbox
from casetrack.ingest.embedding import ChunkEmbeddings, embed_chunks
from casetrack.ingest.files import sha256_file
from casetrack.ingest.legal_meta import email_fields, legal_metadata
from casetrack.logsafe import display_name, safe_for_log, storable
from casetrack.parse import parse_file
from casetrack.parse.email.headers import EmailHeaders
from casetrack.parse.email.parser import read_email
from casetrack.parse.email.parts import MessageParts
from casetrack.parse.email.sniff import sniff_mail
from casetrack.parse.options import LOW_CONFIDENCE, PageProgress, ParseOptions
from casetrack.privacy_fs import real_path
from casetrack.store.case_store import CaseStore
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import EMBEDDING_COLUMNS, chunk_schema
from casetrack.store.near_duplicates import LINK_KEY, SIGNATURE_KEY, NearDuplicateIndex
from casetrack.store.store_errors import disk_full_error

log = logging.getLogger(__name__)

# Stage callback: (stage, done, total). Stages: "parse" (page by page), "embed", "store".
Progress = Callable[[str, int, int], None]

LARGE_FILE_BYTES = 200 * 1024 * 1024


@dataclass
class FileResult:
    path: str
    name: str
    status: str  # ingested | replaced | duplicate | needs_ocr | error
    document_id: str | None = None
    file_type: str | None = None
    pages: int = 0
    chunks: int = 0
    needs_ocr_pages: list[int] = field(default_factory=list)
    ocr_pages: list[int] = field(default_factory=list)  # pages read by OCR
    ocr_confidence: float | None = None  # their mean word confidence (0-100)
    low_confidence_pages: list[int] = field(default_factory=list)  # OCR'd under LOW_CONFIDENCE: check them
    blank_pages: list[int] = field(
        default_factory=list
    )  # pages with no text at all (read, not waiting for OCR)
    bates: str | None = None  # the first and last Bates stamps ("ABC0001200 - ABC0001300")
    doc_type: str | None = None  # the legal document type (ingest/legal_meta.py), e.g. "contract", "acordao"
    doc_date: str | None = None  # the document's own date, YYYY-MM-DD
    duplicate_of: str | None = None
    # a near-copy of a document already in the case: document_id, name, similarity, words_changed, lines_changed
    near_duplicate_of: dict[str, Any] | None = None
    error: str | None = None
    error_code: str | None = None
    hint: str | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    attachments: list[dict[str, Any]] = field(default_factory=list)  # an e-mail: each attachment's result
    messages: list[dict[str, Any]] = field(default_factory=list)  # a mailbox: each message's result

    @property
    def ok(self) -> bool:
        return self.status in ("ingested", "replaced", "duplicate")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Parse(Protocol):
    """How a file is parsed: `parse_file` here, or the daemon's child process (parse/isolated.py)."""

    def __call__(self, path: Path, *, options: ParseOptions, on_page: PageProgress) -> ParsedDocument: ...


def _parse_here(path: Path, *, options: ParseOptions, on_page: PageProgress) -> ParsedDocument:
    return parse_file(path, options=options, on_page=on_page)


def _noop(stage: str, done: int, total: int) -> None:
    return None


class Ingestor:
    """Ingests files into one case (the caller holds its writer lock) with the process's pool."""

    def __init__(
        self,
        store: CaseStore,
        pool: EmbedderPool,
        parse: Parse | None = None,
        ocr_languages: str | None = None,
        keep_revoked: bool = False,
    ) -> None:
        """`parse`: how files are parsed (default: in this process; the daemon passes a child
        process's parser so a slow or hostile file never stalls searches). `ocr_languages`:
        tesseract's languages for scanned pages (default: the case's language; "" turns OCR off)."""
        from casetrack.ocr import ocr_languages as languages_for

        self.store = store
        self.pool = pool
        self._parse: Parse = parse or _parse_here
        self.language = store.record.language
        self.keep_revoked = keep_revoked
        self.ocr_languages = (
            languages_for(self.language) if ocr_languages is None else (ocr_languages or None)
        )
        # Chunk sizes are counted in E1 tokens, the model with the tightest use of its window.
        self.primary = pool.get("E1", self.language)
        self._near: NearDuplicateIndex | None = None  # the case's signatures, read on the first file

    def near_duplicates(self) -> NearDuplicateIndex:
        if self._near is None:
            self._near = NearDuplicateIndex(self.store.lance, self.store.documents())
        return self._near

    def ingest_file(
        self, path: Path, force: bool = False, password: str | None = None, progress: Progress = _noop
    ) -> FileResult:
        return self._run(path, force, password, progress, None)

    def ingest_contained(self, path: Path, origin: Origin, force: bool, progress: Progress) -> FileResult:
        """A document that came out of another file (an e-mail's attachment, a mailbox's message),
        written to `path` for the time of its ingest: named, linked and found again as `origin` says."""
        return self._run(path, force, None, progress, origin)

    def _run(
        self, path: Path, force: bool, password: str | None, progress: Progress, origin: Origin | None
    ) -> FileResult:
        started = time.monotonic()
        result = FileResult(
            path=origin.source_path if origin else storable(str(path)),
            name=origin.name if origin else display_name(path.name),
            status="error",
        )
        try:
            self._ingest_any(real_path(path.expanduser()), force, password, progress, result, origin)
        except ParseError as e:
            result.status = "needs_ocr" if isinstance(e, NoTextError) else "error"
            result.error, result.hint, result.error_code = e.message, e.hint, e.code
            if isinstance(e, ScanNotReadError):  # `casetrack reocr` takes it once OCR can run
                pending_ocr.add(
                    self.store.dir,
                    Path(origin.source_path) if origin else real_path(path.expanduser()),
                    e.message,
                )
        except CaseTrackError as e:
            result.error, result.hint, result.error_code = e.message, e.hint, "error"
        except MemoryError:
            result.error, result.error_code = (
                f"{path.name}: ran out of memory while processing it.",
                "too_large",
            )
            result.hint = "Split the file (e.g. by page ranges) and ingest the parts."
        except Exception as e:  # a parser bug on hostile input must not end the batch
            log.error("unexpected failure on %s:\n%s", safe_for_log(str(path)), traceback.format_exc())
            result.error = (
                f"{display_name(path.name)}: could not be processed ({type(e).__name__}: {str(e)[:200]})."
            )
            result.error_code = "internal"
            result.hint = "The file may be damaged; try re-saving it. The log has details."
        result.seconds = round(time.monotonic() - started, 3)
        return result

    def _ingest_any(
        self,
        path: Path,
        force: bool,
        password: str | None,
        progress: Progress,
        result: FileResult,
        origin: Origin | None,
    ) -> None:
        """A file, a mailbox (each message), or an e-mail and then its attachments."""
        if origin is None:
            clear_scratch(self.store.dir)
            if path.is_file() and sniff_mail(path) is FileType.MBOX:
                ingest_mailbox(self.store, self.ingest_contained, path, result, force, progress)
                return
        mail = self._ingest(path, force, password, progress, result, origin)
        if mail is not None and result.status in ("ingested", "replaced"):
            headers, parts = mail
            ingest_attachments(
                self.store,
                self.ingest_contained,
                parts,
                result,
                origin,
                email_fields(headers),
                force,
                progress,
            )

    def _ingest(
        self,
        path: Path,
        force: bool,
        password: str | None,
        progress: Progress,
        result: FileResult,
        origin: Origin | None,
    ) -> tuple[EmailHeaders, MessageParts] | None:
        """Store one document; returns an e-mail's headers and parts (its attachments come next)."""
        if not path.exists():
            raise CaseTrackError(f"{path} does not exist.", "Check the path (quote it if it has spaces).")
        if not path.is_file():
            raise CaseTrackError(f"{path} is not a file.", "Use `casetrack ingest-folder` for folders.")
        if path.stat().st_size > LARGE_FILE_BYTES:
            result.warnings.append(
                f"large file ({path.stat().st_size // (1 << 20)} MB): this may take a while"
            )

        sha = sha256_file(path)
        duplicate, existing = self._previous(path, sha, force, result, origin)
        if duplicate:
            return None
        doc_id = existing.doc_id if existing else uuid.uuid4().hex[:16]
        name = existing.name if existing else (origin.name if origin else self._unique_name(path))

        progress("parse", 0, 1)
        # Each OCR'd page is kept under the case until the document is stored: an ingest
        # interrupted half-way through a long scan resumes at the page it stopped on.
        cache = self.store.dir / "ocr" / sha
        options = ParseOptions(
            password=password,
            ocr_languages=self.ocr_languages,
            ocr_cache=str(cache),
            keep_revoked=self.keep_revoked,
        )
        parsed = self._parse(
            path, options=options, on_page=lambda done, total: progress("parse", done, total)
        )
        progress("parse", 1, 1)
        plan = structure_plan(parsed, path.name)  # statutes and structured texts: chunks start at articles
        drafts = chunk_document(parsed, self.primary.count_tokens, breaks=plan.breaks if plan else None)
        if plan is not None:
            drafts = plan.label(drafts)
        result.file_type = parsed.file_type.value
        result.pages = parsed.page_count
        result.needs_ocr_pages = parsed.needs_ocr_pages
        _ocr_report(parsed, result)
        result.warnings += list(parsed.warnings)
        if not drafts:
            shutil.rmtree(cache, ignore_errors=True)
            raise NoTextError(
                f"{path.name}: no text could be extracted.",
                "If it is a scan, check that OCR can run: `casetrack status`.",
            )

        mail = read_email(path) if parsed.file_type is FileType.EMAIL else None
        case = self.store.record.name
        embeddings = embed_chunks(self.pool, self.language, case, [d.text for d in drafts], progress)
        result.warnings += list(embeddings.missing.values())
        rows = chunk_rows(drafts, embeddings)
        legal, legal_warnings = legal_metadata(
            parsed,
            path,
            drafts,
            email=mail[0] if mail else None,
            inherited=origin.fields if origin else None,
            companions=origin.companions if origin else None,
        )
        result.warnings += legal_warnings
        result.doc_type, result.doc_date = legal.get("doc_type"), legal.get("doc_date")
        source = origin.source_path if origin else storable(str(path))
        document_row = _document_row(path, name, sha, parsed, len(drafts), embeddings, result)
        document_row.update({"legal": legal, "source_path": source, **(origin.meta if origin else {})})
        signature = self._near_duplicate(parsed, existing, document_row, result)
        if mail is not None:
            document_row["email"] = {
                **mail[0].to_json(),
                "attachments": [f.filename for f in mail[1].attachments],
            }
        progress("store", 0, 1)
        self._commit(path, doc_id, name, source, sha, rows, document_row, embeddings)
        shutil.rmtree(cache, ignore_errors=True)  # stored: the OCR'd pages live in the case now
        self._remember(doc_id, signature)
        pending_ocr.remove(self.store.dir, path)
        progress("store", 1, 1)
        result.status = "replaced" if existing else "ingested"
        result.document_id = doc_id
        result.name = name
        result.chunks = len(drafts)
        return mail

    def _near_duplicate(
        self, parsed: ParsedDocument, existing: JournalEntry | None, row: dict[str, Any], result: FileResult
    ) -> str:
        """The document's MinHash signature into its row, and the document it nearly copies, if any
        (store/near_duplicates.py), into its row and its result; returns the signature."""
        signature, near = self.near_duplicates().check(
            "\n".join(p.text for p in parsed.pages), existing.doc_id if existing else None
        )
        row[SIGNATURE_KEY] = signature
        if near is not None:
            row[LINK_KEY] = result.near_duplicate_of = near
        return signature

    def _remember(self, doc_id: str, signature: str) -> None:
        """A stored document's signature joins the batch's index (the next file may copy it)."""
        if (stored := self.store.journal.get(doc_id)) is not None:
            self.near_duplicates().add(stored, signature)

    def _commit(
        self,
        path: Path,
        doc_id: str,
        name: str,
        source: str,
        sha: str,
        rows: pa.Table,
        document_row: dict[str, Any],
        embeddings: ChunkEmbeddings,
    ) -> None:
        """The document into the case's stores; a store's failure (a full disk named as such)
        becomes the file's error, never the user's file blamed."""
        try:
            self.store.record_models({slot: use.to_json() for slot, use in embeddings.models.items()})
            self.store.commit_document(doc_id, name, source, sha, rows, document_row)
        except CaseTrackError:
            raise
        except Exception as e:  # the case's stores failed, not the user's file
            full = disk_full_error(
                e,
                self.store.dir,
                _space_needed(rows),
                display_name(path.name),
                f'casetrack ingest-folder --case "{self.store.record.name}" "{storable(str(path.parent))}"',
            )
            if full is not None:  # the journal keeps it pending: the next open rolls it back
                raise full from e
            log.error("storing %s failed: the case's store could not be written", safe_for_log(path.name))
            log.info("%s", traceback.format_exc())  # the store's own error: -v
            raise CaseTrackError(
                f"{path.name} was read, but the case's store could not be written (the log has the store's "
                "own error); your file is fine.",
                f'casetrack case check "{self.store.record.name}" --repair',
            ) from e

    def _previous(
        self, path: Path, sha: str, force: bool, result: FileResult, origin: Origin | None
    ) -> tuple[bool, JournalEntry | None]:
        """(whether the same bytes are in the case already and not forced: `result` says so, and the
        document this ingest replaces, if any)."""
        journal = self.store.journal
        same_content = journal.find_by_sha(sha)
        if same_content is not None and not force:
            result.status = "duplicate"
            result.document_id = same_content.doc_id
            result.duplicate_of = same_content.name
            result.hint = "Already in the case; use --force to ingest it again."
            return True, None
        if origin is not None:  # what it was last time, by its place in the e-mail or mailbox
            return False, journal.get(origin.doc_id) if origin.doc_id else None
        # a file: the same bytes or the same path, never another file's attachment
        return False, next(
            (e for e in (same_content, self._same_path(path)) if e and not _contained(e)), None
        )

    def _same_path(self, path: Path) -> JournalEntry | None:
        """The document ingested from `path` before (an e-mail's attachments share its path)."""
        entry = self.store.journal.find_by_path(storable(str(path)))
        if entry is None or not _contained(entry):
            return entry
        return next(
            (e for e in self.store.documents() if e.source_path == storable(str(path)) and not _contained(e)),
            None,
        )

    def _unique_name(self, path: Path) -> str:
        """The file name, qualified by its folder when another document already has it."""
        taken = {e.name for e in self.store.journal.all()}
        name = display_name(path.name)  # no control character, right-to-left mark or undecodable byte
        if name not in taken:
            return name
        qualified = f"{display_name(path.parent.name)}/{name}"
        return qualified if qualified not in taken else f"{qualified} ({uuid.uuid4().hex[:4]})"


def _space_needed(rows: pa.Table) -> int:
    """About the bytes a document's commit writes: its rows in LanceDB (text, vectors), written
    once and then again by the next compaction, the keyword index, the journal and manifests."""
    return 3 * int(rows.nbytes) + 2**20


def _contained(entry: JournalEntry) -> bool:
    """Whether the document came out of another file (an e-mail's attachment, a mailbox's message)."""
    return bool(entry.meta.get("attachment_of") or entry.meta.get("mailbox"))


def _ocr_report(parsed: ParsedDocument, result: FileResult) -> None:
    """The ingest report's OCR facts: pages OCR'd, their confidence, the ones to check, Bates
    (the document row takes them from here: store/documents.py shows them), and blank pages (no
    text at all, native or OCR'd; a page still waiting for OCR is not blank: it is unread)."""
    result.blank_pages = [
        p.number for p in parsed.pages if p.number is not None and not p.needs_ocr and not p.text.strip()
    ]
    ocr = [p for p in parsed.pages if p.extraction_method.value == "ocr" and p.number is not None]
    result.ocr_pages = [p.number for p in ocr if p.number is not None]
    scores = [p.ocr_confidence for p in ocr if p.ocr_confidence is not None]
    result.ocr_confidence = round(sum(scores) / len(scores), 1) if scores else None
    result.low_confidence_pages = [
        p.number
        for p in ocr
        if p.number is not None and p.ocr_confidence is not None and p.ocr_confidence < LOW_CONFIDENCE
    ]
    stamps = _bates_ends(parsed)
    result.bates = (stamps[0] if stamps[0] == stamps[-1] else " - ".join(stamps)) if stamps else None


def _bates_ends(parsed: ParsedDocument) -> list[str]:
    """The document's first and last Bates stamps ([] when it carries none)."""
    stamps = [p.bates for p in parsed.pages if p.bates]
    return stamps[:1] + stamps[-1:]


def chunk_rows(drafts: list[ChunkDraft], embeddings: ChunkEmbeddings) -> pa.Table:
    """LanceDB rows: text and provenance of each draft plus every embedding column computed."""
    columns: dict[str, list[Any]] = {
        "chunk_id": ["" for _ in drafts],  # assigned by the store with the generation
        "doc_id": ["" for _ in drafts],
        "gen": [0 for _ in drafts],
        "seq": [d.seq for d in drafts],
        "text": [d.text for d in drafts],
        "page": [d.page for d in drafts],
        "page_index": [d.page_index for d in drafts],
        "paragraph_start": [d.paragraph_start for d in drafts],
        "paragraph_end": [d.paragraph_end for d in drafts],
        "line_start": [d.line_start for d in drafts],
        "line_end": [d.line_end for d in drafts],
        "char_start": [d.char_start for d in drafts],
        "char_end": [d.char_end for d in drafts],
        "token_count": [d.token_count for d in drafts],
        "extraction_method": [d.extraction_method.value for d in drafts],
        "ocr_confidence": [d.ocr_confidence for d in drafts],
        "line_numbers": [list(d.line_numbers) for d in drafts],
        "line_confidences": [list(d.line_confidences) or None for d in drafts],
        "bates": [d.bates for d in drafts],
        "section": [d.section for d in drafts],
        "line_pages": [list(d.line_pages) or None for d in drafts],
        "transcript": [d.transcript if d.line_pages else None for d in drafts],
    }
    base = [f for f in chunk_schema(1) if f.name not in EMBEDDING_COLUMNS]
    arrays = [pa.array(columns[f.name], f.type) for f in base] + list(embeddings.columns.values())
    return pa.Table.from_arrays(arrays, schema=pa.schema(base + embeddings.fields))


def _document_row(
    path: Path,
    name: str,
    sha: str,
    parsed: ParsedDocument,
    chunks: int,
    emb: ChunkEmbeddings,
    result: FileResult,
) -> dict[str, Any]:
    return {
        "name": name,
        "source_path": storable(str(path)),
        "sha256": sha,
        "file_type": parsed.file_type.value,
        "size_bytes": path.stat().st_size,
        "page_count": parsed.page_count,
        "chunk_count": chunks,
        "needs_ocr_pages": parsed.needs_ocr_pages,
        "ocr_pages": result.ocr_pages,
        "page_ocr_confidence": {
            str(p.number): round(p.ocr_confidence, 1)
            for p in parsed.pages
            if p.number is not None and p.ocr_confidence is not None
        },
        "low_confidence_pages": result.low_confidence_pages,
        "bates": _bates_ends(parsed),
        "ingested_at": time.time(),
        "embed_model": emb.models["E1"].fingerprint,
        "embed_models": sorted(f"{slot}={use.fingerprint}" for slot, use in emb.models.items()),
        "warnings": result.warnings,
    }
