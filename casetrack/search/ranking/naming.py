"""Questions that name their document: the names pick the document, the rest picks the passage.

"In the supply agreement between Acme and Beta, how many days' notice ends it?" The parties'
names are the rarest words of the question, so BM25 ranks the cover page or the signature block
(where the names stand together) above the clause that answers, which calls them "Supplier" and
"Buyer". Here the query's words that NAME a document are found: rare words of the case (held by
few chunks) that the document's first chunk (its title, parties, caption, process number) or its
file name holds. When they point at one or two documents, a FOCUS list ranks the named documents'
chunks: BM25 of the question without those words. Inside each named document its chunks then
trade places (`reorder_within`): the document keeps the fused scores it earned with the whole
query, so its standing among the others is unchanged, and they go to its chunks in the order of
the rest of the question. The cover page keeps its place only when the rest of the question
points at it too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from casetrack.store.case_store import chunk_id_for, gen_of_chunk

if TYPE_CHECKING:
    from casetrack.search.ranking.context import SearchContext

# A word held by at most this share of the case's chunks can name a document.
RARE_SHARE = 0.02
# More named documents than this: the words do not point at one document.
MAX_NAMED = 2
# A cover is named when it holds at least this share of the naming words the best cover holds:
# "2006" or "November" on a second cover does not unname the one that holds all the parties.
NAMED_SHARE = 0.5
# Documents whose covers are checked: those of the best BM25 candidates.
COVERS_CHECKED = 8


class Analyzer(Protocol):
    def terms(self, text: str) -> list[str]: ...


@dataclass(frozen=True)
class Naming:
    documents: frozenset[str]  # doc ids the query names
    residual: str  # the query without the words that name them


@dataclass(frozen=True)
class Focus:
    """What a naming question adds: the named documents, and BM25 of the rest of the question
    inside them (their chunks, best first)."""

    documents: frozenset[str]
    ranking: tuple[str, ...]


def focus(ctx: SearchContext, bm25_docs: Sequence[str]) -> Focus | None:
    """The documents the query names among those of BM25's best candidates (`bm25_docs`, in BM25
    order), and the focus list; None when it names none."""
    store, scope = ctx.store, ctx.scope
    docs = [d for d in dict.fromkeys(bm25_docs) if d in scope.visible][:COVERS_CHECKED]
    if not docs:
        return None
    rows = store.lance.fetch_chunks(
        [chunk_id_for(d, scope.visible[d], 0) for d in docs], ["chunk_id", "doc_id", "text"]
    )
    covers = {str(r["doc_id"]): str(r["text"]) for r in rows.values()}
    for doc_id in covers:
        entry = store.journal.get(doc_id)
        if entry is not None:
            covers[doc_id] += "\n" + entry.name.rsplit(".", 1)[0].replace("_", " ")
    naming = find_naming(
        ctx.query.text, ctx.query.terms, store.bm25.analyzer, ctx.stats.doc_freqs, ctx.stats.chunks, covers
    )
    if naming is None:
        return None
    within = set(naming.documents) & scope.documents if scope.documents is not None else set(naming.documents)
    # The rest of the question, and the caller's words for the answer (what to find inside the document).
    query = ctx.query
    rest = " ".join([naming.residual, *query.keywords, query.likely_wording or ""]).strip()
    found = store.bm25.search(rest, ctx.config.recall.bm25_candidates // 2, within)
    ranking = tuple(h.chunk_id for h in found if scope.allows(h.doc_id, gen_of_chunk(h.chunk_id)))
    return Focus(frozenset(within), ranking)


def find_naming(
    query: str,
    query_terms: Sequence[str],
    analyzer: Analyzer,
    doc_freqs: Mapping[str, int],
    total: int,
    covers: dict[str, str],
) -> Naming | None:
    """The documents `query` (whose analyzer terms are `query_terms`) names, from `covers` (doc id
    -> its first chunk's text and file name), given how many of the case's `total` chunks hold
    each term; None when it names none, or more than MAX_NAMED, or nothing would be left to ask."""
    freqs = doc_freqs
    terms = list(dict.fromkeys(query_terms))
    rare = {t for t in terms if total and freqs.get(t, 0) <= max(1, RARE_SHARE * total)}
    if not rare or len(rare) == len(terms):
        return None
    held = {doc_id: rare & set(analyzer.terms(text)) for doc_id, text in covers.items()}
    most = max((len(words) for words in held.values()), default=0)
    named = {doc_id: words for doc_id, words in held.items() if words and len(words) >= NAMED_SHARE * most}
    if not named or len(named) > MAX_NAMED:
        return None
    names = set().union(*named.values())
    kept = [w for w in query.split() if not set(analyzer.terms(w)) & names]
    residual = " ".join(kept)
    if not set(analyzer.terms(residual)):
        return None
    return Naming(frozenset(named), residual)


def reorder_within(
    fused: dict[str, float],
    documents: Iterable[str],
    rankings: Sequence[Sequence[str]],
    k: int,
    document_of: Callable[[str], str],
) -> None:
    """Inside each named document, give its chunks' fused scores (in place) to its chunks in the
    order of reciprocal-rank fusion of `rankings` (the rest of the question: the focus list, the
    question alone) and of their fused order itself. The document's set of scores is unchanged,
    so no other document moves; only which of its chunks stands first does."""
    named = set(documents)
    by_document: dict[str, list[str]] = {}
    for chunk_id in fused:
        doc_id = document_of(chunk_id)
        if doc_id in named:
            by_document.setdefault(doc_id, []).append(chunk_id)
    for chunks in by_document.values():
        if len(chunks) < 2:
            continue
        members = set(chunks)
        lists = [[c for c in ranking if c in members] for ranking in rankings]
        lists.append(sorted(chunks, key=lambda c: -fused[c]))
        score = dict.fromkeys(chunks, 0.0)
        for ranked in lists:
            place = {chunk_id: rank for rank, chunk_id in enumerate(ranked, start=1)}
            for chunk_id in chunks:
                score[chunk_id] += 1 / (k + place.get(chunk_id, len(ranked) + 1))
        values = sorted((fused[c] for c in chunks), reverse=True)
        for chunk_id, value in zip(sorted(chunks, key=lambda c: (-score[c], -fused[c])), values, strict=True):
            fused[chunk_id] = value
