"""A terms-and-connectors expression (Westlaw / Lexis syntax) read into `expr` nodes.

Connectors, from the tightest to the loosest binding (Westlaw's order):

    OR  (or)                                 either
    w/n  /n  pre/n  +n                       within n words; pre/n and +n: the left one first
    /s  w/s  +s                              same sentence (+s: the left one first)
    /p  w/p  +p                              same paragraph
    AND  (&, and, a space between terms)     both in the passage
    NOT  (%, and not, but not, not)          the left without the right in the passage

Words: `!` at the end of a word matches any ending (`terminat!`), `*` one character
(`wom*n`; a trailing `**` up to two more), a quoted phrase its words in order, parentheses group.
Case and accents never matter. A mistake raises `ConnectorsSyntaxError` pointing at it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from casetrack.errors import CaseTrackError, Fix
from casetrack.legal.text import fold
from casetrack.search.connectors.expr import And, Near, Node, Not, Or, Phrase, Same, Word

MAX_DISTANCE = 255  # Westlaw's largest n
MIN_ROOT = 3  # letters before ! or *: fewer would match a large part of any index
EXAMPLE = 'indemnif! /s "gross negligence"'

Kind = Literal["word", "phrase", "(", ")", "and", "or", "not", "near", "same", "end"]


@dataclass(frozen=True)
class Token:
    kind: Kind
    at: int  # offset in the expression
    text: str  # as typed
    n: int = 0  # near: the distance
    unit: str = ""  # same: "s" or "p"
    ordered: bool = False


class ConnectorsSyntaxError(CaseTrackError):
    """A malformed expression: where (`at`, 0-based), what was expected there, and a corrected
    expression when one can be derived."""

    def __init__(self, query: str, at: int, problem: str, corrected: str | None, case: str | None) -> None:
        self.at, self.problem, self.corrected = at, problem, corrected
        caret = " " * at + "^"
        message = (
            f"The terms-and-connectors search has a mistake at character {at + 1}: {problem}.\n"
            f"  {query}\n  {caret}"
        )
        example = corrected or EXAMPLE
        case_arg = f'--case "{case}" ' if case else ""
        fix = Fix(
            "Correct the expression"
            + (" (as below)" if corrected else ", e.g.")
            + ", or search its words as plain text with syntax plain",
            f"casetrack search {case_arg}--syntax connectors '{example}'",
            "search_case",
            {"query": example, "syntax": "connectors"},
        )
        super().__init__(message, fix=fix)


_SPACE = re.compile(r"\s+")
_CONNECTOR = re.compile(
    r"(?P<near>(?:w/|/)(?P<n>\d+))(?![\w/])"
    r"|(?P<pre>(?:pre/|\+)(?P<pn>\d+))(?![\w/])"
    r"|(?P<same>(?:w/|/)(?P<unit>[sp]))(?![\w/])"
    r"|(?P<presame>\+(?P<punit>[sp]))(?![\w/])",
    re.IGNORECASE,
)
_QUOTES = {'"': '"', "“": "”", "”": "”", "«": "»"}
_WORD = re.compile(r"[^\s()\"“”«»&%]+")
_PARTS = re.compile(r"(?:[^\W_]|\*)+")


def tokenize(query: str, case: str | None = None) -> list[Token]:
    """The expression's tokens, ending with an "end" token."""
    out: list[Token] = []
    at = 0
    while at < len(query):
        space = _SPACE.match(query, at)
        if space:
            at = space.end()
            continue
        ch = query[at]
        if ch in "()":
            out.append(Token(ch, at, ch))  # type: ignore[arg-type]  # "(" and ")" are kinds
            at += 1
        elif ch in _QUOTES:
            out.append(_quoted(query, at, case))
            at += len(out[-1].text) + 2
        elif ch == "&":
            out.append(Token("and", at, ch))
            at += 1
        elif ch == "%":
            out.append(Token("not", at, ch))
            at += 1
        elif (m := _CONNECTOR.match(query, at)) is not None:
            out.append(_connector(query, m, case))
            at = m.end()
        else:
            out.append(_word(query, at, case))
            at += len(out[-1].text)
    out.append(Token("end", len(query), ""))
    return _joined_not(out)


