"""Snippets a person reads: the pin-cite's text (search/pincite.py picks the span) with
line-break hyphenation joined and stray footnote and pleading-paper margin numbers left out."""

from __future__ import annotations

import re

# A line-break hyphen inside a word: "Okla-\nhoma" (lower-case letters on both sides); the word
# before it is kept whole to see whether it is a compound ("out-of-\nstate" keeps its hyphen).
_HYPHENATED = re.compile(r"(\S*[a-zà-ÿ])-\n(?=[a-zà-ÿ])")
# Pleading paper: each line starts with its margin number (1-28), read into the text.
_MARGIN_NUMBER = re.compile(r"^(\d{1,2}) (?=\S)", re.MULTILINE)
# A line that is only a footnote or margin number ("3", "12.", "*", "¹"): pleading-paper line
# numbers and footnote markers set on their own line.
_NUMBER_LINE = re.compile(r"^[ \t]*(?:\d{1,3}|[*†‡§]|[¹²³⁰⁴-⁹]+)\.?[ \t]*$", re.MULTILINE)
# A footnote reference glued to the end of a word and its punctuation: "damages.3 The".
_NOTE_REFERENCE = re.compile(r"(?<=[^\W\d_]{2}[.,;:”\"])\d{1,2}(?=\s)|[¹²³⁰⁴-⁹]+")


def readable(text: str, margin_numbers: bool | None = None) -> str:
    """A span of page text as a person reads it: line-break hyphenation joined, stray footnote
    and pleading-paper margin numbers left out, whitespace collapsed. Display only: provenance
    offsets keep pointing into the page text. `margin_numbers`: whether the page is pleading
    paper (as seen on the whole chunk; guessed from `text` itself when not given)."""
    text = _NUMBER_LINE.sub("", text)
    if has_margin_numbers(text, 2) if margin_numbers is None else margin_numbers:
        text = _MARGIN_NUMBER.sub("", text)
    text = _HYPHENATED.sub(lambda m: m[1] + ("-" if "-" in m[1] else ""), text)
    text = _NOTE_REFERENCE.sub("", text)
    return " ".join(text.split())


def has_margin_numbers(text: str, least: int = 5) -> bool:
    """Whether `text` is pleading paper: at least `least` lines start with numbers up to 28,
    rising (but for one in five: a line of text may start with a number of its own)."""
    numbers = [int(m[1]) for m in _MARGIN_NUMBER.finditer(text)]
    if len(numbers) < least or max(numbers) > 28:
        return False
    rising = sum(1 for a, b in zip(numbers, numbers[1:], strict=False) if a < b)
    return rising >= 0.8 * (len(numbers) - 1)
