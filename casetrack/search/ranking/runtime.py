"""What searches in one process share: a small thread pool and the query-vector cache.

Owned by the application core (`CaseTrack.search_runtime`) and closed with it, never created at
import: a process that never searches starts no threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar, cast

T = TypeVar("T")

QUERY_CACHE_SIZE = 256


class Inline(Executor):
    """Runs submitted work at once in the caller's thread (no runtime, or an A/B benchmark)."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:  # the caller sees it from result(), as from a thread
            future.set_exception(e)
        return future


class SearchRuntime:
    def __init__(self, io_workers: int = 2, cache_size: int = QUERY_CACHE_SIZE) -> None:
        # Reads that run beside query encoding (one search uses at most one at a time; two for
        # concurrent searches in the daemon). Threads start on first submit.
        self.io: Executor = ThreadPoolExecutor(
            max_workers=io_workers, thread_name_prefix="casetrack-search-io"
        )
        self._cache: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def close(self) -> None:
        self.io.shutdown(wait=False)

    def cached_queries(self) -> list[tuple[str, str, str]]:
        """(list name, model fingerprint, query) of every cached query vector."""
        with self._lock:
            return list(self._cache)

    def vector(self, key: tuple[str, str, str], compute: Callable[[], T]) -> T:
        """The query vector cached under `key` (list name, model fingerprint, query text), worked
        out by `compute` when it is not: paging (`offset`), the per-document view and a model
        asking again all repeat a query (E1 costs ~10-15 ms)."""
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return cast(T, self._cache[key])
        value = compute()
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return value
