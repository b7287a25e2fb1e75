"""The tantivy BM25 index of one case: derived from LanceDB, rebuilt from it when needed.

User text never reaches tantivy's query parser (it raises on `O'Brien`, `Art. 5: see`, an
unbalanced quote...). Queries are built from the analyzer's own tokens: a term query per token
and a phrase query per quoted phrase.
"""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import tantivy

log = logging.getLogger(__name__)

TOKENIZER = "casetrack_text"
_STEMMERS = {"en": "english", "pt": "portuguese"}
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')


def build_analyzer(language: str) -> tantivy.TextAnalyzer:
    """Lowercase, stem for the case's language, fold accents (contratação ~ contratacao).

    No stopword filter: it would shift positions under phrase queries, and BM25's IDF already
    gives stopwords almost no weight.
    """
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer(_STEMMERS.get(language, "english")))
        .filter(tantivy.Filter.ascii_fold())
    )
    return builder.build()


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("doc_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=False, tokenizer_name=TOKENIZER, index_option="position")
    return builder.build()


@dataclass(frozen=True)
class Bm25Hit:
    chunk_id: str
    doc_id: str
    score: float


class Bm25Index:
    def __init__(self, path: Path, language: str) -> None:
        self.path = path
        self.language = language
        self.analyzer = build_analyzer(language)
        self.schema = _schema()
        path.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(path), reuse=True)
        self.index.register_tokenizer(TOKENIZER, self.analyzer)
        self._writer: tantivy.IndexWriter | None = None

    # -- writing (caller holds the case's writer lock) --------------------------------------

    def _get_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        return self._writer

    def replace_document(self, doc_id: str, chunks: Iterable[tuple[str, str]]) -> int:
        """Delete a document's chunks and add the given (chunk_id, text) pairs; one commit."""
        writer = self._get_writer()
        writer.delete_documents_by_term("doc_id", doc_id)
        count = 0
        for chunk_id, text in chunks:
            writer.add_document(tantivy.Document(chunk_id=chunk_id, doc_id=doc_id, text=text))
            count += 1
        writer.commit()
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
        """Term queries for every analyzed token, phrase queries for quoted phrases."""
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for match in _QUOTED.finditer(text):
            words: list[str | tuple[int, str]] = list(self.analyzer.analyze(match.group(1) or match.group(2)))
            if len(words) > 1:
                clauses.append((tantivy.Occur.Must, tantivy.Query.phrase_query(self.schema, "text", words)))
        seen: set[str] = set()
        for token in self.analyzer.analyze(text):
            if token not in seen:
                seen.add(token)
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
            query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, doc_filter)])
        searcher = self.index.searcher()
        result = searcher.search(query, limit=limit)
        hits = []
        for score, address in result.hits:
            doc = searcher.doc(address)
            hits.append(Bm25Hit(doc["chunk_id"][0], doc["doc_id"][0], float(score)))
        return hits

    def reload(self) -> None:
        self.index.reload()

    @staticmethod
    def destroy(path: Path) -> None:
        shutil.rmtree(path, ignore_errors=True)
