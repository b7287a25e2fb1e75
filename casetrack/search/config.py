"""Search pipeline settings: which lists are recalled and fused, with what weights, and the
boost and rerank stages. Defaults are what the retrieval benchmarks chose (bench/RESULTS.md);
every benchmark ablation is one `SearchConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from casetrack.domain.slots import LISTS

__all__ = ["LISTS", "SearchConfig"]


@dataclass(frozen=True)
class SearchConfig:
    # Stage 1-2: each enabled list contributes its top-N candidates, fused by weighted RRF.
    # Default = the "+boost" row of bench/retrieval.py (2026-11-23): against BM25 + E1 alone it
    # matched or beat it on every dataset (ACORD nDCG@10 .239 -> .267, CUAD span recall@10
    # .612 -> .642, JurisTCU .786 -> .788, ContractNLI equal). Rerank stays off: the ColBERT model
    # available here is an untrained stand-in (+.002 ACORD, -.001 JurisTCU, +60 ms p95).
    lists: tuple[str, ...] = ("bm25", "dense", "sparse", "e7")
    # Lists left out for a case language. E7 (all-MiniLM-L6-v2) is an English model: on both
    # Portuguese sets it cost nDCG/MRR (JurisTCU @10 .794 -> .785, lawyer PT MRR@10 .573 -> .544,
    # bench/RESULTS.md) while it helps English ones. Ablation rows set this to {}.
    skip_lists: dict[str, tuple[str, ...]] = field(default_factory=lambda: {"pt": ("e7",)})
    # Dense nearest neighbours join BM25 in recall (else dense only ranks BM25's candidates).
    dense_recall: bool = True
    bm25_candidates: int = 100
    dense_candidates: int = 100
    sparse_candidates: int = 100
    e7_candidates: int = 100
    # E1 ranks a chunk by its own vector plus its best passage window (chunk/windows.py).
    dense_windows: bool = True
    rrf_k: int = 60
    # A query that sets a scene before its question ("Consider the supply agreement between Acme
    # and Beta; what is the notice period?") adds one more list: E1 of the question alone
    # (search/pipeline.py `_question_list`), with this weight. bench/RESULTS.md, 2026-11-25:
    # CUAD span recall@5 .508 -> .580, CUAD PDFs top-1 page .15 -> .18; 0 to -0.02 elsewhere.
    question_weight: float = 1.0
    weights: dict[str, float] = field(default_factory=lambda: {name: 1.0 for name in LISTS})
    # Stage 3: exact-match boost (quoted phrases, citations, numbers, party names...).
    boost: bool = True
    boost_weight: float = 1.0
    # Shrink a signal that most candidates hold (e.g. the contract's title or parties quoted in
    # a question about one of its clauses): it cannot tell the candidates apart.
    boost_discount_common: bool = True
    # A party's name in the query lifts every candidate of a document that names the party, not
    # only the chunks that do (the cover page, the signature block).
    boost_names_by_document: bool = True
    # Weight of the heading cue (a chunk whose heading holds the query's words; boost.HEADING_WEIGHT
    # is the suggested value). Off by default until it measures a gain.
    boost_heading_weight: float = 0.0
    # A query that names its document (parties, title, process number: rare words its first
    # chunk holds) adds a "focus" list: BM25 of the rest of the question inside that document
    # (search/naming.py), so the answer is not outranked by the cover page that repeats the names.
    focus: bool = True
    # A keyword query (at most four content words) lifts chunks with a line about the term (its
    # heading, definition) by this many first places (search/topic.py). Off: on 39 hand-checked
    # keyword terms the pipeline without it already puts the clause first (EN hit@1 .958 either
    # way; PT MRR@10 .856 without, .836 with) and it cost ACORD .005 nDCG (bench/RESULTS.md).
    topic_weight: float = 0.0
    # A candidate whose text reproduces the query (a pasted passage, 8+ words, allowing
    # whitespace, hyphenation, quotes, case and OCR-like noise) ranks above all others
    # (search/verbatim.py).
    verbatim: bool = True
    # Stage 4: late-interaction MaxSim over the top `rerank_top` fused candidates.
    rerank: bool = False
    rerank_top: int = 50
    rerank_weight: float = 0.5
    max_top_k: int = 100
    # Reuse the query vectors of a recent identical query (paging, per-document view). Latency
    # benchmarks turn it off: they repeat each query once per configuration.
    cache_queries: bool = True

    def __post_init__(self) -> None:
        unknown = [name for name in self.lists if name not in LISTS]
        if unknown or not self.lists:
            raise ValueError(f"lists must be a non-empty subset of {LISTS}, got {self.lists}")

    def lists_for(self, language: str) -> tuple[str, ...]:
        """The lists a search of a case in `language` fuses ("pt-BR" counts as "pt")."""
        skip = self.skip_lists.get(language.lower().split("-")[0], ())
        return tuple(name for name in self.lists if name not in skip) or self.lists

    def with_(self, **changes: object) -> SearchConfig:
        """A copy with some settings changed (benchmarks build their ablations this way)."""
        return replace(self, **changes)  # type: ignore[arg-type]