def _quoted(query: str, at: int, case: str | None) -> Token:
    """A quoted phrase (its text without the quotes); an unclosed straight quote is a mistake."""
    quote = query[at]
    close = query.find(_QUOTES[quote], at + 1)
    if close < 0 and quote == '"':
        raise ConnectorsSyntaxError(
            query, at, 'this quote is never closed: expected a closing "', query + '"', case
        )
    return Token("phrase", at, query[at + 1 : close if close >= 0 else len(query)])


def _word(query: str, at: int, case: str | None) -> Token:
    m = _WORD.match(query, at)
    assert m is not None  # every other character starts a word
    word = m.group()
    if word.startswith(("/", "+")) or re.match(r"(?:w|pre)/", word, re.IGNORECASE):
        raise ConnectorsSyntaxError(
            query,
            at,
            f"'{word}' is not a connector: expected /s, /p, /n, w/n, pre/n or +n (n a number)",
            None,
            case,
        )
    return _keyword(word, at)


def _connector(query: str, m: re.Match[str], case: str | None) -> Token:
    if m.group("near") or m.group("pre"):
        ordered = bool(m.group("pre"))
        n = int(m.group("pn") if ordered else m.group("n"))
        if not 1 <= n <= MAX_DISTANCE:
            fixed = query[: m.start()] + m.group()[: -len(str(n))] + str(min(max(n, 1), MAX_DISTANCE))
            raise ConnectorsSyntaxError(
                query,
                m.start(),
                f"the distance {n} is out of range: expected a number of words from 1 to {MAX_DISTANCE}",
                fixed + query[m.end() :],
                case,
            )
        return Token("near", m.start(), m.group(), n=n, ordered=ordered)
    ordered = bool(m.group("presame"))
    unit = (m.group("punit") if ordered else m.group("unit")).lower()
    return Token("same", m.start(), m.group(), unit=unit, ordered=ordered)


def _keyword(word: str, at: int) -> Token:
    low = word.lower()
    if low in ("and", "or", "not"):
        return Token(low, at, word)  # type: ignore[arg-type]  # the three are kinds
    return Token("word", at, word)


def _joined_not(tokens: list[Token]) -> list[Token]:
    """ "and not" and "but not" are one NOT connector."""
    out: list[Token] = []
    for token in tokens:
        prev = out[-1] if out else None
        if token.kind == "not" and prev is not None and (prev.kind == "and" or prev.text.lower() == "but"):
            out[-1] = Token("not", prev.at, f"{prev.text} {token.text}")
            continue
        out.append(token)
    return out


