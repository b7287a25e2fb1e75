"""Folding that keeps offsets: one character in, one character out, so a match in the folded text is
a match at the same offsets in the original."""

from __future__ import annotations

import functools
import unicodedata

_EXTRA = {
    "º": "o",
    "°": "o",
    "ª": "a",
    "ß": "s",
    "\u2013": "-",
    "\u2014": "-",
    "\u00a0": " ",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "´": "'",
    "`": "'",
}


@functools.cache
def _table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0x250):
        ch = chr(code)
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)).lower()
        if len(base) == 1 and base != ch:
            table[code] = base
    table.update({ord(k): v for k, v in _EXTRA.items()})
    table.pop(ord("§"), None)
    return table


def fold(text: str) -> str:
    """Lowercase, accent-free text of the same length: "Código, nº" → "codigo, no"."""
    return text.translate(_table())


def roman_to_int(roman: str) -> int:
    """Value of a Roman numeral (no validation beyond letters): "XIV" → 14."""
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    total, prev = 0, 0
    for ch in reversed(roman.lower()):
        value = values[ch]
        total, prev = (total - value, prev) if value < prev else (total + value, value)
    return total


def year4(year: str) -> int:
    """A 2- or 4-digit year as four digits: "90" → 1990, "15" → 2015."""
    y = int(year)
    return y if len(year) == 4 else (2000 + y if y <= 40 else 1900 + y)


def number(raw: str) -> str:
    """A law or case number without thousands dots: "8.078" → "8078", "1.046" → "1046"."""
    return str(int("".join(ch for ch in raw if ch.isdigit()) or "0"))


def spaced(words: str) -> str:
    """A regex of `words` where each space matches any run of whitespace."""
    return r"\s+".join(words.split())
