"""Every mention of a name or citation across a case, exact and fuzzy.

1. Recall: the case's tantivy index (its language's analyzer) gives candidate chunks: a phrase
   query of the entity (every chunk that has it as typed, up to PHRASE_RECALL), then one OR query
   of its terms, the terms of its accent-free and citation-normalised forms, and fuzzy terms
   (edit distance 1, 2 from eight letters) for words of FUZZY_MIN_WORD letters or more.
2. Verify: chunk text and entity are folded the same way (lowercase, accents removed, offsets
   kept) and cut into words, so punctuation and spacing never matter ("Smith v. Jones" is
   "SMITH V JONES", "Ação" is "acao"). Citations (entity_type statute / case_citation, or an
   entity with digits, "§" or "v.") are normalised further: initials joined ("U.S.C." = "USC"),
   "sec." / "section" / "nº" / "No." before a number dropped like "§", "vs." = "v.",
   "artigo" = "art.", "5º" = "5", digit groups joined ("0001234-56.2023..." =
   "0001234562023..."). An exact mention has the
   entity's words in order; a fuzzy one is a window of about as many words (one fewer to one
   more) whose difflib ratio with the entity is FUZZY_THRESHOLD or more, with the same numbers
   (a different section number is another statute, not a typo).
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import tantivy

from casetrack.errors import CaseTrackError
from casetrack.search.results import provenance
from casetrack.store.case_store import CaseStore, gen_of_chunk
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import RESULT_COLUMNS

ENTITY_TYPES = ("person", "court", "statute", "case_citation", "organization", "any")
CITATION_TYPES = frozenset({"statute", "case_citation"})
FUZZY_THRESHOLD = 0.85
FUZZY_MIN_WORD = 5  # words this long get fuzzy recall terms
PHRASE_RECALL = 2000  # chunks holding the entity as a phrase: all of them, in practice
LOOSE_RECALL = 300  # chunks from the OR query of terms and fuzzy terms (at least; 10 x top_k)
MAX_TOP_K = 500
SNIPPET_CHARS = 80  # each side of a mention
_FETCH_BATCH = 500

_WORD = re.compile(r"[^\W_]+")
_LETTERS = re.compile(r"[^\W\d_]+")
_CITATION_HINT = re.compile(r"\d|§|(?<!\w)(?:v|vs|versus)\.?\s", re.IGNORECASE)
_ORDINAL = re.compile(r"(\d+)[oa]")
_CITE_DROP = frozenset("sec secs section sections n no nos nr num numero number".split())
_CITE_SAME = {"vs": "v", "versus": "v", "artigo": "art", "artigos": "art", "arts": "art", "article": "art",
              "articles": "art"}

Token = tuple[str, int, int]  # normalised word, start and end in the original text


# -- normalisation --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _fold_char(ch: str) -> str:
    low = ch.lower()
    if len(low) != 1:
        low = ch
    base = "".join(c for c in unicodedata.normalize("NFKD", low) if not unicodedata.combining(c))
    return base if len(base) == 1 else low


def fold(text: str) -> str:
    """Lowercase without accents, one character per character: offsets stay those of `text`."""
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(c) for c in text)


def looks_like_citation(entity: str) -> bool:
    """Digits, "§" or a "v." between parties: normalise it as a citation."""
    return bool(_CITATION_HINT.search(entity))


def tokens(text: str, citation: bool = False) -> list[Token]:
    """The normalised words of `text` with their spans (see the module docstring)."""
    folded = fold(text)
    words: list[Token] = [(m[0], m.start(), m.end()) for m in _WORD.finditer(folded)]
    if not citation:
        return words
    out: list[Token] = []
    initials = False  # out[-1] is a run of single letters ("u", "us", ...)
    for word, start, end in words:
        if out:
            prev, prev_start, prev_end = out[-1]
            gap = folded[prev_end:start]
            if prev.isdigit() and word.isdigit() and gap in (".", "-", "/"):
                out[-1] = (prev + word, prev_start, end)
                continue
            if initials and len(word) == 1 and word.isalpha() and "." in gap and not gap.strip(". "):
                if len(gap) <= 2:
                    out[-1] = (prev + word, prev_start, end)
                    continue
        out.append((word, start, end))
        initials = len(word) == 1 and word.isalpha()
    canonical: list[Token] = []
    for k, (word, start, end) in enumerate(out):
        if word in _CITE_DROP and k + 1 < len(out) and out[k + 1][0][:1].isdigit():
            continue  # "§"-like words before a number: "sec. 1983", "nº 123", "No. 12"
        ordinal = _ORDINAL.fullmatch(word)
        canonical.append((ordinal[1] if ordinal else _CITE_SAME.get(word, word), start, end))
    return canonical


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
        }


# -- matching -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Match:
    first: int  # token indexes, inclusive
    last: int
    similarity: float


def _numbers(words: Iterable[str]) -> list[str]:
    return sorted(w for w in words if w.isdigit())


def match_tokens(
    text_tokens: list[Token], entity: list[str], shared_of: dict[str, int] | None = None
) -> list[_Match]:
    """Exact and fuzzy mentions of the `entity` words among `text_tokens`, without overlaps.

    `shared_of` caches, per word, how many characters it shares with the entity: pass the same
    dict for every chunk of one search.
    """
    n = len(entity)
    words = [t[0] for t in text_tokens]
    found: list[_Match] = []
    taken = np.zeros(len(words) + 1, dtype=bool)
    for i in range(len(words) - n + 1):
        if words[i] == entity[0] and words[i : i + n] == entity and not taken[i : i + n].any():
            found.append(_Match(i, i + n - 1, 1.0))
            taken[i : i + n] = True
    target = " ".join(entity)
    numbers = _numbers(entity)
    # difflib's ratio is at most 2 x shared characters / total length; counted word by word
    # (prefix sums), that bound rules out almost every window before difflib runs.
    wanted = Counter(target.replace(" ", ""))
    cache = {} if shared_of is None else shared_of
    common_chars = np.zeros(len(words) + 1, dtype=np.int64)
    lengths = np.zeros(len(words) + 1, dtype=np.int64)
    for i, word in enumerate(words, start=1):
        common = cache.get(word)
        if common is None:
            common = cache[word] = sum((Counter(word) & wanted).values())
        common_chars[i], lengths[i] = common, len(word)
    common_chars, lengths = np.cumsum(common_chars), np.cumsum(lengths)
    blocked = np.concatenate([[0], np.cumsum(taken[:-1])])  # exact-match words among the first i
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    fuzzy: list[_Match] = []
    for size in sorted({max(1, n - 1), n, n + 1}):
        if size > len(words):
            continue
        window_len = lengths[size:] - lengths[:-size] + size - 1
        total = window_len + len(target)
        shared = common_chars[size:] - common_chars[:-size] + min(size, n) - 1
        free = (blocked[size:] - blocked[:-size]) == 0
        short = np.minimum(window_len, len(target))
        possible = free & (2 * shared >= FUZZY_THRESHOLD * total) & (2 * short >= FUZZY_THRESHOLD * total)
        for i in np.nonzero(possible)[0].tolist():
            window = words[i : i + size]
            if _numbers(window) != numbers:
                continue
            matcher.set_seq1(" ".join(window))
            if matcher.quick_ratio() < FUZZY_THRESHOLD:
                continue
            ratio = matcher.ratio()
            if FUZZY_THRESHOLD <= ratio < 1.0:
                fuzzy.append(_Match(i, i + size - 1, ratio))
    for m in sorted(fuzzy, key=lambda m: (-m.similarity, m.first)):
        if not taken[m.first : m.last + 1].any():
            found.append(m)
            taken[m.first : m.last + 1] = True
    return sorted(found, key=lambda m: m.first)


def snippet_around(text: str, start: int, end: int, width: int = SNIPPET_CHARS) -> str:
    """About `width` characters each side of text[start:end], cut at spaces, on one line."""
    a, b = max(0, start - width), min(len(text), end + width)
    if a > 0:
        space = text.find(" ", a, start)
        a = space + 1 if space >= 0 else a
    if b < len(text):
        space = text.rfind(" ", end, b)
        b = space if space >= 0 else b
    body = " ".join(text[a:b].split())
    return ("… " if a > 0 else "") + body + (" …" if b < len(text.rstrip()) else "")


# -- recall ---------------------------------------------------------------------------------------


def _run(store: CaseStore, query: tantivy.Query, limit: int) -> list[tuple[str, str]]:
    searcher = store.bm25.index.searcher()
    result = searcher.search(query, limit=limit)
    out = []
    for _score, address in result.hits:
        doc = searcher.doc(address)
        out.append((str(doc["chunk_id"][0]), str(doc["doc_id"][0])))
    return out


def _recall(store: CaseStore, entity: str, variants: list[str], loose_limit: int) -> tuple[list[str], bool]:
    """Candidate chunk ids (committed ones only) and whether a recall limit was reached."""
    index = store.bm25
    analyzer, schema = index.analyzer, index.schema
    hits: list[tuple[str, str]] = []
    limited = False
    phrase = analyzer.positions(entity)
    if len(phrase) > 1:
        first = phrase[0][0]
        words: list[str | tuple[int, str]] = [(pos - first, token) for pos, token in phrase]
        found = _run(store, tantivy.Query.phrase_query(schema, "text", words), PHRASE_RECALL)
        hits += found
        limited = len(found) >= PHRASE_RECALL
    terms: list[str] = []
    for text in [entity, *variants]:
        terms += analyzer.terms(text)
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
    if clauses:
        found = _run(store, tantivy.Query.boolean_query(clauses), loose_limit)
        hits += found
        limited = limited or len(found) >= loose_limit
    visible = store.visible()
    ids = [cid for cid, doc in hits if visible.get(doc) == gen_of_chunk(cid)]
    return list(dict.fromkeys(ids)), limited


# -- the operation --------------------------------------------------------------------------------


def find_entity(store: CaseStore, entity: str, entity_type: str = "any", top_k: int = 20) -> EntityResult:
    """Exact and fuzzy mentions of `entity` in the case's committed documents.

    Mentions are ranked exact first, then by similarity, then in reading order; the first
    `top_k` are returned, grouped per document (documents with exact mentions first), while
    each document's exact_count / fuzzy_count count every mention found. Nothing found gives an
    empty result, not an error.
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
    variants = list(dict.fromkeys([fold(entity), result.normalized]))
    candidates, limited = _recall(store, entity, variants, max(LOOSE_RECALL, 10 * top_k))
    result.candidates_checked = len(candidates)
    if limited:
        result.warnings.append(
            "Keyword recall stopped at its limit: documents with very many passages mentioning "
            "these words may have more mentions than counted."
        )
    documents = {e.doc_id: e for e in store.documents()}
    mentions: list[Mention] = []
    shared_chars: dict[str, int] = {}
    for start in range(0, len(candidates), _FETCH_BATCH):
        rows = store.lance.fetch_chunks(candidates[start : start + _FETCH_BATCH], RESULT_COLUMNS)
        for chunk_id in candidates[start : start + _FETCH_BATCH]:
            row = rows.get(chunk_id)
            if row is not None:
                mentions += _mentions_in(row, wanted, citation, documents, shared_chars)
    mentions.sort(key=lambda m: (m.kind != "exact", -m.similarity, m.document.casefold(), m.seq, m.match_start))
    groups: dict[str, DocumentMentions] = {}
    for i, m in enumerate(mentions):
        group = groups.setdefault(m.document_id, DocumentMentions(m.document, m.document_id))
        if m.kind == "exact":
            group.exact_count += 1
        else:
            group.fuzzy_count += 1
        if i < top_k:
            group.mentions.append(m)
    result.documents = sorted(
        groups.values(),
        key=lambda d: (-d.exact_count, -max((m.similarity for m in d.mentions), default=0.0),
                       -d.fuzzy_count, d.document.casefold()),
    )
    result.exact_count = sum(d.exact_count for d in result.documents)
    result.fuzzy_count = sum(d.fuzzy_count for d in result.documents)
    result.shown = min(top_k, len(mentions))
    result.truncated = len(mentions) > top_k
    return result


def _mentions_in(
    row: dict[str, Any],
    wanted: list[str],
    citation: bool,
    documents: dict[str, JournalEntry],
    shared_chars: dict[str, int],
) -> list[Mention]:
    text = str(row["text"])
    words = tokens(text, citation)
    found = match_tokens(words, wanted, shared_chars)
    if not found:
        return []
    prov = provenance(row, documents)
    out = []
    for m in found:
        start, end = words[m.first][1], words[m.last][2]
        out.append(
            Mention(
                chunk_id=str(row["chunk_id"]),
                document=prov.document,
                document_id=prov.document_id,
                matched_text=text[start:end],
                kind="exact" if m.similarity >= 1.0 else "fuzzy",
                similarity=round(m.similarity, 3),
                citation=prov.citation(),
                snippet=snippet_around(text, start, end),
                match_start=start,
                match_end=end,
                seq=int(row.get("seq") or 0),
            )
        )
    return out
