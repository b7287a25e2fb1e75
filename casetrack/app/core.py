"""The application core shared by the CLI, the daemon's `Service` and (through it) the MCP tools.

Owns the registry, opens case stores, holds the embedder pool and the search runtime once per
process, and runs the operations users ask for. Built from `Settings` at the entry point; no
globals. LanceDB, tantivy, parsers and onnxruntime are imported on first use, so a process that
has not opened a case stays small (~20 MB instead of ~160 MB with LanceDB and pyarrow loaded).
Every public method returns a typed record (domain/views.py, or the layer's own dataclass).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typing_extensions import Unpack

from casetrack.app.audit import ENV_AUDIT_QUERIES, AuditLog
from casetrack.config import Settings
from casetrack.domain.cases import CaseSettings, CaseStatus, DocumentSort, NearDuplicates
from casetrack.domain.views import (
    CaseSummary,
    ChronologyJson,
    ChunkView,
    DocumentDetails,
    DocumentSummary,
    StatusReport,
)
from casetrack.logsafe import safe_for_log
from casetrack.private_temp import PrivateTemp
from casetrack.store.registry import CaseRecord, CaseRegistry
from casetrack.store.store_errors import store_errors

if TYPE_CHECKING:
    from casetrack.domain import SearchResponse
    from casetrack.domain.views import VerifyJson
    from casetrack.embed.protocols import EmbedderPool
    from casetrack.ingest.pipeline import FileResult, Progress
    from casetrack.ingest.reembed import ReembedReport
    from casetrack.parse.isolated import IsolatedParser
    from casetrack.search.entities.mentions import EntityResult
    from casetrack.search.filters import SearchFilters
    from casetrack.search.ranking.request import SearchOptions
    from casetrack.search.ranking.runtime import SearchRuntime
    from casetrack.store.case_check import CheckReport
    from casetrack.store.case_store import CaseStore
    from casetrack.store.lance_tables import LanceTables
    from casetrack.view.records import PageView
    from casetrack.view.targets import ViewRequest
    from casetrack.view.views import PageViews

log = logging.getLogger(__name__)

FileCallback = Callable[[int, int, Path], None]


class CaseTrack:
    def __init__(self, settings: Settings, isolate_parsing: bool = False) -> None:
        """`isolate_parsing`: parse files in a child process (the daemon: searches on other
        threads must not wait on a pure-Python parser holding the GIL, and a hostile file
        must not take the process down)."""
        self.settings = settings
        self._parser: IsolatedParser | None = None
        if isolate_parsing:
            from casetrack.parse.isolated import IsolatedParser

            self._parser = IsolatedParser()
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        # OCR's page images, LanceDB's and Python's temporary files: inside the data folder, 0700
        self.temp = PrivateTemp(settings.data_dir)
        self.temp.start()
        self.registry = CaseRegistry(settings.registry_path, settings.cases_dir)
        self._pool: EmbedderPool | None = None
        self._search_runtime: SearchRuntime | None = None
        self._page_views: PageViews | None = None
        # One LanceDB dataset handle per case for the life of the process: reopening it for every
        # search reloads its indexes from disk (~100 ms for a 100k-chunk vector index).
        self._lance: dict[str, LanceTables] = {}
        self.audit = AuditLog(settings.logs_dir / "audit.log", os.environ.get(ENV_AUDIT_QUERIES) == "1")

    def close(self) -> None:
        if self._parser is not None:
            self._parser.close()
        if self._search_runtime is not None:
            self._search_runtime.close()
        self.registry.close()
        self.temp.stop()

    # -- process-wide resources ------------------------------------------------------------------

    @property
    def pool(self) -> EmbedderPool:
        """The process's embedder pool (built on first use: `case list` never loads onnxruntime)."""
        if self._pool is None:
            from casetrack.embed.pool import EncoderPool

            self._pool = EncoderPool(self.settings.models_dir, self.settings.memory_mode)
        return self._pool

    @property
    def loaded_pool(self) -> EmbedderPool | None:
        """The pool if something already built it (status reports must not load models)."""
        return self._pool

    @property
    def search_runtime(self) -> SearchRuntime:
        """Read threads and the query-vector cache shared by this process's searches."""
        if self._search_runtime is None:
            from casetrack.search.ranking.runtime import SearchRuntime

            self._search_runtime = SearchRuntime()
        return self._search_runtime

    @property
    def page_views(self) -> PageViews:
        """The page view's operations and this process's cache of page geometry (view/views.py)."""
        if self._page_views is None:
            from casetrack.view.views import PageViews

            self._page_views = PageViews(self.settings.ocr_languages)
        return self._page_views

    # -- cases --------------------------------------------------------------------------------

    def create_case(self, name: str, case_type: str = "other", language: str = "en") -> CaseRecord:
        return self.registry.create(name, case_type, language)

    def open_case(self, name_or_id: str, recover: bool = True) -> CaseStore:
        """Open a case for reading; finishes an interrupted write if no writer is running (and
        `recover`)."""
        from casetrack.store.case_store import CaseStore
        from casetrack.store.lance_tables import LanceTables

        record = self.registry.get(name_or_id)
        case_dir = self.registry.case_dir(record.id)
        if not case_dir.is_dir():
            self._lance.pop(record.id, None)
        elif record.id not in self._lance:
            self._lance[record.id] = LanceTables(case_dir / "lance")
        store = CaseStore(record, case_dir, self._lance.get(record.id))
        if recover and store.needs_recovery() and store.lock.try_acquire():
            try:
                store.recover()
            finally:
                store.lock.release()
        return store

    @contextmanager
    def reading(self, name_or_id: str) -> Iterator[CaseStore]:
        """A case opened for reading, closed afterwards. A case at an older version of the stored
        data is upgraded on open (store/migrations) unless another process writes it: then this
        says what to wait for (reads assume the current version)."""
        with store_errors(self.registry, name_or_id):
            store = self.open_case(name_or_id)
            try:
                store.require_current()
                yield store
            finally:
                store.close()

    @contextmanager
    def writing(self, name_or_id: str, wait: float = 0.0) -> Iterator[CaseStore]:
        """Open a case as its single writer: lock, recover, yield, release."""
        with store_errors(self.registry, name_or_id):
            store = self.open_case(name_or_id)
            try:
                store.record.require_writable()
                store.lock.acquire(timeout=wait)
                store.recover()
                yield store
                self.registry.touch(store.record.id)
            finally:
                store.close()

    def delete_case(self, name_or_id: str) -> CaseRecord:
        with self.writing_any_status(name_or_id) as store:
            record = store.record
        self._lance.pop(record.id, None)
        self.registry.delete(record.id)
        return record

    @contextmanager
    def writing_any_status(self, name_or_id: str) -> Iterator[CaseStore]:
        store = self.open_case(name_or_id)
        try:
            store.lock.acquire()
            yield store
        finally:
            store.close()

    def set_status(self, name_or_id: str, status: CaseStatus) -> CaseRecord:
        record = self.registry.get(name_or_id)
        self.registry.set_status(record.id, status)
        return self.registry.get(record.id)

    def case_summary(self, name_or_id: str) -> CaseSummary:
        from casetrack.store.documents import case_document

        with self.reading(name_or_id) as store:
            docs = store.documents()
            return {
                **store.record.to_json(),
                "directory": str(store.dir),
                "embedding_model": store.case_info().get("embedding_model"),
                "document_count": len(docs),
                "page_count": sum(int(e.meta.get("page_count") or 0) for e in docs),
                "chunk_count": sum(e.expected_chunks for e in docs),
                "in_progress": [e.name for e in store.journal.unfinished()],
                "documents": [case_document(e) for e in docs],
                "settings": store.settings(),
                "schema_version": store.schema_version(),
            }

    def set_case_settings(self, name_or_id: str, keep_revoked: bool | None = None) -> CaseSettings:
        """Change a case's own settings (None leaves one as it is); returns them all."""
        changes = {"keep_revoked": keep_revoked} if keep_revoked is not None else {}
        with self.writing(name_or_id) as store:
            return store.update_settings(**changes)

    # -- documents and passages ------------------------------------------------------------------

    def list_documents(
        self, case: str, sort_by: DocumentSort = "date", near_duplicates: NearDuplicates = "show"
    ) -> list[DocumentSummary]:
        from casetrack.store.documents import list_documents

        with self.reading(case) as store:
            return list_documents(store, sort_by, near_duplicates)

    def document_details(self, case: str, document: str, *, exact: bool = False) -> DocumentDetails:
        """A document's details; `document` is its id, name or a unique fragment of its name, or
        with `exact` (before a deletion) only its id or whole name."""
        from casetrack.store.documents import document_details, resolve_document, resolve_exactly

        with self.reading(case) as store:
            entry = resolve_exactly(store, document) if exact else resolve_document(store, document)
            return document_details(store, entry)

    def delete_document(self, case: str, document: str) -> str:
        """Remove a document from a case, an e-mail with its attachments; returns its name.
        `document` is its id or whole name: a deletion never guesses (a near match is only named
        in the error)."""
        from casetrack.ingest.attachments import delete_with_attachments
        from casetrack.store.documents import resolve_exactly

        with self.writing(case) as store:
            entry = resolve_exactly(store, document)
            delete_with_attachments(store, entry.doc_id)
            return entry.name

    def get_chunk(
        self, case: str, chunk_id: str, neighbours: int = 1, query: str | None = None, client: str = "cli"
    ) -> ChunkView:
        """A chunk with its neighbours; with `query`, `citation`/`source` are the pin-cite of the
        lines that answer it and `chunk_citation`/`chunk_source` the chunk's."""
        from casetrack.search.pincite.hit import pin_chunk_view
        from casetrack.store.chunk_view import get_chunk

        started = time.perf_counter()
        with self.reading(case) as store:
            view = get_chunk(store, chunk_id, neighbours)
            view = pin_chunk_view(store, view, query) if query and query.strip() else view
            self._audit(client, store.record.name, "get_chunk", 1, started, query)
            return view

    def page_view(self, case: str, request: ViewRequest, client: str = "cli") -> PageView:
        """A cited page: its lines, the cited ones marked and placed on the page (casetrack/view/)."""
        started = time.perf_counter()
        with self.reading(case) as store:
            view = self.page_views.page_view(store, request)
            self._audit(client, store.record.name, "get_page_view", 1, started, None)
            return view

    def page_image(self, case: str, document: str, page_index: int, width: int) -> bytes:
        """A page of a document's original drawn as PNG (for the page view)."""
        with self.reading(case) as store:
            return self.page_views.page_image(store, document, page_index, width)

    def highlighted_page(self, case: str, request: ViewRequest, width: int) -> bytes:
        """A cited page as PNG with its cited lines highlighted (`casetrack show --out`)."""
        with self.reading(case) as store:
            return self.page_views.highlighted_png(store, request, width)

    def find_entity(
        self,
        case: str,
        entity: str,
        entity_type: str = "any",
        top_k: int = 20,
        client: str = "cli",
        filters: SearchFilters | None = None,
    ) -> EntityResult:
        """Every mention of `entity` (search/entities.py), inside the documents `filters` allow."""
        from casetrack.search.entities.mentions import EntityResult as Empty
        from casetrack.search.entities.mentions import find_entity
        from casetrack.search.filters import filter_documents

        started = time.perf_counter()
        with self.reading(case) as store:
            doc_ids = filter_documents(store, filters) if filters is not None else None
            if doc_ids is not None and not doc_ids:
                empty = Empty(entity.strip(), entity_type, store.record.name, entity.strip(), False)
                empty.warnings.append("No document in this case matches the filters.")
                return empty
            found = find_entity(store, entity, entity_type, top_k, doc_ids)
            self._audit(client, store.record.name, "find_entity", len(found.documents), started, entity)
            return found

    def authorities(
        self, case: str, top_k: int = 50, kind: str | None = None, client: str = "cli"
    ) -> dict[str, Any]:
        """The case's table of authorities (search/authorities.py), most cited first."""
        from casetrack.search.entities.authorities import KINDS, list_authorities

        if kind is not None and kind not in KINDS:
            from casetrack.errors import CaseTrackError

            raise CaseTrackError(f"Unknown kind of authority {kind!r}.", f"Use one of: {', '.join(KINDS)}.")
        started = time.perf_counter()
        with self.reading(case) as store:
            shown, total = list_authorities(store, top_k, kind=kind)
            self._audit(client, store.record.name, "list_authorities", len(shown), started, None)
            return {
                "case": store.record.name,
                "total": total,
                "shown": len(shown),
                "authorities": [a.to_json() for a in shown],
            }

    def chronology(
        self,
        case: str,
        date_from: str | None = None,
        date_to: str | None = None,
        documents: Sequence[str] = (),
        query: str | None = None,
        offset: int = 0,
        max_events: int | None = None,
        client: str = "cli",
    ) -> ChronologyJson:
        """The case's dated events, sorted (search/chronology/): inside `documents` when given,
        dated `date_from`..`date_to`, and with `query` only those in the passages a search finds
        for it (app/chronology.py)."""
        from casetrack.app.chronology import QUERY_DEPTH, check_range, page_of, topic_chunks
        from casetrack.search.chronology.build import build_chronology
        from casetrack.search.filters import SearchFilters
        from casetrack.store.documents import resolve_documents

        date_from, date_to = check_range(date_from, date_to)
        topic = query.strip() if query and query.strip() else None
        chunk_ids = None
        if topic:
            filters = SearchFilters(documents=tuple(documents))
            found = self.search(case, topic, client=client, top_k=QUERY_DEPTH, filters=filters)
            chunk_ids = topic_chunks(found.hits)
        started = time.perf_counter()
        with self.reading(case) as store:
            doc_ids = resolve_documents(store, list(documents)) if documents else None
            built = build_chronology(store, doc_ids, date_from, date_to, chunk_ids)
            self._audit(client, store.record.name, "build_chronology", len(built.events), started, topic)
            return page_of(store.record.name, built, offset, max_events, topic, date_from, date_to)

    def _audit(
        self, client: str, case: str, tool: str, results: int, started: float, query: str | None
    ) -> None:
        self.audit.record(client, case, tool, results, (time.perf_counter() - started) * 1000, query)

    # -- ingest, search, status -----------------------------------------------------------------

    def ingest(
        self,
        case: str,
        paths: Sequence[Path],
        force: bool = False,
        password: str | None = None,
        on_file: FileCallback | None = None,
        progress: Progress | None = None,
        on_result: Callable[[FileResult], None] | None = None,
        wait: float = 0.0,
    ) -> list[FileResult]:
        """Ingest `paths` into `case` as its single writer. `on_result` sees each file's result
        as soon as it is committed; `wait` is how long to wait for another writer to finish."""
        from casetrack.app.ingesting import ingest_files

        try:
            with self.writing(case, wait=wait) as store:
                parse = self._parser.parse if self._parser is not None else None
                keep_revoked = self.settings.keep_revoked or store.settings()["keep_revoked"]
                return ingest_files(
                    store,
                    self.pool,
                    parse,
                    paths,
                    force,
                    password,
                    on_file,
                    progress,
                    on_result,
                    self.settings.ocr_languages,
                    keep_revoked,
                )
        finally:
            self.temp.clean()  # what a tesseract killed at its deadline left

    def check_case(self, case: str, repair: bool = False) -> CheckReport:
        """Compare the case's stores (store/case_check.py); with `repair`, recover and check again."""
        from casetrack.store.case_check import check_case, repair_case

        with store_errors(self.registry, case):  # what the check itself cannot read: one clear message
            store = self.open_case(case, recover=False)
            try:
                if not repair:
                    return check_case(store)
                store.lock.acquire()
                report = repair_case(store)
                case_dir = store.dir
            finally:
                store.close()
        from casetrack.app.ingesting import ingest_lost_again

        def check_again() -> CheckReport:
            with self.reading(case) as store:
                return check_case(store)

        return ingest_lost_again(case_dir, report, lambda paths: self.ingest(case, paths), check_again)

    def ocr_targets(self, case: str, documents: Sequence[str] = ()) -> list[Path]:
        """The files `casetrack reocr` ingests again (see app/ingesting.py: ocr_targets)."""
        from casetrack.app.ingesting import ocr_targets

        with self.reading(case) as store:
            return ocr_targets(store, documents, self.settings.ocr_languages)

    def reembed(
        self,
        case: str,
        everything: bool = False,
        on_document: Callable[[int, int, str], None] | None = None,
        progress: Progress | None = None,
    ) -> ReembedReport:
        """Re-embed a case's stale (or all) embeddings with the installed models."""
        from casetrack.ingest.reembed import reembed_case

        with self.writing(case) as store:
            report = reembed_case(store, self.pool, everything, on_document, progress)
            if report.reembedded:  # every document was rewritten: compact and re-index, as after ingest
                for step in store.lance.maintain():
                    log.info("case %s: %s", safe_for_log(store.record.name), step)
            return report

    def status(self, case: str | None = None) -> StatusReport:
        """Memory tier, models per slot and, for a case, what search will skip and why."""
        from casetrack.app.status import status_report

        cases = len(self.registry.list())
        if case is None:
            return status_report(self.pool, self.settings, cases)
        with self.reading(case) as store:
            return status_report(self.pool, self.settings, cases, store)

    def search(
        self, case: str, query: str, client: str = "cli", **options: Unpack[SearchOptions]
    ) -> SearchResponse:
        """Ranked passages of `case` for `query` (search/ranking/pipeline.py); `options` are the
        request's other fields (top_k, documents, offset, config, filters, context_chars,
        per_document, keywords, likely_wording)."""
        from casetrack.app.searching import group_near_duplicates, run_search
        from casetrack.search.ranking.request import SearchRequest

        request = SearchRequest.of(query, **options)
        started = time.perf_counter()
        with self.reading(case) as store:
            response = run_search(store, self.pool, self.search_runtime, request)
            if request.filters.near_duplicates == "group":
                response = group_near_duplicates(store, response)
            self._audit(client, store.record.name, "search", len(response.hits), started, query)
            return response

    def verify_citation(
        self,
        case: str,
        quote: str,
        citation: str | None = None,
        document: str | None = None,
        page: int | None = None,
        paragraph: int | None = None,
        line_start: int | None = None,
        line_end: int | None = None,
        client: str = "cli",
    ) -> VerifyJson:
        """Is `quote` at the cited place? exact / close / elsewhere / not_found (search/verify.py)."""
        from casetrack.app.verifying import verify_quote

        started = time.perf_counter()
        with self.reading(case) as store:
            verdict = verify_quote(store, quote, citation, document, page, paragraph, line_start, line_end)
            self._audit(client, store.record.name, "verify_citation", 1, started, quote)
            return verdict
