"""The page of hits: each result pinned to the lines that answer, rated, with optional context
from its neighbours, and the per-document view.

Text and provenance are read here for the page of hits only (for the per-document view, for
every candidate: documents are ranked by all their chunks).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from casetrack.chunk.windows import window_spans
from casetrack.domain import DocumentHit, SearchHit, SearchResponse
from casetrack.search.pincite.hit import PinHints, pin_offsets, pinned_hit
from casetrack.search.pincite.layout import Span
from casetrack.search.pincite.snippet import readable
from casetrack.search.ranking import relevance
from casetrack.search.ranking.request import SearchRequest
from casetrack.search.ranking.steps import Ranking, RankInput
from casetrack.store.case_store import CaseStore, chunk_id_for

# Candidates pinned beyond the page, so that results repeating an earlier result's citation (two
# overlapping chunks that pin the same sentence) can be dropped and the page still filled.
DEDUPE_SLACK = 3


def page(ranked: RankInput, ranking: Ranking, request: SearchRequest, response: SearchResponse) -> None:
    """Fill `response` with the page `request` asks for: hits (pinned and rated, each citation
    once), `no_good_match`, context, the per-document view and the case's size."""
    ctx = ranked.context
    store, entries = ctx.store, ctx.scope.entries
    response.case_documents = len(entries)  # the case's size, from the journal already read
    response.case_chunks = sum(e.expected_chunks for e in entries)
    ordered = ranking.ordered()
    top_k, offset = request.top_k, request.offset
    pins = _Pinner(ranked, ranking)
    rater = _rater(ranked, ranking)
    top = ordered[0][1] if ordered else 0.0
    shown = _distinct(pins, ordered, offset + top_k)[offset:]
    response.hits = rater.rate(shown, first_rank=offset + 1, top=top)
    if response.hits and offset == 0:
        response.no_good_match = rater.no_good_match(response.hits)
    if request.context_chars > 0:
        response.hits = add_context(store, response.hits, pins.rows, request.context_chars)
    if request.per_document:
        pins.fetch([c for c, _ in ordered])
        everything = [pins.hit(c, s) for c, s in ordered if c in pins.rows]
        response.documents = by_document(everything, top_k)
        # Only each document's best passage is shown: rate those, not every candidate.
        rated = rater.rate([d.best for d in response.documents], top=top)
        for document, best in zip(response.documents, rated, strict=True):
            document.best = best


class _Pinner:
    """Reads the candidates' rows (once) and pins each to the lines that answer."""

    def __init__(self, ranked: RankInput, ranking: Ranking) -> None:
        self.ranked = ranked
        self.documents = {e.doc_id: e for e in ranked.context.scope.entries}
        self.exact = {c: (m.start, m.end) for c, m in ranking.exact.items()}
        ctx = ranked.context
        self.roles = ctx.query.pin_roles(ctx.store.bm25.analyzer, ctx.config.words.pin_weight)
        self.rows: dict[str, dict[str, Any]] = {}

    def fetch(self, chunk_ids: list[str]) -> None:
        missing = [c for c in chunk_ids if c not in self.rows]
        if missing:
            self.rows.update(self.ranked.context.store.lance.fetch_chunks(missing))

    def hit(self, chunk_id: str, score: float) -> SearchHit:
        ctx, dense = self.ranked.context, self.ranked.lists.dense
        row = self.rows[chunk_id]
        focus, windows = pin_windows(
            row["text"], dense.best_window.get(chunk_id), dense.window_sims.get(chunk_id)
        )
        hints = PinHints(focus, self.exact.get(chunk_id), windows)
        return pinned_hit(chunk_id, row, self.documents, score, self.roles, ctx.store.bm25.analyzer, hints)


def _distinct(pins: _Pinner, ordered: list[tuple[str, float]], wanted: int) -> list[SearchHit]:
    """The first `wanted` hits of `ordered`, pinned, each place once: a later hit that cites what an
    earlier one cites (consecutive chunks share their overlapping sentences, so both can pin the
    same lines) adds nothing and is left out."""
    out: list[SearchHit] = []
    at = 0
    while len(out) < wanted and at < len(ordered):
        batch = ordered[at : at + wanted - len(out) + DEDUPE_SLACK]
        at += len(batch)
        pins.fetch([c for c, _ in batch])
        for chunk_id, score in batch:
            if chunk_id not in pins.rows:
                continue
            hit = pins.hit(chunk_id, score)
            if any(_same_passage(hit, other) for other in out):
                continue
            out.append(hit)
            if len(out) == wanted:
                break
    return out


def _same_passage(a: SearchHit, b: SearchHit) -> bool:
    """Do two pin-cites cite the same place: the same citation (a reader would look in one place
    for both), or the same lines of a page (their spans overlap by half or more of the shorter)?"""
    if a.citation == b.citation:
        return True
    p, q = a.provenance, b.provenance
    if p.document_id != q.document_id or p.page != q.page or p.page_end != q.page_end:
        return False
    overlap = min(p.char_end, q.char_end) - max(p.char_start, q.char_start)
    shorter = max(1, min(p.char_end - p.char_start, q.char_end - q.char_start))
    return overlap >= 0.5 * shorter


