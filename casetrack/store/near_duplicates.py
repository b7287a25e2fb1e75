"""Near-duplicates inside a case: each document keeps the MinHash signature of its words
(`meta["minhash"]`, quote/similar.py); a document that is a near-copy of one already in the case
keeps which (`meta["near_duplicate_of"]`: its id and name, the similarity, the words and lines
changed). Ingest and migration 2 both use `NearDuplicateIndex`.

Finding one: the case's signatures in a datasketch LSH index (built once per batch, the new
documents added as they are stored) give the few documents worth comparing; each is compared
word by word with the new text (its own text rebuilt from its chunks) and the most similar one at
THRESHOLD or above is the original. THRESHOLD was measured on real near-twins and synthetic edits
(bench/near_duplicates.py, bench/RESULTS.md): 0.80 flags every hand-marked copy or version among
645 contracts and no pair that only shares a template.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from casetrack.quote.similar import LSH_THRESHOLD, NUM_PERM, compare, from_signature, signature, words

if TYPE_CHECKING:
    from casetrack.store.journal import JournalEntry
    from casetrack.store.lance_tables import LanceTables

THRESHOLD = 0.80  # share of the longer text's words the other holds in order (bench/near_duplicates.py)
MAX_COMPARED = 20  # LSH candidates compared word by word, most alike first
SIGNATURE_KEY = "minhash"
LINK_KEY = "near_duplicate_of"


def stored_text(lance: LanceTables, entry: JournalEntry) -> str:
    """A committed document's text rebuilt from its chunks (each placed at its offsets in its
    page, so the sentences chunks share are not doubled); pages joined by a line break."""
    rows = lance.document_chunks(entry.doc_id, entry.gen).select(
        ["page_index", "char_start", "char_end", "text"]
    )
    pages: dict[int, list[str]] = {}
    for row in rows.to_pylist():
        start, text = int(row["char_start"] or 0), str(row["text"] or "")
        page = pages.setdefault(int(row["page_index"] or 0), [])
        if len(page) < start + len(text):
            page.extend(" " * (start + len(text) - len(page)))
        page[start : start + len(text)] = list(text)
    return "\n".join("".join(pages[i]) for i in sorted(pages))


class NearDuplicateIndex:
    """The signatures of a case's documents, to find the one a new text nearly copies."""

    def __init__(self, lance: LanceTables, entries: Iterable[JournalEntry]) -> None:
        from datasketch import MinHashLSH

        self.lance = lance
        self.lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
        self.entries: dict[str, JournalEntry] = {}
        self.hashes: dict[str, Any] = {}
        for entry in entries:
            sig = entry.meta.get(SIGNATURE_KEY)
            if isinstance(sig, str):
                self.add(entry, sig)

    def add(self, entry: JournalEntry, sig: str) -> None:
        """A stored document's signature joins the index (replacing its previous one)."""
        m = from_signature(sig)
        if m is None:
            return
        self.remove(entry.doc_id)
        self.lsh.insert(entry.doc_id, m)
        self.entries[entry.doc_id] = entry
        self.hashes[entry.doc_id] = m

    def remove(self, doc_id: str) -> None:
        if doc_id in self.hashes:
            self.lsh.remove(doc_id)
            del self.hashes[doc_id], self.entries[doc_id]

    def check(self, text: str, own_id: str | None = None) -> tuple[str, dict[str, Any] | None]:
        """The text's signature, and the document of the case it nearly copies (id, name,
        similarity, words_changed, lines_changed), or None."""
        seq = words(text)
        sig = signature(seq)
        m = from_signature(sig)
        if m is None:  # pragma: no cover - a signature made here always decodes
            return sig, None
        found = [c for c in self.lsh.query(m) if c != own_id]
        found.sort(key=lambda c: -float(m.jaccard(self.hashes[c])))
        best: tuple[float, str, dict[str, Any]] | None = None
        for doc_id in found[:MAX_COMPARED]:
            entry = self.entries[doc_id]
            difference = compare(stored_text(self.lance, entry), text)
            if difference.similarity >= THRESHOLD and (best is None or difference.similarity > best[0]):
                best = (
                    difference.similarity,
                    doc_id,
                    {"document_id": doc_id, "name": entry.name, **difference.to_json()},
                )
        return sig, best[2] if best else None
