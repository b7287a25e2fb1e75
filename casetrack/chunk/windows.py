"""Passage windows: a few consecutive sentences of a chunk, embedded alongside the chunk.

A ~480-token chunk holds several clauses; its one E1 vector blurs them, so a question about one
clause ("what is the governing law?") matches the chunk that *is* about it only weakly. Each
window of `WINDOW_SENTENCES` sentences (overlapping by one) gets its own E1 vector at ingest and a
chunk is scored by its own vector plus its best window's ("MaxP" passage scoring). Measured on
the CUAD PDFs, question asked within its contract, top-1 page: chunk vector .43, best window .60,
both .65 (bench/RESULTS.md, "Retrieval with passage windows ...").
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from casetrack.chunk.sentences import sentence_spans

# Other shapes in the same prototype (E1 alone, chunk + best window, 100 questions): 2 sentences
# .67 with ~1.9x the windows; 3 without overlap .64 and 4 without overlap .64 with 0.8x / 0.64x
# the windows (the cheaper choice for ingest, once case.json records the window shape);
# 5 sentences .59-.62; 600 characters .58-.61.
WINDOW_SENTENCES = 3
# Stored as float16: 768 bytes a window at 384 dims (cosine error < 1e-3).
WINDOW_DTYPE = np.float16


def window_spans(text: str, size: int = WINDOW_SENTENCES) -> list[tuple[int, int]]:
    """Character spans of windows of `size` sentences, each starting at the last sentence of
    the one before.

    Empty when the chunk has no more than `size` sentences: its own vector already is its one
    window.
    """
    spans = sentence_spans(text, 0, len(text))
    if len(spans) <= size:
        return []
    step = max(1, size - 1)
    windows = []
    for first in range(0, len(spans), step):
        part = spans[first : first + size]
        windows.append((part[0][0], part[-1][1]))
        if first + size >= len(spans):
            break
    return windows


def sentence_windows(text: str, size: int = WINDOW_SENTENCES) -> list[str]:
    """The texts of `window_spans`."""
    return [text[a:b] for a, b in window_spans(text, size)]


def pack_windows(vectors: npt.NDArray[np.float32]) -> bytes:
    """One chunk's window vectors as bytes (row-major float16); b"" for none."""
    return np.ascontiguousarray(vectors, dtype=WINDOW_DTYPE).tobytes()


def unpack_windows(blob: bytes, dim: int) -> npt.NDArray[np.float32]:
    """[n_windows, dim] float32 from `pack_windows` bytes."""
    return np.frombuffer(blob, dtype=WINDOW_DTYPE).reshape(-1, dim).astype(np.float32)
