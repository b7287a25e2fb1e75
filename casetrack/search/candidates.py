"""The candidate set's rows and the passage windows the pin-cite reads: one row per candidate
from what recall read, a chunk filter (Bates range) applied to it, each window's E1 cosine."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from casetrack.chunk.windows import window_spans
from casetrack.store.case_store import CaseStore
from casetrack.store.journal import JournalEntry

MAX_FILTERED_CANDIDATES = 2000  # a Bates range naming at most this many chunks: all are candidates


def only_filtered(
    allowed: set[str], rankings: dict[str, list[str]], candidates: list[str], parts: list[pa.Table]
) -> tuple[list[str], list[pa.Table]]:
    """Candidates, `rankings` (in place) and rows read cut to the chunks `allowed` (a Bates
    range: the pages it names are few, so all of them become candidates when they are at most
    MAX_FILTERED_CANDIDATES)."""
    for name, ranking in rankings.items():
        rankings[name] = [c for c in ranking if c in allowed]
    extra = sorted(allowed) if len(allowed) <= MAX_FILTERED_CANDIDATES else []
    value_set = pa.array(sorted(allowed), pa.string())
    parts = [p.filter(pc.is_in(p.column("chunk_id"), value_set=value_set)) for p in parts]
    return [c for c in candidates if c in allowed] + extra, parts


def candidate_table(
    store: CaseStore, candidates: list[str], parts: list[pa.Table], columns: list[str]
) -> pa.Table:
    """One row per candidate (first occurrence wins) with the ranking columns, from the rows the
    recall stages already read plus a fetch of any candidate they did not."""
    parts = [p for p in parts if p.num_rows]  # an empty read carries only chunk_id
    have = {c for part in parts for c in part.column("chunk_id").to_pylist()}
    missing = [c for c in candidates if c not in have]
    if missing or not parts:
        parts.append(store.lance.fetch_table(missing, columns))
    names = [c for c in ["chunk_id", *columns] if all(c in p.column_names for p in parts)]
    names = list(dict.fromkeys(names))
    merged = pa.concat_tables([p.select(names) for p in parts], promote_options="default")
    seen: set[str] = set()
    first = []
    for i, chunk_id in enumerate(merged.column("chunk_id").to_pylist()):
        if chunk_id not in seen:
            seen.add(chunk_id)
            first.append(i)
    return merged.take(pa.array(first, pa.int64())) if len(first) < merged.num_rows else merged


def pin_windows(
    text: str, best: int | None, sims: Any
) -> tuple[tuple[int, int] | None, list[tuple[tuple[int, int], float]] | None]:
    """What the pin-cite reads of a chunk's passage windows (as embedded at ingest, split once):
    the span of the window that matched E1 best (`best`, its index), and each window's span with
    its cosine `sims` (None without windows)."""
    if best is None and sims is None:
        return None, None
    spans = window_spans(text)
    focus = spans[best] if best is not None and best < len(spans) else None
    if sims is None or len(spans) != len(sims):
        return focus, None
    return focus, list(zip(spans, (float(s) for s in sims), strict=True))


# A dense search under a document filter that keeps at most this many chunks scans them all
# (bench/filter_latency.py: under a one-document filter the 100k-chunk ANN index returned < 10 rows).
EXACT_SCAN_CHUNKS = 20_000


def narrow_filter(entries: list[JournalEntry], doc_ids: set[str]) -> bool:
    """Does the document filter keep few enough of the committed documents' (`entries`) chunks
    to scan them all (exact, never short)?"""
    return sum(e.expected_chunks for e in entries if e.doc_id in doc_ids) <= EXACT_SCAN_CHUNKS
