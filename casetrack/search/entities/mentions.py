"""Every mention of a name or citation across a case, exact and fuzzy: the `find_entity` tool.

1. Recall: the case's tantivy index (its language's analyzer) gives candidate chunks: a phrase
   query of the entity (every chunk that has it as typed, up to PHRASE_RECALL), then one OR query
   of its terms, the terms of its accent-free and citation-normalised forms, its words as OCR may
   have misread them ("srnith", "0hio"), and fuzzy terms (edit distance 1, 2 from eight letters)
   for words of FUZZY_MIN_WORD letters or more.
2. Verify: `entity_match` finds the exact and fuzzy mentions in each candidate's text (folded,
   citation-normalised words; rapidfuzz similarity with OCR look-alikes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import tantivy

from casetrack.domain import Provenance
from casetrack.errors import CaseTrackError
from casetrack.legal.cnj import parse_cnj
from casetrack.search.entities.words import (
    FUZZY_THRESHOLD,
    Match,
    Token,
    fold,
    looks_like_citation,
    match_tokens,
    misreadings,
    snippet_around,
    tokens,
)
from casetrack.search.pincite.provenance import lines_cite
from casetrack.store.case_store import CaseStore, gen_of_chunk
from casetrack.store.chunk_view import provenance
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import RESULT_COLUMNS

__all__ = [
    "ENTITY_TYPES",
    "FUZZY_THRESHOLD",
    "DocumentMentions",
    "EntityResult",
    "Match",
    "Mention",
    "Token",
    "find_entity",
    "fold",
    "looks_like_citation",
    "match_tokens",
    "snippet_around",
    "tokens",
]

ENTITY_TYPES = ("person", "court", "statute", "case_citation", "organization", "any")
CITATION_TYPES = frozenset({"statute", "case_citation"})
FUZZY_MIN_WORD = 5  # words this long get fuzzy recall terms
MISREAD_MIN_WORD = 3  # words this long get their OCR misreadings as recall terms
PHRASE_RECALL = 2000  # chunks holding the entity as a phrase: all of them, in practice
LOOSE_RECALL = 300  # chunks from the OR query of terms and fuzzy terms (at least; 10 x top_k)
MAX_TOP_K = 500
_FETCH_BATCH = 500

_LETTERS = re.compile(r"[^\W\d_]+")


# -- results --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mention:
    chunk_id: str
    document: str
    document_id: str
    matched_text: str  # as written in the document
    kind: str  # "exact" | "fuzzy"
    similarity: float  # 1.0 for exact mentions
    citation: str
    snippet: str
    match_start: int  # offsets of matched_text in the chunk's text
    match_end: int
    seq: int = 0  # the chunk's position in its document (reading order)

    def to_json(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "matched_text": self.matched_text,
            "kind": self.kind,
            "similarity": self.similarity,
            "citation": self.citation,
            "snippet": self.snippet,
            "match_start": self.match_start,
            "match_end": self.match_end,
        }


@dataclass
class DocumentMentions:
    document: str
    document_id: str
    exact_count: int = 0  # every verified mention, also those beyond top_k
    fuzzy_count: int = 0
    mentions: list[Mention] = field(default_factory=list)  # the ones within top_k, best first

    def to_json(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "document_id": self.document_id,
            "exact_count": self.exact_count,
            "fuzzy_count": self.fuzzy_count,
            "mentions": [m.to_json() for m in self.mentions],
        }


@dataclass
class EntityResult:
    entity: str
    entity_type: str
    case: str
    normalized: str  # the entity's words as compared
    citation_mode: bool
    documents: list[DocumentMentions] = field(default_factory=list)
    exact_count: int = 0
    fuzzy_count: int = 0
    shown: int = 0
    truncated: bool = False  # more mentions were found than top_k
    candidates_checked: int = 0
    warnings: list[str] = field(default_factory=list)
    # A CNJ process number asked for, decoded: number, valid, expected_check_digits, tribunal, segment
    process_number: dict[str, Any] | None = None

    @property
    def mentions(self) -> list[Mention]:
        return [m for d in self.documents for m in d.mentions]

    def to_json(self) -> dict[str, Any]:
        return {
            "entity": self.entity,
            "entity_type": self.entity_type,
            "case": self.case,
            "normalized": self.normalized,
            "citation_mode": self.citation_mode,
            "exact_count": self.exact_count,
            "fuzzy_count": self.fuzzy_count,
            "shown": self.shown,
            "truncated": self.truncated,
            "candidates_checked": self.candidates_checked,
            "documents": [d.to_json() for d in self.documents],
            "warnings": self.warnings,
            "process_number": self.process_number,
        }


# -- recall ---------------------------------------------------------------------------------------


def _run(
    store: CaseStore, query: tantivy.Query, limit: int, doc_ids: set[str] | None = None
) -> list[tuple[str, str]]:
    if doc_ids is not None:  # inside the query, so the limit counts only chunks that pass the filter
        within = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(store.bm25.schema, "doc_id", d))
                for d in doc_ids
            ]
        )
        query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, within)])
    searcher = store.bm25.index.searcher()
    result = searcher.search(query, limit=limit)
    out = []
    for _score, address in result.hits:
        doc = searcher.doc(address)
        out.append((str(doc["chunk_id"][0]), str(doc["doc_id"][0])))
    return out


def _loose_clauses(
    store: CaseStore, entity: str, variants: list[str]
) -> list[tuple[tantivy.Occur, tantivy.Query]]:
    """The OR query's clauses: the entity's terms, its variants' and misreadings', fuzzy terms."""
    analyzer, schema = store.bm25.analyzer, store.bm25.schema
    terms: list[str] = []
    for text in [entity, *variants]:
        terms += analyzer.terms(text)
    # Only exact terms find an OCR misreading of a short word or one with "rn" for "m": edit
    # distance 1 is too little for them, and more lets in too much.
    for word in _LETTERS.findall(fold(entity)):
        if len(word) >= MISREAD_MIN_WORD:
            terms += [t for misread in misreadings(word) for t in analyzer.terms(misread)]
    terms = list(dict.fromkeys(terms))
    # Single letters ("v", the "u", "s", "c" of U.S.C.) are everywhere: only if nothing else is left.
    terms = [t for t in terms if len(t) > 1] or terms
    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = [
        (tantivy.Occur.Should, tantivy.Query.term_query(schema, "text", t)) for t in terms
    ]
    fuzzy_terms: list[str] = []
    for word in _LETTERS.findall(entity):
        if len(word) >= FUZZY_MIN_WORD:
            fuzzy_terms += analyzer.terms(word) + analyzer.terms(fold(word))
    for term in dict.fromkeys(fuzzy_terms):
        distance = 2 if len(term) >= 8 else 1
        query = tantivy.Query.fuzzy_term_query(schema, "text", term, distance=distance)
        clauses.append((tantivy.Occur.Should, query))
    return clauses


def _recall(
    store: CaseStore, entity: str, variants: list[str], loose_limit: int, doc_ids: set[str] | None = None
) -> tuple[list[str], bool]:
    """Candidate chunk ids (committed ones only) and whether a recall limit was reached."""
    analyzer, schema = store.bm25.analyzer, store.bm25.schema
    hits: list[tuple[str, str]] = []
    limited = False
    phrase = analyzer.positions(entity)
    if len(phrase) > 1:
        first = phrase[0][0]
        words: list[str | tuple[int, str]] = [(pos - first, token) for pos, token in phrase]
        found = _run(store, tantivy.Query.phrase_query(schema, "text", words), PHRASE_RECALL, doc_ids)
        hits += found
        limited = len(found) >= PHRASE_RECALL
    clauses = _loose_clauses(store, entity, variants)
    if clauses:
        found = _run(store, tantivy.Query.boolean_query(clauses), loose_limit, doc_ids)
        hits += found
        limited = limited or len(found) >= loose_limit
    visible = store.visible()
    ids = [cid for cid, doc in hits if visible.get(doc) == gen_of_chunk(cid)]
    return list(dict.fromkeys(ids)), limited


# -- the operation --------------------------------------------------------------------------------


def find_entity(
    store: CaseStore, entity: str, entity_type: str = "any", top_k: int = 20, doc_ids: set[str] | None = None
) -> EntityResult:
    """Exact and fuzzy mentions of `entity` in the case's committed documents.

    Mentions are ranked exact first, then by similarity, then in reading order; the first
    `top_k` are returned, grouped per document (documents with exact mentions first), while
    each document's exact_count / fuzzy_count count every mention found. Nothing found gives an
    empty result, not an error. `doc_ids`: only these documents (the search filters).
    """
    kind = entity_type.strip().lower()
    if kind not in ENTITY_TYPES:
        raise CaseTrackError(
            f"Unknown entity type '{entity_type}'.", f"Use one of: {', '.join(ENTITY_TYPES)}."
        )
    if not 1 <= top_k <= MAX_TOP_K:
        raise CaseTrackError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}.", "Use top_k=20.")
    citation = kind in CITATION_TYPES or (kind == "any" and looks_like_citation(entity))
    wanted = [t[0] for t in tokens(entity, citation)]
    if not wanted:
        raise CaseTrackError(
            "The entity to find has no words or numbers.", 'Give a name or citation, e.g. "Smith v. Jones".'
        )
    result = EntityResult(entity.strip(), kind, store.record.name, " ".join(wanted), citation)
    _decode_process_number(result)
    variants = list(dict.fromkeys([fold(entity), result.normalized]))
    candidates, limited = _recall(store, entity, variants, max(LOOSE_RECALL, 10 * top_k), doc_ids)
    result.candidates_checked = len(candidates)
    if limited:
        result.warnings.append(
            "Keyword recall stopped at its limit: documents with very many passages mentioning "
            "these words may have more mentions than counted."
        )
    documents = {e.doc_id: e for e in store.documents()}
    mentions: list[Mention] = []
    for start in range(0, len(candidates), _FETCH_BATCH):
        rows = store.lance.fetch_chunks(candidates[start : start + _FETCH_BATCH], RESULT_COLUMNS)
        for chunk_id in candidates[start : start + _FETCH_BATCH]:
            row = rows.get(chunk_id)
            if row is not None:
                mentions += _mentions_in(row, wanted, citation, documents)
    mentions += _recorded(store, entity, documents, doc_ids, mentions)
    mentions.sort(
        key=lambda m: (m.kind != "exact", -m.similarity, m.document.casefold(), m.seq, m.match_start)
    )
    result.documents = _by_document(mentions, top_k)
    result.exact_count = sum(d.exact_count for d in result.documents)
    result.fuzzy_count = sum(d.fuzzy_count for d in result.documents)
    result.shown = min(top_k, len(mentions))
    result.truncated = len(mentions) > top_k
    return result


def _decode_process_number(result: EntityResult) -> None:
    """A CNJ number asked for: its tribunal, and a warning when its check digits do not hold."""
    cnj = parse_cnj(result.entity)
    if cnj is None:
        return
    result.process_number = {
        "number": cnj.key,
        "valid": cnj.valid,
        "expected_check_digits": cnj.expected_check_digits,
        "tribunal": cnj.tribunal,
        "segment": cnj.segment_name,
    }
    if problem := cnj.problem():
        result.warnings.append(problem[0].upper() + problem[1:])


def _recorded(
    store: CaseStore,
    entity: str,
    documents: dict[str, JournalEntry],
    doc_ids: set[str] | None,
    found: list[Mention],
) -> list[Mention]:
    """Mentions ingest recorded for the authority or process number `entity` names, written
    another way than the words matched ("artigo 14 da Lei 8.078/90" for "art. 14 do CDC")."""
    from casetrack.search.entities.authorities import recorded_mentions

    taken = {(m.chunk_id, m.match_start, m.match_end) for m in found}
    out = []
    for row, start, end in recorded_mentions(store, entity, documents, doc_ids):
        chunk_id = str(row["chunk_id"])
        if any(c == chunk_id and s < end and start < e for c, s, e in taken):  # matched by its words already
            continue
        out.append(_mention(row, provenance(row, documents), start, end, 1.0))
        taken.add((chunk_id, start, end))
    return out


def _by_document(mentions: list[Mention], top_k: int) -> list[DocumentMentions]:
    """Ranked mentions per document: all of them counted, the first `top_k` kept."""
    groups: dict[str, DocumentMentions] = {}
    for i, m in enumerate(mentions):
        group = groups.setdefault(m.document_id, DocumentMentions(m.document, m.document_id))
        if m.kind == "exact":
            group.exact_count += 1
        else:
            group.fuzzy_count += 1
        if i < top_k:
            group.mentions.append(m)
    return sorted(
        groups.values(),
        key=lambda d: (
            -d.exact_count,
            -max((m.similarity for m in d.mentions), default=0.0),
            -d.fuzzy_count,
            d.document.casefold(),
        ),
    )


def _mentions_in(
    row: dict[str, Any],
    wanted: list[str],
    citation: bool,
    documents: dict[str, JournalEntry],
) -> list[Mention]:
    text = str(row["text"])
    words = tokens(text, citation)
    found = match_tokens(words, wanted)
    if not found:
        return []
    prov = provenance(row, documents)
    return [_mention(row, prov, words[m.first][1], words[m.last][2], m.similarity) for m in found]


def _mention(row: dict[str, Any], prov: Provenance, start: int, end: int, similarity: float) -> Mention:
    """The mention text[start:end] of a chunk row, cited to its own lines."""
    text = str(row["text"])
    return Mention(
        chunk_id=str(row["chunk_id"]),
        document=prov.document,
        document_id=prov.document_id,
        matched_text=text[start:end],
        kind="exact" if similarity >= 1.0 else "fuzzy",
        similarity=round(similarity, 3),
        citation=lines_cite(prov, row, start, end).citation(),
        snippet=snippet_around(text, start, end),
        match_start=start,
        match_end=end,
        seq=int(row.get("seq") or 0),
    )
