"""Questions that name their document: the names pick the document, the rest picks the passage.

"In the supply agreement between Acme and Beta, how many days' notice ends it?" The parties'
names are the rarest words of the question, so BM25 ranks the cover page or the signature block
(where the names stand together) above the clause that answers, which calls them "Supplier" and
"Buyer". Here the query's words that NAME a document are found: rare words of the case (held by
few chunks) that the document's first chunk (its title, parties, caption, process number) or its
file name holds. When they point at one or two documents, a FOCUS list joins fusion: BM25 of the
question without those words, inside the named documents. The answer then ranks by what the
question asks, while the names still count, through the full query's lists, for the document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# A word held by at most this share of the case's chunks can name a document.
RARE_SHARE = 0.02
# More named documents than this: the words do not point at one document.
MAX_NAMED = 2
# Documents whose covers are checked: those of the best BM25 candidates.
COVERS_CHECKED = 8


class Analyzer(Protocol):
    def terms(self, text: str) -> list[str]: ...


@dataclass(frozen=True)
class Naming:
    documents: frozenset[str]  # doc ids the query names
    names: frozenset[str]  # the analyzed query terms that name them
    residual: str  # the query without those terms' words


def find_naming(
    query: str,
    analyzer: Analyzer,
    doc_freqs: tuple[dict[str, int], int],
    covers: dict[str, str],
) -> Naming | None:
    """The documents `query` names, from `covers` (doc id -> its first chunk's text and file
    name); None when it names none, or more than MAX_NAMED, or nothing would be left to ask."""
    freqs, total = doc_freqs
    terms = list(dict.fromkeys(analyzer.terms(query)))
    rare = {t for t in terms if total and freqs.get(t, 0) <= max(1, RARE_SHARE * total)}
    if not rare or len(rare) == len(terms):
        return None
    named: dict[str, set[str]] = {}
    for doc_id, text in covers.items():
        held = rare & set(analyzer.terms(text))
        if held:
            named[doc_id] = held
    if not named or len(named) > MAX_NAMED:
        return None
    names = set().union(*named.values())
    kept = [w for w in query.split() if not set(analyzer.terms(w)) & names]
    residual = " ".join(kept)
    if not set(analyzer.terms(residual)):
        return None
    return Naming(frozenset(named), frozenset(names), residual)
