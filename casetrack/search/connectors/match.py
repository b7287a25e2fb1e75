"""Stage 2 of a connectors search: an expression checked on a passage's own text.

The text is read as folded words (lowercase, no accents; offsets kept), each with its sentence and
paragraph as the pin-cite counts them (pincite/layout.py: a paragraph ends at a blank line, a
sentence never crosses one). Every node gives its occurrences as word ranges (first, last):

- a word: each word of the text its pattern matches in full; a phrase: its words in a row;
- OR: the occurrences of either side; AND: the ranges that hold one occurrence of every part
  (the tightest MAX_OCCURRENCES; nothing when a part has none);
- w/n, /n: an occurrence of each side, apart, at most n words from one to the other (the
  position of the nearer word of one to the nearer of the other); pre/n, +n: the left one first;
- /s, /p: an occurrence of each side, apart, inside one sentence / paragraph; +s, +p: left first;
- NOT: the left side's occurrences when the right side has none in the passage.

A passage matches when the expression has at least one occurrence in it.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence

from casetrack.legal.text import fold
from casetrack.search.connectors.expr import And, Near, Node, Not, Or, Phrase, Same, Word
from casetrack.search.pincite.layout import sentences

Occurrence = tuple[int, int]  # first and last word index
# Occurrences kept per node and passage: a match needs one; this bounds the pairs of a common
# word with another (w/n and /s of two frequent words).
MAX_OCCURRENCES = 256

_WORD = re.compile(r"[^\W_]+")


class Words:
    """A passage as folded words with their character spans; each word's sentence and paragraph
    are worked out when a connector first asks (most expressions never do)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = fold(text)
        self.words: list[str] = _WORD.findall(self.folded)  # spans only when asked: most never are

    @functools.cached_property
    def spans(self) -> list[tuple[int, int]]:
        return [m.span() for m in _WORD.finditer(self.folded)]

    @classmethod
    def of(cls, text: str) -> Words:
        return cls(text)

    @functools.cached_property
    def sentence(self) -> list[int]:
        starts = [s for s, _ in sentences(self.text)]
        return [max(bisect.bisect_right(starts, s) - 1, 0) for s, _ in self.spans]

    @functools.cached_property
    def paragraph(self) -> list[int]:
        breaks = [m.start() for m in re.finditer(r"\n\n", self.text)]
        return [bisect.bisect_right(breaks, s) for s, _ in self.spans]

    def chars(self, occ: Occurrence) -> tuple[int, int]:
        """The character span of an occurrence."""
        return self.spans[occ[0]][0], self.spans[occ[1]][1]


