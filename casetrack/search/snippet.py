"""The part of a chunk that answers the query, for compact display.

Chunks are ~500 tokens; a person (or Claude, in compact mode) needs the few sentences that
match. Sentences are scored by how many distinct query terms (after the case's analyzer:
stemmed, accent-folded) they contain; the best one is widened to about `max_chars`.
"""

from __future__ import annotations

from typing import Protocol

from casetrack.chunk.sentences import sentence_spans


class Analyzer(Protocol):
    def analyze(self, text: str) -> list[str]: ...


def best_snippet(
    text: str, query: str, analyzer: Analyzer, max_chars: int = 400, focus: tuple[int, int] | None = None
) -> str:
    """`focus`: the passage window that matched the query by meaning (E1); it is shown when no
    sentence shares more than one query term (a paraphrase: the words do not point anywhere)."""
    terms = set(analyzer.analyze(query))
    spans = sentence_spans(text, 0, len(text)) or [(0, len(text))]
    scores = [len(terms & set(analyzer.analyze(text[s:e]))) for s, e in spans]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    if focus is not None and scores[best] <= 1:
        best = next((i for i, (s, e) in enumerate(spans) if s <= focus[0] < e), best)
    start, end = spans[best]
    # Widen with the following sentences, then the preceding ones, while it fits.
    after, before = best + 1, best - 1
    while after < len(spans) and spans[after][1] - start <= max_chars:
        end = spans[after][1]
        after += 1
    while before >= 0 and end - spans[before][0] <= max_chars:
        start = spans[before][0]
        before -= 1
    snippet = " ".join(text[start:end].split())
    if len(snippet) > max_chars:
        snippet = snippet[:max_chars].rsplit(" ", 1)[0] + " …"
    prefix = "… " if start > 0 else ""
    suffix = " …" if end < len(text.rstrip()) and not snippet.endswith("…") else ""
    return prefix + snippet + suffix
