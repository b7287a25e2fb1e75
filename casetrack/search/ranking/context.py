"""Everything one search knows before it recalls a candidate: the case, the query read once, the
settings, the encoders, what the filters allow, and the query's term statistics in the case."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from casetrack.domain.slots import BM25
from casetrack.embed.sparse import SparseVector
from casetrack.search.query import Query
from casetrack.search.ranking.config import SearchConfig
from casetrack.search.ranking.encoders import QueryEncoders
from casetrack.search.ranking.runtime import Inline, SearchRuntime
from casetrack.search.ranking.scope import Scope
from casetrack.store.case_store import CaseStore

T = TypeVar("T")
DenseVector = npt.NDArray[np.float32]
QueryVector = DenseVector | SparseVector


@dataclass(frozen=True)
class TermStats:
    """How many of the case's chunks hold each of the query's analyzer terms, and how many chunks
    the case has (naming and relevance read them)."""

    doc_freqs: Mapping[str, int]
    chunks: int


@dataclass(frozen=True)
class SearchContext:
    store: CaseStore
    query: Query
    config: SearchConfig
    encoders: QueryEncoders
    scope: Scope
    stats: TermStats
    lists: tuple[str, ...]  # the lists this search fuses: the case language's, whose models are loaded
    runtime: SearchRuntime | None = None  # read threads and the query-vector cache (None: inline)

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run `fn` on a read thread (inline without a runtime)."""
        return (self.runtime.io if self.runtime is not None else Inline()).submit(fn, *args)

    def vector(self, list_name: str, text: str | None = None) -> QueryVector:
        """The query's vector for a fused list ("dense", "sparse", "e7"), of `text` (default: the
        whole query), from the runtime's cache when the config allows it."""
        text = self.query.text if text is None else text
        encoder = {"dense": self.encoders.dense, "sparse": self.encoders.sparse, "e7": self.encoders.e7}[
            list_name
        ]
        if encoder is None:
            raise LookupError(f"no encoder loaded for the {list_name} list")

        def compute() -> QueryVector:
            vectors = encoder.encode_queries([text])
            return vectors[0]

        if self.runtime is None or not self.config.cache_queries:
            return compute()
        return self.runtime.vector((list_name, encoder.fingerprint, text), compute)

    def dense(self, text: str | None = None) -> DenseVector:
        """E1's vector of `text` (default: the question)."""
        vector = self.vector("dense", text)
        assert isinstance(vector, np.ndarray)
        return vector

    def wording(self) -> DenseVector | None:
        """E1's vector of the caller's likely wording (None without one): encoded as a passage when
        the settings say so, since it is worded like one."""
        wording, encoder = self.query.likely_wording, self.encoders.dense
        if not wording or encoder is None:
            return None
        if not self.config.words.wording_as_passage:
            return self.dense(wording)
        passages = getattr(encoder, "encode_passages", None)
        if passages is None:
            return self.dense(wording)

        def compute() -> DenseVector:
            return np.asarray(passages([wording])[0], dtype=np.float32)

        if self.runtime is None or not self.config.cache_queries:
            return compute()
        return self.runtime.vector(("wording", encoder.fingerprint, wording), compute)

    def list_text(self, list_name: str) -> str:
        """The text a fused list encodes or searches: the question, or with the caller's words the
        expanded text where the settings say so."""
        words, query = self.config.words, self.query
        if not query.has_words:
            return query.text
        expand = {
            BM25: words.expand_bm25,
            "dense": words.expand_dense,
            "sparse": words.expand_sparse,
            "e7": words.expand_e7,
        }
        return query.expanded if expand.get(list_name, False) else query.text

    @property
    def fused_by_bm25(self) -> bool:
        return BM25 in self.lists
