"""Search settings: one frozen group per stage of ranking, in the order the stages run.

Defaults are what the retrieval benchmarks chose (bench/RESULTS.md); every benchmark ablation is
one `SearchConfig`, usually written with the flat names of `SearchConfig.of` / `with_`
(`boost=False`, `boost_weight=2.0`, `rerank=True`, `lists=("bm25", "dense")`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from casetrack.domain.slots import LISTS
from casetrack.search.ranking.relevance import CALIBRATED, Calibration

__all__ = [
    "LISTS",
    "BoostSettings",
    "EchoSettings",
    "LabelSettings",
    "FocusSettings",
    "FusionSettings",
    "RecallSettings",
    "RerankSettings",
    "SearchConfig",
    "TopicSettings",
    "VerbatimSettings",
    "WordsSettings",
]


@dataclass(frozen=True)
class RecallSettings:
    """Stage 1: which chunks become candidates."""

    bm25_candidates: int = 100
    dense_candidates: int = 100
    # Dense nearest neighbours join BM25 in recall (else dense only ranks BM25's candidates).
    dense_recall: bool = True


@dataclass(frozen=True)
class FusionSettings:
    """Stage 2: the lists that rank every candidate, fused by weighted reciprocal rank fusion."""

    # Default = the "+boost" row of bench/retrieval.py (2026-11-23): against BM25 + E1 alone it
    # matched or beat it on every dataset (ACORD nDCG@10 .239 -> .267, CUAD span recall@10
    # .612 -> .642, JurisTCU .786 -> .788, ContractNLI equal).
    lists: tuple[str, ...] = ("bm25", "dense", "sparse", "e7")
    # Lists left out for a case language. E7 (all-MiniLM-L6-v2) is an English model: on both
    # Portuguese sets it cost nDCG/MRR (JurisTCU @10 .794 -> .785, lawyer PT MRR@10 .573 -> .544,
    # bench/RESULTS.md) while it helps English ones. Ablation rows set this to {}.
    skip_lists: dict[str, tuple[str, ...]] = field(default_factory=lambda: {"pt": ("e7",)})
    # E1 ranks a chunk by its own vector plus its best passage window (chunk/windows.py).
    dense_windows: bool = True
    rrf_k: int = 60
    weights: dict[str, float] = field(default_factory=lambda: {name: 1.0 for name in LISTS})
    # A query that sets a scene before its question ("Consider the supply agreement between Acme
    # and Beta; what is the notice period?") adds one more list: E1 of the question alone, with
    # this weight. bench/RESULTS.md, 2026-11-25: CUAD span recall@5 .508 -> .580, CUAD PDFs
    # top-1 page .15 -> .18; 0 to -0.02 elsewhere.
    question_weight: float = 1.0


@dataclass(frozen=True)
class FocusSettings:
    """A query that names its document (parties, title, process number: rare words its first chunk
    holds) adds a "focus" list, BM25 of the rest of the question inside that document, and its
    chunks trade places by it (ranking/naming.py): the cover page that repeats the names does not
    outrank the clause that answers."""

    on: bool = True


@dataclass(frozen=True)
class BoostSettings:
    """Stage 3: exact-match signals of the query (quoted phrases, citations, numbers, names...)."""

    on: bool = True
    weight: float = 1.0
    # Shrink a signal that most candidates hold (e.g. the contract's title or parties quoted in
    # a question about one of its clauses): it cannot tell the candidates apart.
    discount_common: bool = True
    # A party's name in the query lifts every candidate of a document that names the party, not
    # only the chunks that do (the cover page, the signature block).
    names_by_document: bool = True
    # Weight of the heading cue (a chunk whose heading holds the query's words; boost.HEADING_WEIGHT
    # is the suggested value). Off by default until it measures a gain.
    heading_weight: float = 0.0


@dataclass(frozen=True)
class EchoSettings:
    """A passage that repeats a run of the question's own content words in order gets up to `weight`
    more first places (ranking/echo.py), so a wrong guess in the caller's likely wording cannot bury
    where the question's words are; with `only_with_words`, only when the caller gave words."""

    weight: float = 1.0
    only_with_words: bool = True


@dataclass(frozen=True)
class TopicSettings:
    """A keyword query (at most four content words) lifts chunks with a line about the term (its
    heading, definition) by `weight` first places (ranking/topic.py). Off: on 39 hand-checked
    keyword terms the pipeline without it already puts the clause first (EN hit@1 .958 either
    way; PT MRR@10 .856 without, .836 with) and it cost ACORD .005 nDCG (bench/RESULTS.md)."""

    weight: float = 0.0


@dataclass(frozen=True)
class RerankSettings:
    """Stage 4: late-interaction MaxSim over the top `top` candidates, as one more ranked list.
    Off: the ColBERT model available here is an untrained stand-in (+.002 ACORD, -.001
    JurisTCU, +60 ms p95)."""

    on: bool = False
    top: int = 50
    weight: float = 0.5


@dataclass(frozen=True)
class VerbatimSettings:
    """A candidate whose text reproduces the query (a pasted passage, 8+ words, allowing
    whitespace, hyphenation, quotes, case and OCR-like noise) ranks above all others
    (ranking/verbatim.py)."""

    on: bool = True


