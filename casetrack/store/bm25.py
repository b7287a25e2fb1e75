"""The tantivy BM25 index of one case: derived from LanceDB, rebuilt from it when needed.

User text never reaches tantivy's query parser (it raises on `O'Brien`, `Art. 5: see`, an
unbalanced quote...). Queries are built from the analyzer's own tokens: a term query per token
and a phrase query per quoted phrase. The analysis per language lives in `analyzers.py`.

The analyzer's version is kept in `ANALYZER_FILE` inside the index directory. An index written
with another analyzer still answers (English and Portuguese query tokens stay compatible with
the previous analyzer, only less well), but `needs_rebuild()` says it should be rebuilt:
the writer calls `reset()` and then re-adds every document from LanceDB.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import tantivy

from casetrack import atomic_files
from casetrack.store.analyzers import CaseAnalyzer, build_analyzer

__all__ = ["ANALYZER_FILE", "TOKENIZER", "Bm25Hit", "Bm25Index", "build_analyzer"]

log = logging.getLogger(__name__)

TOKENIZER = "casetrack_text"
ANALYZER_FILE = "casetrack_analyzer.json"
# The files of one segment with this schema (a text field with positions, stored, fast fields).
SEGMENT_FILES = ("idx", "pos", "term", "store", "fast", "fieldnorm")
# Straight, curly and angle quotes; an unmatched quote is just ignored.
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|«([^»]+)»')


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("doc_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=False, tokenizer_name=TOKENIZER, index_option="position")
    return builder.build()


@dataclass(frozen=True)
class Bm25Hit:
    """One BM25 match: a chunk, its document, tantivy's score (only comparable within a query)."""

    chunk_id: str
    doc_id: str
    score: float