def _rater(ranked: RankInput, ranking: Ranking) -> relevance.Rater:
    ctx, lists = ranked.context, ranked.lists
    query = ctx.query
    return relevance.rater(
        query.terms,
        ctx.stats.doc_freqs,
        ctx.stats.chunks,
        ctx.store.bm25.analyzer,
        lists.dense.cosines,
        {c: m.score for c, m in ranking.exact.items()},  # a passage split over two chunks: each part
        ctx.store.record.language,
        asked=query.asked_terms,
        words=query.word_terms,
        word_cosines=lists.wording_cosines,
        model=ctx.config.labels.model,
    )


def pin_windows(
    text: str, best: int | None, sims: Any
) -> tuple[Span | None, list[tuple[Span, float]] | None]:
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


def add_context(
    store: CaseStore, hits: list[SearchHit], rows: dict[str, dict[str, Any]], chars: int
) -> list[SearchHit]:
    """`hits` with context_before/after: up to `chars` characters of the text just before and
    after each one's displayed span (its pin-cite), from its own chunk and then the neighbouring
    chunk, never repeating what the snippet shows (consecutive chunks overlap by a sentence or
    two: the overlap is cut off)."""
    wanted: dict[tuple[str, int, int], tuple[int, str]] = {}
    for i, hit in enumerate(hits):
        row = rows[hit.chunk_id]
        doc, gen, seq = str(row["doc_id"]), int(row["gen"]), int(row["seq"])
        wanted[(doc, gen, seq - 1)] = (i, "before")
        wanted[(doc, gen, seq + 1)] = (i, "after")
    ids = [chunk_id_for(doc, gen, seq) for doc, gen, seq in wanted if seq >= 0]
    columns = ["chunk_id", "doc_id", "gen", "seq", "text", "page_index", "char_start", "char_end"]
    neighbours = store.lance.fetch_chunks(ids, columns)
    before = [_own_text(h, rows[h.chunk_id], "before") for h in hits]
    after = [_own_text(h, rows[h.chunk_id], "after") for h in hits]
    for row in neighbours.values():
        i, side = wanted[(str(row["doc_id"]), int(row["gen"]), int(row["seq"]))]
        mine = rows[hits[i].chunk_id]
        if side == "before":
            before[i] = _beyond(row, mine, "before") + "\n\n" + before[i]
        else:
            after[i] = after[i] + "\n\n" + _beyond(row, mine, "after")
    return [
        replace(h, context_before=_tail(b, chars) or None, context_after=_head(a, chars) or None)
        for h, b, a in zip(hits, before, after, strict=True)
    ]


def _own_text(hit: SearchHit, row: dict[str, Any], side: str) -> str:
    """The hit's chunk text before or after its pin-cite."""
    text = str(row["text"])
    start, end = pin_offsets(hit)
    return text[:start] if side == "before" else text[end:]


def _beyond(neighbour: dict[str, Any], mine: dict[str, Any], side: str) -> str:
    """The neighbour's text outside `mine` (chunks of one page overlap by whole sentences)."""
    text = str(neighbour["text"])
    n_start, m_start, m_end = neighbour.get("char_start"), mine.get("char_start"), mine.get("char_end")
    if not (isinstance(n_start, int) and isinstance(m_start, int) and isinstance(m_end, int)):
        return text
    if neighbour.get("page_index") != mine.get("page_index"):
        return text
    if side == "before":
        return text[: max(0, m_start - n_start)]
    return text[max(0, m_end - n_start) :]


def _tail(text: str, chars: int) -> str:
    """The last `chars` characters of `text` made readable, starting at a whole word."""
    flat = readable(text)
    if len(flat) <= chars:
        return flat
    cut = flat[-chars:]
    return cut.split(" ", 1)[1] if " " in cut and not flat[-chars - 1].isspace() else cut


def _head(text: str, chars: int) -> str:
    """The first `chars` characters of `text` made readable, ending at a whole word."""
    flat = readable(text)
    if len(flat) <= chars:
        return flat
    cut = flat[:chars]
    return cut.rsplit(" ", 1)[0] if " " in cut and not flat[chars].isspace() else cut


def by_document(hits: list[SearchHit], limit: int) -> list[DocumentHit]:
    """Documents ranked by their chunks' scores: the best chunk counts fully, each further one
    half as much as the one before, so one strong passage beats many weak mentions but a
    document that answers in several places rises (the súmulas idea: which document says X)."""
    grouped: dict[str, list[SearchHit]] = {}
    for hit in hits:  # hits arrive best first
        grouped.setdefault(hit.provenance.document_id, []).append(hit)
    docs = [
        DocumentHit(
            document=group[0].provenance.document,
            document_id=doc_id,
            score=round(sum(h.score * 0.5**i for i, h in enumerate(group)), 6),
            matching_chunks=len(group),
            best=group[0],
        )
        for doc_id, group in grouped.items()
    ]
    return sorted(docs, key=lambda d: d.score, reverse=True)[:limit]
