"""Passage windows: how chunks are cut into windows, stored, and scored at search time."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from casetrack.chunk.windows import pack_windows, sentence_windows, unpack_windows, window_spans
from casetrack.search.ranking.scores import windowed_dense_scores


def test_windows_are_three_sentences_overlapping_by_one() -> None:
    text = "One is here. Two is here. Three is here. Four is here. Five is here. Six."
    assert sentence_windows(text) == [
        "One is here. Two is here. Three is here.",
        "Three is here. Four is here. Five is here.",
        "Five is here. Six.",
    ]
    # No more sentences than a window: the chunk itself is its only window.
    assert sentence_windows("Art. 5º Todos são iguais. Sec. 2 applies. The end.") == []
    assert sentence_windows("") == []


def test_windows_keep_the_chunk_text_exactly() -> None:
    text = "First clause, per Sec. 4.2 of the Lease.\nSecond clause.  Third one! Fourth?\n\nFifth."
    for window in sentence_windows(text):
        assert window in text


def test_window_vectors_round_trip_in_float16() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(3, 8)).astype(np.float32)
    back = unpack_windows(pack_windows(vectors), 8)
    assert back.shape == (3, 8) and back.dtype == np.float32
    assert np.allclose(back, vectors, atol=1e-2)
    assert unpack_windows(pack_windows(np.zeros((0, 8), np.float32)), 8).shape == (0, 8)


def _column(rows: list[list[float]]) -> pa.ChunkedArray:
    return pa.chunked_array([pa.array(rows, pa.list_(pa.float32(), 2))])


def test_a_chunk_with_one_matching_window_outranks_a_vaguely_similar_chunk() -> None:
    query = np.array([1.0, 0.0], np.float32)
    ids = ["diluted", "vague", "old"]
    # "diluted": its own vector is far from the query, but one window is exactly on it.
    vectors = _column([[0.7, 0.71414284], [0.8, 0.6], [0.8, 0.6]])
    windows = pa.chunked_array(
        [pa.array([pack_windows(np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)), b"", None], pa.binary())]
    )
    result = windowed_dense_scores(query, ids, vectors, windows)
    scores = result.scores
    assert result.with_windows == 2  # "old" predates windows
    assert result.best_window == {"diluted": 1}  # the window that beat its chunk
    assert np.isclose(scores["diluted"], 0.7 + 1.0, atol=1e-3)  # own cosine + best window
    assert np.isclose(scores["vague"], 1.6) and np.isclose(scores["old"], 1.6)  # own cosine counted twice
    assert scores["diluted"] > scores["vague"]


def test_no_window_column_scores_twice_the_chunk_cosine() -> None:
    query = np.array([0.0, 2.0], np.float32)
    result = windowed_dense_scores(query, ["a", "b"], _column([[0.0, 1.0], [1.0, 0.0]]), None)
    scores = result.scores
    assert result.with_windows == 0 and not result.best_window
    assert np.isclose(scores["a"], 2.0) and np.isclose(scores["b"], 0.0)


def test_window_spans_index_the_chunk_text() -> None:
    text = "One is here. Two is here. Three is here. Four is here."
    assert [text[a:b] for a, b in window_spans(text)] == sentence_windows(text)


def test_a_paraphrase_pin_falls_in_the_window_that_matched() -> None:
    from casetrack.search.pincite.span import pin_span
    from casetrack.search.query.roles import term_roles
    from casetrack.store.bm25 import build_analyzer

    text = (
        "The parties signed in Boston. Rent is due monthly. Payments go to the landlord's bank. "
        "The tenant may leave early by paying two months of rent. Pets are not allowed."
    )
    analyzer = build_analyzer("en")
    focus = window_spans(text)[1]
    assert text[focus[0] :].startswith("Payments go")
    # No sentence shares more than one word with the question: the matched window is shown.
    start, end = pin_span(
        text, term_roles("can I get out of the deal before it ends?", analyzer), analyzer, focus=focus
    )
    assert "leave early" in text[start:end] and focus[0] <= start and end <= focus[1]
    # A word match still decides when the words do point somewhere.
    start, end = pin_span(text, term_roles("pets allowed", analyzer), analyzer, focus=focus)
    assert "Pets" in text[start:end]
