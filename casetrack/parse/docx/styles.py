"""DOCX paragraph styles from styles.xml: which are headings or titles, and which carry a list.

Style ids are localised ("Ttulo1" in a Portuguese Word), so headings are recognised by the
style's name as well as its id, following w:basedOn chains.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from casetrack.parse.docx.wordml import attr, child_val, local_name, paragraph_num_pr

_HEADING_STYLE = re.compile(
    r"^(?:heading|t[ií]tulo|ttulo|berschrift|titre|encabezado)\s*[1-9]$|^(?:title|t[ií]tulo|ttulo)$",
    re.IGNORECASE,
)
_TITLE_STYLE = re.compile(r"^(?:title|t[ií]tulo|ttulo)$", re.IGNORECASE)


@dataclass
class _Style:
    name: str
    based_on: str | None
    num: tuple[str, int | None] | None  # (numId, ilvl) from the style's w:numPr


@dataclass
class Styles:
    styles: dict[str, _Style] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Any | None) -> Styles:
        result = cls()
        if root is None:
            return result
        for el in root:
            if local_name(el) != "style" or attr(el, "type") not in (None, "paragraph"):
                continue
            style_id = attr(el, "styleId")
            if not style_id:
                continue
            num_pr = paragraph_num_pr(el)
            num_id, ilvl = num_pr if num_pr is not None else (None, None)
            result.styles[style_id] = _Style(
                name=child_val(el, "name") or "",
                based_on=child_val(el, "basedOn"),
                num=(num_id, ilvl) if num_id is not None else None,
            )
        return result

    def _chain(self, style_id: str) -> Iterable[tuple[str, _Style]]:
        seen: set[str] = set()
        current: str | None = style_id
        while current and current not in seen and current in self.styles:
            seen.add(current)
            style = self.styles[current]
            yield current, style
            current = style.based_on

    def is_heading(self, style_id: str) -> bool:
        if not style_id:
            return False
        if _HEADING_STYLE.match(style_id):
            return True
        return any(
            _HEADING_STYLE.match(s.name) or _HEADING_STYLE.match(sid) for sid, s in self._chain(style_id)
        )

    def is_title(self, style_id: str) -> bool:
        style = self.styles.get(style_id)
        return bool(_TITLE_STYLE.match(style_id) or (style and _TITLE_STYLE.match(style.name)))

    def numbering(self, style_id: str) -> tuple[str, int | None] | None:
        for _, style in self._chain(style_id):
            if style.num is not None:
                return style.num
        return None
