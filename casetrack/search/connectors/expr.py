"""The parsed form of a terms-and-connectors expression: words, phrases and the connectors between
them, as frozen values (parse.py builds them; candidates.py and match.py read them)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Unit = Literal["s", "p"]  # same sentence, same paragraph


@dataclass(frozen=True)
class Word:
    """One search word as typed, folded (lowercase, no accents). `root`: `!` ends it (any ending);
    `*` inside stands for one character, a trailing run of n `*` for up to n characters."""

    text: str  # folded, without the trailing "!"
    root: bool = False
    at: int = 0  # where it starts in the expression

    @property
    def literal(self) -> bool:
        return not self.root and "*" not in self.text

    @property
    def stem(self) -> str:
        """The letters before the first `*`: every word it matches starts with them."""
        return self.text.split("*", 1)[0]

    def pattern(self) -> re.Pattern[str]:
        """The regular expression a folded word of the text must match in full.

        A literal word also matches its regular plural (+s, +es), as Westlaw and Lexis do."""
        body = self.text.rstrip("*")
        trailing = len(self.text) - len(body)
        out = "".join("." if c == "*" else re.escape(c) for c in body)
        if trailing:
            out += f".{{0,{trailing}}}"
        if self.root:
            out += ".*"
        elif self.literal:
            out += "(?:e?s)?"
        return re.compile(out)

    def show(self) -> str:
        return self.text + ("!" if self.root else "")


@dataclass(frozen=True)
class Phrase:
    """Words that must follow one another in the text (a quoted phrase, or a hyphenated word)."""

    words: tuple[Word, ...]
    at: int = 0

    def show(self) -> str:
        return '"' + " ".join(w.show() for w in self.words) + '"'


@dataclass(frozen=True)
class Or:
    parts: tuple[Node, ...]

    def show(self) -> str:
        return "(" + " OR ".join(p.show() for p in self.parts) + ")"


@dataclass(frozen=True)
class And:
    """Every part in the same passage (chunk)."""

    parts: tuple[Node, ...]

    def show(self) -> str:
        return "(" + " AND ".join(p.show() for p in self.parts) + ")"


@dataclass(frozen=True)
class Not:
    """`keep` in a passage that holds nothing of `drop`."""

    keep: Node
    drop: Node

    def show(self) -> str:
        return f"({self.keep.show()} NOT {self.drop.show()})"


@dataclass(frozen=True)
class Near:
    """`left` within `n` words of `right` (`ordered`: `left` first, as pre/n and +n)."""

    left: Node
    right: Node
    n: int
    ordered: bool = False

    def show(self) -> str:
        op = f"pre/{self.n}" if self.ordered else f"w/{self.n}"
        return f"({self.left.show()} {op} {self.right.show()})"


@dataclass(frozen=True)
class Same:
    """`left` and `right` in the same sentence or paragraph (`ordered`: `left` first, +s / +p)."""

    left: Node
    right: Node
    unit: Unit
    ordered: bool = False

    def show(self) -> str:
        op = f"+{self.unit}" if self.ordered else f"/{self.unit}"
        return f"({self.left.show()} {op} {self.right.show()})"


Node = Word | Phrase | Or | And | Not | Near | Same


def words_of(node: Node) -> list[Word]:
    """Every word of the expression, in order (those under NOT too)."""
    if isinstance(node, Word):
        return [node]
    if isinstance(node, Phrase):
        return list(node.words)
    if isinstance(node, (Or, And)):
        return [w for p in node.parts for w in words_of(p)]
    if isinstance(node, Not):
        return words_of(node.keep) + words_of(node.drop)
    return words_of(node.left) + words_of(node.right)


def positive_words(node: Node) -> list[Word]:
    """The words a match is made of: every word but those on the right of a NOT."""
    if isinstance(node, Word):
        return [node]
    if isinstance(node, Phrase):
        return list(node.words)
    if isinstance(node, (Or, And)):
        return [w for p in node.parts for w in positive_words(p)]
    if isinstance(node, Not):
        return positive_words(node.keep)
    return positive_words(node.left) + positive_words(node.right)