@dataclass(frozen=True)
class WordsSettings:
    """How the caller's keywords and likely wording (issue 27) are used, when given: evidence of the
    answer's words. The question alone still names documents, is matched verbatim, boosts by its
    exact signals and is rated; the pin-cite weighs the words below the question's own.

    Defaults chosen on the spent blind sets with words written blind to the documents
    (bench/RESULTS.md, "The caller's words"): BM25, E1 and E6 read the question, keywords and
    likely wording as one text (as a careful searcher would type them), E7 the question alone.
    Separate lists for the question alone (BM25, E1) or for the wording alone each measured worse:
    many lists of equal say drown the one that reads everything."""

    expand_bm25: bool = True
    # BM25 of the question alone as one more list, with this weight (0: not at all).
    question_bm25_weight: float = 0.0
    # E1 of the likely wording alone as one more list, with this weight (0: not at all); encoded as
    # a passage (it is worded like one); `wording_recall` adds its nearest neighbours to recall.
    wording_weight: float = 0.0
    wording_as_passage: bool = True
    wording_recall: bool = False
    # E1, E6 (sparse) and E7 read the expanded text (else the question alone); with E1 expanded,
    # E1 of the question alone ranks too, with `dense_question_weight` (0: not at all).
    expand_dense: bool = True
    dense_question_weight: float = 0.0
    expand_sparse: bool = True
    expand_e7: bool = False
    # The pin-cite weighs the keywords' and wording's terms beside the question's, at this role.
    pin_weight: float = 0.3
    # A question asking for a standard provision by its purpose, with no keywords of the caller's,
    # gets the provision's usual words as keywords (search/query/clauses.py).
    provisions: bool = True


@dataclass(frozen=True)
class LabelSettings:
    """How results are rated: `model` turns each result's evidence into the chance that it holds the
    answer (ranking/relevance.py); None rates with the older fixed formula."""

    model: Calibration | None = CALIBRATED


# The groups of SearchConfig, by attribute name (also the prefix of their flat names).
_GROUPS = ("recall", "fusion", "focus", "boost", "echo", "topic", "rerank", "verbatim", "words", "labels")


@dataclass(frozen=True)
class SearchConfig:
    recall: RecallSettings = field(default_factory=RecallSettings)
    fusion: FusionSettings = field(default_factory=FusionSettings)
    focus: FocusSettings = field(default_factory=FocusSettings)
    boost: BoostSettings = field(default_factory=BoostSettings)
    echo: EchoSettings = field(default_factory=EchoSettings)
    topic: TopicSettings = field(default_factory=TopicSettings)
    rerank: RerankSettings = field(default_factory=RerankSettings)
    verbatim: VerbatimSettings = field(default_factory=VerbatimSettings)
    words: WordsSettings = field(default_factory=WordsSettings)
    labels: LabelSettings = field(default_factory=LabelSettings)
    max_top_k: int = 100
    # Reuse the query vectors of a recent identical query (paging, per-document view). Latency
    # benchmarks turn it off: they repeat each query once per configuration.
    cache_queries: bool = True

    def __post_init__(self) -> None:
        lists = self.fusion.lists
        unknown = [name for name in lists if name not in LISTS]
        if unknown or not lists:
            raise ValueError(f"lists must be a non-empty subset of {LISTS}, got {lists}")

    def lists_for(self, language: str) -> tuple[str, ...]:
        """The lists a search of a case in `language` fuses ("pt-BR" counts as "pt")."""
        skip = self.fusion.skip_lists.get(language.lower().split("-")[0], ())
        return tuple(name for name in self.fusion.lists if name not in skip) or self.fusion.lists

    @classmethod
    def of(cls, **flat: Any) -> SearchConfig:
        """A config from flat names (see `with_`)."""
        return cls().with_(**flat)

    def with_(self, **flat: Any) -> SearchConfig:
        """A copy with some settings changed, by flat name: a group's name alone switches it
        (`boost=False`, `rerank=True`; `topic=2.0` sets its weight), `<group>_<field>` sets one
        field (`boost_weight=2.0`, `rerank_top=20`), and a field name that only one group has
        needs no prefix (`lists`, `dense_recall`, `rrf_k`, `question_weight`). Benchmarks build
        their ablations this way."""
        groups: dict[str, dict[str, Any]] = {}
        top: dict[str, Any] = {}
        for name, value in flat.items():
            group, attr = _flat_name(name)
            if group is None:
                top[attr] = value
            else:
                groups.setdefault(group, {})[attr] = value
        changed = {g: replace(getattr(self, g), **changes) for g, changes in groups.items()}
        return replace(self, **changed, **top)


def _flat_name(name: str) -> tuple[str | None, str]:
    """(group, field) of a flat setting name; (None, name) for SearchConfig's own fields."""
    if name in ("max_top_k", "cache_queries") or name in _GROUPS and name in ("recall", "fusion"):
        return None, name
    if name in _GROUPS and name not in ("words", "labels"):
        return name, "weight" if name in ("topic", "echo") else "on"
    for group in _GROUPS:
        if name.startswith(group + "_") and name[len(group) + 1 :] in _field_names(group):
            return group, name[len(group) + 1 :]
    owners = [g for g in _GROUPS if name in _field_names(g)]
    if len(owners) == 1:
        return owners[0], name
    raise ValueError(f"unknown search setting {name!r}")


def _field_names(group: str) -> set[str]:
    cls = {f.name: f.type for f in fields(SearchConfig)}[group]
    settings = globals()[cls] if isinstance(cls, str) else cls
    return {f.name for f in fields(settings)}