class Matcher:
    """Evaluates one expression on passages (each word's pattern compiled once)."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self._patterns: dict[Word, re.Pattern[str]] = {}

    def occurrences(self, words: Words) -> list[Occurrence]:
        """Every occurrence of the expression in the passage, in reading order."""
        return sorted(set(self._eval(self.node, words)))

    def _pattern(self, word: Word) -> re.Pattern[str]:
        pattern = self._patterns.get(word)
        if pattern is None:
            pattern = self._patterns[word] = word.pattern()
        return pattern

    def _eval(self, node: Node, w: Words) -> list[Occurrence]:
        if isinstance(node, Word):
            return self._word(node, w)
        if isinstance(node, Phrase):
            return self._phrase(node, w)
        if isinstance(node, Or):
            return sorted({o for p in node.parts for o in self._eval(p, w)})[:MAX_OCCURRENCES]
        if isinstance(node, And):
            return _all_of([self._eval(p, w) for p in node.parts])
        if isinstance(node, Not):
            keep = self._eval(node.keep, w)
            return keep if keep and not self._eval(node.drop, w) else []
        return self._connected(node, w)

    def _connected(self, node: Near | Same, w: Words) -> list[Occurrence]:
        left, right = self._eval(node.left, w), self._eval(node.right, w)
        if not left or not right:
            return []
        if isinstance(node, Near):
            return _near(left, right, node.n, node.ordered)
        same = w.sentence if node.unit == "s" else w.paragraph
        return _same(left, right, same, node.ordered)

    def _word(self, word: Word, w: Words) -> list[Occurrence]:
        if word.literal:  # the word or its plural: a set look-up, no regular expression
            forms = {word.text, word.text + "s", word.text + "es"}
            found = [i for i, text in enumerate(w.words) if text in forms]
        elif word.root and "*" not in word.text:
            stem = word.text
            found = [i for i, text in enumerate(w.words) if text.startswith(stem)]
        else:
            pattern = self._pattern(word)
            found = [i for i, text in enumerate(w.words) if pattern.fullmatch(text)]
        return [(i, i) for i in found[:MAX_OCCURRENCES]]

    def _phrase(self, node: Phrase, w: Words) -> list[Occurrence]:
        patterns = [self._pattern(x) for x in node.words]
        size = len(patterns)
        first = patterns[0]
        out = []
        for i in range(len(w.words) - size + 1):
            if first.fullmatch(w.words[i]) and all(
                p.fullmatch(w.words[i + k]) for k, p in enumerate(patterns[1:], start=1)
            ):
                out.append((i, i + size - 1))
                if len(out) == MAX_OCCURRENCES:
                    break
        return out


def _apart(a: Occurrence, b: Occurrence) -> int | None:
    """Words from one occurrence to the other (b after a: positive), None when they overlap."""
    if b[0] > a[1]:
        return b[0] - a[1]
    if a[0] > b[1]:
        return -(a[0] - b[1])
    return None


def _near(left: Sequence[Occurrence], right: Sequence[Occurrence], n: int, ordered: bool) -> list[Occurrence]:
    starts = [r[0] for r in right]
    out: set[Occurrence] = set()
    for a in left:
        # Only right occurrences starting within n words of a can qualify (right is sorted).
        lo = bisect.bisect_left(starts, a[0] - n - MAX_SPAN)
        hi = bisect.bisect_right(starts, a[1] + n)
        for b in right[lo:hi]:
            gap = _apart(a, b)
            if gap is None or (ordered and gap < 0) or abs(gap) > n:
                continue
            out.add((min(a[0], b[0]), max(a[1], b[1])))
        if len(out) >= MAX_OCCURRENCES:
            break
    return sorted(out)


# The longest occurrence a right side may have, for the window of _near (a phrase, a nested
# connector): occurrences longer than this starting before the window are not looked at.
MAX_SPAN = 512


def _same(
    left: Sequence[Occurrence], right: Sequence[Occurrence], unit: Sequence[int], ordered: bool
) -> list[Occurrence]:
    out: set[Occurrence] = set()
    for a in left:
        if unit[a[0]] != unit[a[1]]:
            continue
        for b in right:
            if unit[b[0]] != unit[a[0]] or unit[b[1]] != unit[a[0]]:
                continue
            gap = _apart(a, b)
            if gap is None or (ordered and gap < 0):
                continue
            out.add((min(a[0], b[0]), max(a[1], b[1])))
        if len(out) >= MAX_OCCURRENCES:
            break
    return sorted(out)


def _all_of(parts: list[list[Occurrence]]) -> list[Occurrence]:
    """One occurrence of every part, each combination as the range it spans (the tightest
    MAX_OCCURRENCES kept after each part: a connector above AND needs the combinations, not only
    the tightest one per occurrence, to find the one inside a sentence)."""
    if any(not p for p in parts):
        return []
    combined = set(parts[0])
    for other in parts[1:]:
        spans = {(min(a[0], b[0]), max(a[1], b[1])) for a in combined for b in other}
        combined = set(sorted(spans, key=lambda o: (o[1] - o[0], o[0]))[:MAX_OCCURRENCES])
    return sorted(combined)