class Bm25Index:
    """A case's keyword index. Writes need the case's writer lock; reads need nothing."""

    def __init__(self, path: Path, language: str) -> None:
        self.path = path
        self.language = language
        self.analyzer: CaseAnalyzer = build_analyzer(language)
        self.schema = _schema()
        path.mkdir(parents=True, exist_ok=True)
        self.damaged: str | None = None  # why the index on disk could not be opened
        try:
            self.index = tantivy.Index(self.schema, path=str(path), reuse=True)
        except ValueError as exc:  # "Data corrupted": a zeroed or torn meta.json, a lost segment
            self.index = self._start_over(exc)
        if self.damaged is None and self.missing_files():  # tantivy opens, then fails on the first search
            self.index = self._start_over(
                ValueError(f"missing or empty files: {', '.join(self.missing_files()[:3])}")
            )
        self.index.register_tokenizer(TOKENIZER, self.analyzer.tokenizer)
        self._writer: tantivy.IndexWriter | None = None
        if self.stored_version() is None and self.index.searcher().num_docs == 0:
            # A new (or empty) index: it will only ever hold tokens of the current analyzer.
            try:
                self._write_version()
            except OSError as exc:  # a read-only case folder: reading must still work
                log.warning("bm25 index %s: cannot record the analyzer version: %s", path, exc)

    def _start_over(self, exc: Exception) -> tantivy.Index:
        """A fresh, empty index in place of one that cannot be opened. It is derived data: the
        case's recovery refills it from LanceDB (`needs_rebuild` says so)."""
        # Plain words for the user; tantivy's own text goes to the log at info (-v).
        missing = str(exc).startswith("missing or empty files")
        self.damaged = "some of its files are missing" if missing else "its files could not be read"
        log.warning(
            "case keyword index %s is damaged (%s): starting it again; it is rebuilt from the stored text",
            self.path,
            self.damaged,
        )
        log.info("keyword index error: %s", " ".join(str(exc).split())[:300])
        for item in self.path.iterdir():
            if item.is_file() and item.name != ANALYZER_FILE:
                item.unlink(missing_ok=True)
        return tantivy.Index(self.schema, path=str(self.path), reuse=False)

    def missing_files(self) -> list[str]:
        """Files of the index's segments (as meta.json lists them) that are gone or empty: cheap
        (one stat each), run at every open."""
        try:
            meta = json.loads((self.path / "meta.json").read_text(encoding="utf-8"))
            segments = [str(seg["segment_id"]).replace("-", "") for seg in meta.get("segments", [])]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return []  # no readable meta: tantivy's own open decides
        missing = []
        for segment in segments:
            for ext in SEGMENT_FILES:
                path = self.path / f"{segment}.{ext}"
                try:
                    if path.stat().st_size == 0:
                        missing.append(path.name)
                except OSError:
                    missing.append(path.name)
        return missing

    # -- analyzer version ---------------------------------------------------------------------

    def stored_version(self) -> str | None:
        """The analyzer version recorded in the index directory; None when there is no record."""
        try:
            data = json.loads((self.path / ANALYZER_FILE).read_text(encoding="utf-8"))
            return str(data["analyzer"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def needs_rebuild(self) -> bool:
        """True when the index was found damaged and started again, or documents were indexed
        with another analyzer, or by an unknown one (the record was lost: every version-1 case
        records one, store/migrations)."""
        if self.damaged:
            return True
        stored = self.stored_version()
        if stored == self.analyzer.version:
            return False
        self.index.reload()
        if self.index.searcher().num_docs == 0:
            return False
        log.info(
            "bm25 index %s: analyzer %s, current %s",
            self.path,
            stored or "none recorded",
            self.analyzer.version,
        )
        return True

    def reset(self) -> None:
        """Drop every document and adopt the current analyzer (caller holds the writer lock).

        The caller then re-adds every committed document with `replace_document`. The version
        is written after the empty index is committed: a crash in between leaves the old
        version, so the next open simply resets again.
        """
        writer = self._get_writer()
        writer.delete_all_documents()
        writer.commit()
        self.index.reload()
        self._write_version()
        self.damaged = None

    def _write_version(self) -> None:
        # Atomic replace of a fsynced file. Losing it (power cut before the directory entry is
        # durable) is safe: the index then records no analyzer and is rebuilt once more.
        atomic_files.write_json(
            self.path / ANALYZER_FILE, {"analyzer": self.analyzer.version, "language": self.language}
        )

    # -- writing (caller holds the case's writer lock) --------------------------------------

    def _get_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        return self._writer

    def _document(self, doc_id: str, chunk_id: str, text: str) -> tantivy.Document:
        doc = tantivy.Document(chunk_id=chunk_id, doc_id=doc_id)
        tokens = self.analyzer.index_form(text)
        if tokens is None:
            doc.add_text("text", text)
        else:
            doc.add_pre_tokenized_text("text", tokens)
        return doc

    def replace_document(self, doc_id: str, chunks: Iterable[tuple[str, str]]) -> int:
        """Delete a document's chunks and add the given (chunk_id, text) pairs; one commit."""
        writer = self._get_writer()
        writer.delete_documents_by_term("doc_id", doc_id)
        count = 0
        for chunk_id, text in chunks:
            writer.add_document(self._document(doc_id, chunk_id, text))
            count += 1
        writer.commit()
        self.index.reload()
        return count

    def rebuild(self, documents: Iterable[tuple[str, Iterable[tuple[str, str]]]]) -> int:
        """Every document dropped and the given ones added, in one commit; then the files of
        the old segments are deleted (a deleted document's entries leave the disk). Returns the
        chunks indexed."""
        writer = self._get_writer()
        writer.delete_all_documents()
        count = 0
        for doc_id, chunks in documents:
            for chunk_id, text in chunks:
                writer.add_document(self._document(doc_id, chunk_id, text))
                count += 1
        writer.commit()
        writer.wait_merging_threads()
        self._writer = None
        self._get_writer().garbage_collect_files()
        self.index.reload()
        return count

    def delete_document(self, doc_id: str) -> None:
        writer = self._get_writer()
        writer.delete_documents_by_term("doc_id", doc_id)
        writer.commit()
        self.index.reload()

    def close_writer(self) -> None:
        if self._writer is not None:
            self._writer.wait_merging_threads()
            self._writer = None

    # -- reading ----------------------------------------------------------------------------

    def count_for(self, doc_ids: Iterable[str]) -> dict[str, int]:
        """doc_id -> number of indexed chunks, one cheap count query per document."""
        self.index.reload()
        searcher = self.index.searcher()
        counts: dict[str, int] = {}
        for doc_id in doc_ids:
            query = tantivy.Query.term_query(self.schema, "doc_id", doc_id)
            result = searcher.search(query, limit=1, count=True)
            counts[doc_id] = int(getattr(result, "count", 0) or 0)  # not in tantivy's type stubs
        return counts

    def total(self) -> int:
        self.index.reload()
        return int(self.index.searcher().num_docs)

    def all_doc_ids(self) -> set[str]:
        """Every doc_id present (a full scan: only when counts show orphans)."""
        searcher = self.index.searcher()
        if searcher.num_docs == 0:
            return set()
        result = searcher.search(tantivy.Query.all_query(), limit=searcher.num_docs)
        return {searcher.doc(address)["doc_id"][0] for _score, address in result.hits}

    def build_query(self, text: str) -> tantivy.Query | None:
        """Term queries for every analyzed token, a required phrase query per quoted phrase.

        Phrase words keep their positions, so a stopword removed inside a quoted phrase leaves
        a one-word gap ("terms of the agreement" matches that text, not "terms ... agreement"
        further apart). A query of stopwords only ("the", "of the") has no tokens and gets None:
        no BM25 hits; the stopwords are not in the index, so there is nothing to fall back to.
        """
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for match in _QUOTED.finditer(text):
            phrase = next(g for g in match.groups() if g is not None)
            tokens = self.analyzer.positions(phrase)
            if len(tokens) > 1:
                first = tokens[0][0]
                words: list[str | tuple[int, str]] = [(pos - first, token) for pos, token in tokens]
                clauses.append((tantivy.Occur.Must, tantivy.Query.phrase_query(self.schema, "text", words)))
        for token in self.analyzer.terms(text):
            clauses.append((tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "text", token)))
        if not clauses:
            return None
        return tantivy.Query.boolean_query(clauses)

    def search(self, text: str, limit: int, doc_ids: set[str] | None = None) -> list[Bm25Hit]:
        query = self.build_query(text)
        if query is None:
            return []
        if doc_ids is not None:
            doc_filter = tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "doc_id", d)) for d in doc_ids]
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Must, doc_filter)]
            )
        searcher = self.index.searcher()
        result = searcher.search(query, limit=limit)
        hits = []
        for score, address in result.hits:
            doc = searcher.doc(address)
            hits.append(Bm25Hit(doc["chunk_id"][0], doc["doc_id"][0], float(score)))
        return hits

    def doc_freqs(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each analyzed term, and how many chunks there are."""
        searcher = self.index.searcher()
        return {t: int(searcher.doc_freq("text", t)) for t in dict.fromkeys(terms)}, int(searcher.num_docs)

    def reload(self) -> None:
        self.index.reload()

    @staticmethod
    def destroy(path: Path) -> None:
        """Remove the index directory, analyzer record included."""
        shutil.rmtree(path, ignore_errors=True)
