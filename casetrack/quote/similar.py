"""How alike two documents' texts are: a MinHash signature of each (datasketch) to find the few
documents worth comparing, then the exact comparison of their words and lines.

* words: the text folded to lowercase letters and digits (accents, case, punctuation and line
  breaks do not matter: a re-OCR'd or re-saved copy still matches);
* signature: MinHash over the word 3-shingles (NUM_PERM permutations), stored as base64 with the
  document; one changed word changes 3 shingles, so a 1,000-word copy with 10% of its words
  changed still shares about half of them (Jaccard ~0.5): LSH_THRESHOLD is set under that;
* comparison: rapidfuzz's Levenshtein alignment of the word sequences (and of the lines):
  `similarity` is the share of the longer text's words that the other holds in the same order,
  `words_changed` the words inserted, deleted or replaced, `lines_changed` the same for lines.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

NUM_PERM = 128
SCHEME = "affine32"  # datasketch 2's hashing scheme, named so stored signatures decode the same way
SHINGLE = 3
LSH_THRESHOLD = 0.4  # candidates: estimated Jaccard of 3-shingles (a 90%-same copy is ~0.5 or more)
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The text's words, folded: lowercase, accents kept apart from case (casefold)."""
    return _WORD.findall(text.casefold())


def _shingles(seq: Sequence[str]) -> list[bytes]:
    if len(seq) < SHINGLE:
        return [" ".join(seq).encode()] if seq else []
    return [" ".join(seq[i : i + SHINGLE]).encode() for i in range(len(seq) - SHINGLE + 1)]


def minhash(seq: Sequence[str]) -> Any:
    """The datasketch MinHash of a word sequence's 3-shingles."""
    from datasketch import MinHash

    m = MinHash(num_perm=NUM_PERM, scheme=SCHEME)
    shingles = _shingles(seq)
    if shingles:
        m.update_batch(shingles)
    return m


def signature(seq: Sequence[str]) -> str:
    """A word sequence's MinHash as the base64 string stored with its document."""
    return base64.b64encode(np.asarray(minhash(seq).hashvalues, dtype=np.uint32).tobytes()).decode("ascii")


def from_signature(text: str) -> Any | None:
    """The MinHash a stored signature holds; None when it is not one of this NUM_PERM."""
    from datasketch import MinHash

    try:
        values = np.frombuffer(base64.b64decode(text.encode("ascii")), dtype=np.uint32)
    except (ValueError, TypeError):
        return None
    return MinHash(num_perm=NUM_PERM, hashvalues=values, scheme=SCHEME) if len(values) == NUM_PERM else None


@dataclass(frozen=True)
class Difference:
    similarity: float  # 0-1: share of the longer text's words the other holds in the same order
    words_changed: int  # words inserted, deleted or replaced (the larger side of each change)
    lines_changed: int  # lines that differ, counted the same way
    words: tuple[int, int]  # how many words each text has

    def to_json(self) -> dict[str, Any]:
        return {
            "similarity": round(self.similarity, 4),
            "words_changed": self.words_changed,
            "lines_changed": self.lines_changed,
        }


def _changed(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """(items in the same order in both, items changed) of two sequences."""
    from rapidfuzz.distance import Levenshtein

    same = changed = 0
    for op in Levenshtein.opcodes(a, b):
        if op.tag == "equal":
            same += op.src_end - op.src_start
        else:
            changed += max(op.src_end - op.src_start, op.dest_end - op.dest_start)
    return same, changed


def _lines(text: str) -> list[str]:
    return [" ".join(words(line)) for line in text.splitlines() if words(line)]


def compare(text_a: str, text_b: str) -> Difference:
    """How alike two texts are, word by word and line by line."""
    a, b = words(text_a), words(text_b)
    same, changed = _changed(a, b)
    _, lines = _changed(_lines(text_a), _lines(text_b))
    longest = max(len(a), len(b))
    return Difference(same / longest if longest else 1.0, changed, lines, (len(a), len(b)))