class _Parser:
    def __init__(self, query: str, case: str | None) -> None:
        self.query, self.case = query, case
        self.tokens = tokenize(query, case)
        self.i = 0

    @property
    def token(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def fail(self, token: Token, problem: str, corrected: str | None = None) -> ConnectorsSyntaxError:
        return ConnectorsSyntaxError(self.query, token.at, problem, corrected, self.case)

    def parse(self) -> Node:
        node = self.expression()
        token = self.token
        if token.kind == ")":
            raise self.fail(token, "')' closes nothing: no '(' before it", self._without(token))
        assert token.kind == "end"
        return node

    # NOT < AND < /p < /s < near < OR, loosest first.
    def expression(self) -> Node:
        node = self.conjunction()
        while self.token.kind == "not":
            op = self.take()
            node = Not(node, self.operand_after(op, self.conjunction))
        return node

    def conjunction(self) -> Node:
        parts = [self.same("p")]
        while self.token.kind in ("and", "word", "phrase", "("):
            if self.token.kind == "and":
                op = self.take()
                parts.append(self.operand_after(op, lambda: self.same("p")))
            else:
                parts.append(self.same("p"))
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def same(self, unit: str) -> Node:
        inner: Callable[[], Node] = self.sentence if unit == "p" else self.near
        node = inner()
        while self.token.kind == "same" and self.token.unit == unit:
            op = self.take()
            node = Same(node, self.operand_after(op, inner), "s" if unit == "s" else "p", op.ordered)
        return node

    def sentence(self) -> Node:
        return self.same("s")

    def near(self) -> Node:
        node = self.alternatives()
        while self.token.kind == "near":
            op = self.take()
            node = Near(node, self.operand_after(op, self.alternatives), op.n, op.ordered)
        return node

    def alternatives(self) -> Node:
        parts = [self.atom()]
        while self.token.kind == "or":
            op = self.take()
            parts.append(self.operand_after(op, self.atom))
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def operand_after(self, op: Token, rule: Callable[[], Node]) -> Node:
        """The operand a connector needs, or an error at what stands in its place."""
        if self.token.kind not in ("word", "phrase", "("):
            raise self.fail(
                self.token if self.token.kind != "end" else op,
                f"expected a word, a quoted phrase or '(' after '{op.text}'"
                + (f", found '{self.token.text}'" if self.token.kind != "end" else ""),
                self._without(op),
            )
        return rule()

    def atom(self) -> Node:
        token = self.token
        if token.kind == "(":
            self.take()
            if self.token.kind == ")":
                raise self.fail(self.token, "empty parentheses: expected a word or phrase inside")
            node = self.expression()
            closing = self.tokens[self.i]
            if closing.kind != ")":
                raise self.fail(
                    token,
                    "this '(' is never closed: expected ')'"
                    + (f" before '{self.token.text}'" if self.token.kind != "end" else ""),
                    self.query + ")" if self.token.kind == "end" else None,
                )
            self.take()
            return node
        if token.kind == "word":
            self.take()
            return self.word(token)
        if token.kind == "phrase":
            self.take()
            words = self.words_of(token.text, token.at + 1, token)
            if not words:
                raise self.fail(token, "an empty quoted phrase: expected words inside the quotes")
            return words[0] if len(words) == 1 else Phrase(tuple(words), token.at)
        if token.kind == "end":
            raise self.fail(token, "expected a word, a quoted phrase or '('", None)
        raise self.fail(
            token,
            f"expected a word, a quoted phrase or '(' before '{token.text}'",
            self._without(token),
        )

    def word(self, token: Token) -> Node:
        words = self.words_of(token.text, token.at, token)
        if not words:
            raise self.fail(
                token, f"'{token.text}' holds no letters or digits to search for", self._without(token)
            )
        return words[0] if len(words) == 1 else Phrase(tuple(words), token.at)

    def words_of(self, text: str, at: int, token: Token) -> list[Word]:
        """The search words of `text` (a word with a hyphen or dots is a phrase of its parts)."""
        out: list[Word] = []
        for m in _PARTS.finditer(fold(text)):
            bang = m.end() < len(text) and text[m.end()] == "!"
            body = m.group()
            word = Word(body, root=bang, at=at + m.start())
            if (word.root or "*" in body) and len(word.stem) < MIN_ROOT:
                raise self.fail(
                    Token("word", at + m.start(), body),
                    f"'{word.show()}' is too short a root: expected at least {MIN_ROOT} letters before "
                    f"{'!' if word.root else '*'}",
                )
            out.append(word)
        bad = [i for i, c in enumerate(text) if c == "!" and (i == 0 or not text[i - 1].isalnum())]
        if bad:
            raise self.fail(Token("word", at + bad[0], "!"), "'!' must end a word (terminat!)", None)
        return out

    def _without(self, token: Token) -> str | None:
        """The expression without `token` (a dangling connector or a stray parenthesis)."""
        fixed = (self.query[: token.at] + self.query[token.at + len(token.text) :]).strip()
        fixed = " ".join(fixed.split())
        return fixed or None


def parse(query: str, case: str | None = None) -> Node:
    """The expression tree of `query` (`case`: named in the fix of an error)."""
    return _Parser(query, case).parse()
