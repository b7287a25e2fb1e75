"""The application core shared by the CLI (and, later, the daemon and MCP tools).

Owns the registry, opens case stores, holds the embedder pool once per process, and runs the
operations users ask for. Built from `Settings` at the entry point; no globals. LanceDB,
tantivy, parsers and onnxruntime are imported on first use, so a process that has not opened a
case stays small (~20 MB instead of ~160 MB with LanceDB and pyarrow loaded).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from casetrack.config import Settings
from casetrack.errors import CaseTrackError, ModelNotFoundError
from casetrack.store.registry import CaseRecord, CaseRegistry, CaseStatus

if TYPE_CHECKING:
    from casetrack.domain import SearchResponse
    from casetrack.ingest.pipeline import FileResult, Progress
    from casetrack.parse.isolated import IsolatedParser
    from casetrack.search.config import SearchConfig
    from casetrack.search.results import SearchFilters
    from casetrack.store.case_store import CaseStore

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
        self.registry = CaseRegistry(settings.registry_path, settings.cases_dir)
        self._pool: Any = None
        # One LanceDB dataset handle per case for the life of the process: reopening it for every
        # search reloads its indexes from disk (~100 ms for a 100k-chunk vector index).
        self._lance: dict[str, Any] = {}

    def close(self) -> None:
        if self._parser is not None:
            self._parser.close()
        self.registry.close()

    # -- models -------------------------------------------------------------------------------

    @property
    def pool(self) -> Any:
        """The process's EncoderPool (built on first use: `case list` never loads onnxruntime)."""
        if self._pool is None:
            from casetrack.embed.pool import EncoderPool

            self._pool = EncoderPool(self.settings.models_dir, self.settings.memory_mode)
        return self._pool

    def _mismatches(self, store: CaseStore) -> dict[str, str]:
        from casetrack.ingest.embedding import model_mismatches

        return model_mismatches(store.models(), self.pool, store.record.language, store.record.name)

    def _search_skips(self, store: CaseStore, mismatched: dict[str, str]) -> dict[str, str]:
        """slot -> why search cannot use it for this case: the memory tier, a missing model,
        vectors from other weights, or no vectors of that slot in the case yet."""
        skipped = {slot: why for slot, why in self.pool.search_slots(store.record.language).items() if why}
        skipped.update(mismatched)
        stored = store.models()
        for slot in ("E6", "E7", "E12"):
            if slot not in stored and slot not in skipped:
                skipped[slot] = f'this case has no {slot} vectors yet: casetrack reembed --case "{store.record.name}"'
        return skipped

    # -- cases --------------------------------------------------------------------------------

    def create_case(self, name: str, case_type: str = "other", language: str = "en") -> CaseRecord:
        return self.registry.create(name, case_type, language)

    def open_case(self, name_or_id: str) -> CaseStore:
        """Open a case for reading; finishes an interrupted write if no writer is running."""
        from casetrack.store.case_store import CaseStore
        from casetrack.store.lance_tables import LanceTables

        record = self.registry.get(name_or_id)
        case_dir = self.registry.case_dir(record.id)
        if not case_dir.is_dir():
            self._lance.pop(record.id, None)
        elif record.id not in self._lance:
            self._lance[record.id] = LanceTables(case_dir / "lance")
        store = CaseStore(record, case_dir, self._lance.get(record.id))
        if store.needs_recovery() and store.lock.try_acquire():
            try:
                store.recover()
            finally:
                store.lock.release()
        return store

    @contextmanager
    def writing(self, name_or_id: str, wait: float = 0.0) -> Iterator[CaseStore]:
        """Open a case as its single writer: lock, recover, yield, release."""
        store = self.open_case(name_or_id)
        try:
            if store.record.status != CaseStatus.ACTIVE:
                raise CaseTrackError(
                    f"Case '{store.record.name}' is {store.record.status.value} (read-only).",
                    f'Reopen it first: casetrack case reopen "{store.record.name}"',
                )
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

    def case_summary(self, name_or_id: str) -> dict[str, Any]:
        store = self.open_case(name_or_id)
        try:
            docs = store.documents()
            pending = [e.name for e in store.journal.unfinished()]
            info = store.case_info()
            return {
                **store.record.to_json(),
                "directory": str(store.dir),
                "embedding_model": info.get("embedding_model"),
                "document_count": len(docs),
                "page_count": sum(int(e.meta.get("page_count") or 0) for e in docs),
                "chunk_count": sum(e.expected_chunks for e in docs),
                "in_progress": pending,
                "documents": [
                    {
                        "document_id": e.doc_id,
                        "name": e.name,
                        "file_type": e.meta.get("file_type"),
                        "pages": e.meta.get("page_count"),
                        "chunks": e.expected_chunks,
                        "needs_ocr_pages": e.meta.get("needs_ocr_pages") or [],
                        "source_path": e.source_path,
                        "sha256": e.sha256,
                    }
                    for e in docs
                ],
            }
        finally:
            store.close()

    # -- documents and passages ------------------------------------------------------------------

    def list_documents(self, case: str, sort_by: str = "date") -> list[dict[str, Any]]:
        from casetrack.store.documents import list_documents

        store = self.open_case(case)
        try:
            return list_documents(store, sort_by)  # type: ignore[arg-type]
        finally:
            store.close()

    def document_details(self, case: str, document: str) -> dict[str, Any]:
        from casetrack.store.documents import document_details, resolve_document

        store = self.open_case(case)
        try:
            return document_details(store, resolve_document(store, document))
        finally:
            store.close()

    def delete_document(self, case: str, document: str) -> str:
        """Remove a document (name or id) from a case; returns its name."""
        from casetrack.store.documents import resolve_document

        with self.writing(case) as store:
            entry = resolve_document(store, document)
            store.delete_document(entry.doc_id)
            return entry.name

    def get_chunk(self, case: str, chunk_id: str, neighbours: int = 1) -> dict[str, Any]:
        from casetrack.store.chunk_view import get_chunk

        store = self.open_case(case)
        try:
            return get_chunk(store, chunk_id, neighbours)
        finally:
            store.close()

    def find_entity(self, case: str, entity: str, entity_type: str = "any", top_k: int = 20) -> dict[str, Any]:
        from casetrack.search.entities import find_entity

        store = self.open_case(case)
        try:
            return find_entity(store, entity, entity_type, top_k).to_json()
        finally:
            store.close()

    # -- ingest and search --------------------------------------------------------------------

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
        from casetrack.ingest.pipeline import Ingestor

        with self.writing(case, wait=wait) as store:
            mismatched = self._mismatches(store)
            if mismatched:
                raise CaseTrackError(
                    "The installed models differ from the ones this case was embedded with; new "
                    "documents would not be comparable with the old ones. "
                    + " ".join(mismatched.values()),
                    f'casetrack reembed --case "{store.record.name}"',
                )
            ingestor = Ingestor(store, self.pool, self._parser.parse if self._parser is not None else None)
            results: list[FileResult] = []
            for i, path in enumerate(paths):
                if on_file:
                    on_file(i, len(paths), path)
                kwargs = {"progress": progress} if progress else {}
                result = ingestor.ingest_file(path, force=force, password=password, **kwargs)
                log.info("%s: %s", path.name, result.status)
                results.append(result)
                if on_result:
                    on_result(result)
            if any(r.status in ("ingested", "replaced") for r in results):
                if progress:
                    progress("index", 0, 1)
                for step in store.lance.maintain():
                    log.info("case %s: %s", store.record.name, step)
                if progress:
                    progress("index", 1, 1)
            return results

    def reembed(
        self,
        case: str,
        everything: bool = False,
        on_document: Callable[[int, int, str], None] | None = None,
        progress: Progress | None = None,
    ) -> Any:
        """Re-embed a case's stale (or all) embeddings with the installed models."""
        from casetrack.ingest.reembed import reembed_case

        with self.writing(case) as store:
            report = reembed_case(store, self.pool, everything, on_document, progress)
            if report.reembedded:  # every document was rewritten: compact and re-index, as after ingest
                for step in store.lance.maintain():
                    log.info("case %s: %s", store.record.name, step)
            return report

    def status(self, case: str | None = None) -> dict[str, Any]:
        """Memory tier, models per slot and, for a case, what search will skip and why."""
        from casetrack import __version__
        from casetrack.store.lance_tables import SLOT_COLUMN, WINDOW_VECTORS

        pool = self.pool
        out: dict[str, Any] = {
            "version": __version__,
            "data_dir": str(self.settings.data_dir),
            "models_dir": str(self.settings.models_dir),
            "memory_mode": pool.tier.value,
            "memory_mode_reason": pool.tier_reason,
            "loaded_models": pool.loaded_models(),
            "cases": len(self.registry.list()),
        }
        languages = ["en", "pt"]
        if case is None:
            out["slots"] = {lang: [s.to_json() for s in pool.status(lang)] for lang in languages}
            return out
        store = self.open_case(case)
        try:
            language = store.record.language
            mismatched = self._mismatches(store)
            out["case"] = {
                "name": store.record.name,
                "language": language,
                "models": store.models(),
                "mismatched": mismatched,
                "chunks_missing": {slot: store.lance.count_missing(col) for slot, col in SLOT_COLUMN.items()},
                "search_skips": self._search_skips(store, mismatched),
                # Chunks embedded before E1 passage windows existed: `reembed` adds them.
                "windows_missing": store.lance.count_missing(WINDOW_VECTORS),
            }
            out["slots"] = {language: [s.to_json() for s in pool.status(language)]}
            return out
        finally:
            store.close()

    def search(
        self,
        case: str,
        query: str,
        top_k: int = 10,
        documents: list[str] | None = None,
        offset: int = 0,
        config: SearchConfig | None = None,
        filters: SearchFilters | None = None,
        context_chars: int = 0,
        per_document: bool = False,
    ) -> SearchResponse:
        from contextlib import ExitStack

        from casetrack.search.config import SearchConfig
        from casetrack.search.pipeline import search
        from casetrack.search.stages import QueryModels

        cfg = config or SearchConfig()
        store = self.open_case(case)
        try:
            language = store.record.language
            stored = store.models()
            skipped = self._search_skips(store, self._mismatches(store))
            lists = cfg.lists_for(language)
            wanted = {"E1": True, "E7": "e7" in lists, "E6": "sparse" in lists, "E12": cfg.rerank}
            with ExitStack() as stack:
                loaded: dict[str, Any] = {}
                for slot, want in wanted.items():
                    if want and slot not in skipped:
                        try:
                            loaded[slot] = stack.enter_context(self.pool.use(slot, language))
                        except ModelNotFoundError as e:
                            skipped[slot] = str(e)
                models = QueryModels(
                    dense=loaded.get("E1"),
                    e7=loaded.get("E7"),
                    sparse=loaded.get("E6"),
                    late=loaded.get("E12"),
                    late_codec=stored.get("E12", {}).get("codec"),
                    skipped=skipped,
                )
                response = search(
                    store, models, query, top_k, documents, offset, cfg, filters, context_chars, per_document
                )
            if "E1" in skipped:
                response.warnings.append(f"dense search (E1) skipped: {skipped['E1']}")
            return response
        finally:
            store.close()
