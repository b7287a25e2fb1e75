"""Small lxml helpers for WordprocessingML elements, namespace-agnostic.

Parts written by non-Word tools use other prefixes (or none), so elements are matched by
local name and attributes by their name after the namespace.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MC_FALLBACK = "Fallback"  # mc:Fallback duplicates mc:Choice (text boxes are written twice)


def local_name(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""  # comments and processing instructions
    return tag.rsplit("}", 1)[-1]


def attr(el: Any, name: str) -> str | None:
    for key, value in el.attrib.items():
        if key == name or key.endswith("}" + name):
            return str(value)
    return None


def child(el: Any, name: str) -> Any | None:
    for c in el:
        if local_name(c) == name:
            return c
    return None


def child_val(el: Any, name: str) -> str | None:
    """The w:val of a child element (`<w:numFmt w:val="..."/>`); None if either is missing."""
    found = child(el, name)
    return attr(found, "val") if found is not None else None


def ancestors(el: Any) -> Iterable[Any]:
    parent = el.getparent()
    while parent is not None:
        yield parent
        parent = parent.getparent()


def on_off(el: Any | None) -> bool:
    """w:b-style toggles: present means on unless w:val says otherwise."""
    if el is None:
        return False
    return (attr(el, "val") or "true").lower() not in ("0", "false", "off")


def paragraph_num_pr(el: Any | None) -> tuple[str | None, int | None] | None:
    """(w:numId, w:ilvl) from a paragraph's or paragraph style's w:pPr/w:numPr, if it has one."""
    ppr = child(el, "pPr") if el is not None else None
    num_pr = child(ppr, "numPr") if ppr is not None else None
    if num_pr is None:
        return None
    ilvl = child_val(num_pr, "ilvl")
    return child_val(num_pr, "numId"), int(ilvl) if ilvl and ilvl.isdigit() else None
