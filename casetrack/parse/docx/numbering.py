"""DOCX list numbers as Word shows them ("2.1.1.", "(a)", "iv."), rendered from numbering.xml.

docx2python only gives a list item's last level ("1)"), which loses legal clause numbers,
so we keep Word's counters ourselves and render each level's w:lvlText.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from casetrack.parse.docx.wordml import attr, child, child_val, local_name, on_off


def _roman(n: int) -> str:
    if n <= 0:
        return str(n)
    out = []
    for value, letters in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def _letter(n: int) -> str:
    # Word repeats the letter: a..z, aa..zz, aaa...
    if n <= 0:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


# The w:numFmt values we render; decimal and the exotic formats are written as plain numbers.
_FORMATS: dict[str, Callable[[int], str]] = {
    "lowerRoman": _roman,
    "upperRoman": lambda n: _roman(n).upper(),
    "lowerLetter": _letter,
    "upperLetter": lambda n: _letter(n).upper(),
    "decimalZero": lambda n: f"{n:02d}",
    "none": lambda n: "",
}


def format_number(n: int, fmt: str | None) -> str:
    """A counter as Word displays it in a given w:numFmt."""
    return _FORMATS.get(fmt or "decimal", str)(n)


# --------------------------------------------------------------------------------------------
# numbering.xml
# --------------------------------------------------------------------------------------------


@dataclass
class _Level:
    fmt: str | None
    text: str | None
    start: int
    is_legal: bool


@dataclass
class _Num:
    abstract_id: str
    start_overrides: dict[int, int]
    level_overrides: dict[int, _Level]


def _ilvl(el: Any) -> int:
    """A w:lvl's or w:lvlOverride's w:ilvl attribute; level 0 when missing or malformed."""
    text = attr(el, "ilvl") or "0"
    return int(text) if text.isdigit() else 0


def _start_value(el: Any, name: str) -> int | None:
    """A w:start/w:startOverride child's value; None when missing or not a whole number."""
    text = child_val(el, name)
    return int(text) if text and text.lstrip("-").isdigit() else None


def _parse_level(lvl: Any) -> tuple[int, _Level]:
    start = _start_value(lvl, "start")
    return _ilvl(lvl), _Level(
        fmt=child_val(lvl, "numFmt"),
        text=child_val(lvl, "lvlText"),
        start=1 if start is None else start,
        is_legal=on_off(child(lvl, "isLgl")),
    )


class Numbering:
    """Word's list counters, rendered from numbering.xml's lvlText ("%1.%2." -> "2.1.")."""

    def __init__(self, root: Any | None) -> None:
        self.abstract: dict[str, dict[int, _Level]] = {}
        self.nums: dict[str, _Num] = {}
        # Counters are per abstract list: Word continues numbering across w:num instances
        # that share one, unless an instance restarts it with a startOverride.
        self.counters: dict[str, dict[int, int]] = {}
        self.used_nums: set[str] = set()
        if root is None:
            return
        for el in root:
            name = local_name(el)
            if name == "abstractNum":
                levels = dict(_parse_level(lvl) for lvl in el if local_name(lvl) == "lvl")
                self.abstract[attr(el, "abstractNumId") or ""] = levels
            elif name == "num":
                abstract_el = child(el, "abstractNumId")
                if abstract_el is None:
                    continue
                starts: dict[int, int] = {}
                overrides: dict[int, _Level] = {}
                for override in el:
                    if local_name(override) != "lvlOverride":
                        continue
                    ilvl = _ilvl(override)
                    start = _start_value(override, "startOverride")
                    if start is not None:
                        starts[ilvl] = start
                    lvl_el = child(override, "lvl")
                    if lvl_el is not None:
                        overrides[ilvl] = _parse_level(lvl_el)[1]
                self.nums[attr(el, "numId") or ""] = _Num(attr(abstract_el, "val") or "", starts, overrides)

    def _level(self, num: _Num, ilvl: int) -> _Level | None:
        return num.level_overrides.get(ilvl) or self.abstract.get(num.abstract_id, {}).get(ilvl)

    def next_label(self, num_id: str, ilvl: int) -> str | None:
        """Advance the list's counter for this paragraph and return its visible label."""
        num = self.nums.get(num_id)
        if num is None:
            return None
        level = self._level(num, ilvl)
        if level is None:
            return None
        counters = self.counters.setdefault(num.abstract_id, {})
        if num_id not in self.used_nums:
            self.used_nums.add(num_id)
            for lvl, start in num.start_overrides.items():
                counters[lvl] = start - 1
        counters[ilvl] = counters[ilvl] + 1 if ilvl in counters else level.start
        for deeper in [k for k in counters if k > ilvl]:
            del counters[deeper]

        if level.fmt == "bullet":
            return "\u2022"
        if not level.text:
            return None

        def render(m: re.Match[str]) -> str:
            k = int(m.group(1)) - 1
            ref = self._level(num, k)
            value = counters.get(k, ref.start if ref else 1)
            fmt = "decimal" if level.is_legal else (ref.fmt if ref else None)
            return format_number(value, fmt)

        label = re.sub(r"%([1-9])", render, level.text).strip()
        return label or None
