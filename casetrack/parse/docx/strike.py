"""DOCX struck-through runs (w:strike, w:dstrike): marked in the XML before docx2python reads it.

docx2python drops run formatting unless asked for HTML, and merges runs as it loads a part, so
the struck runs' text is wrapped in revoked.py's sentinels in the raw tree (as page breaks are,
see docx/pages.py); `revoked.RevokedText` then drops or marks each passage as paragraphs are
built. A run is struck by its own w:rPr, else by its character style (w:rStyle), else by its
paragraph's style, each style following w:basedOn. Only the main document part is marked.
"""

from __future__ import annotations

from typing import Any

from casetrack.parse.docx.wordml import ancestors, attr, child, child_val, local_name, on_off
from casetrack.parse.revoked import guess_language, mark

_STRIKES = ("strike", "dstrike")
_LANGUAGE_SAMPLE = 200_000


def _strike_of(rpr: Any | None) -> bool | None:
    """True/False when a w:rPr sets strike or double strike, None when it says nothing."""
    if rpr is None:
        return None
    toggles = [child(rpr, name) for name in _STRIKES]
    present = [t for t in toggles if t is not None]
    if not present:
        return None
    return any(on_off(t) for t in present)


class _StyleStrikes:
    """Which styles of styles.xml strike their text through, following w:basedOn."""

    def __init__(self, root: Any | None) -> None:
        self._own: dict[str, tuple[bool | None, str | None]] = {}
        if root is None:
            return
        for el in root:
            if local_name(el) != "style":
                continue
            style_id = attr(el, "styleId")
            if style_id:
                self._own[style_id] = (_strike_of(child(el, "rPr")), child_val(el, "basedOn"))

    @property
    def any(self) -> bool:
        """Whether any style sets strike at all."""
        return any(value is not None for value, _ in self._own.values())

    def struck(self, style_id: str | None) -> bool | None:
        seen: set[str] = set()
        while style_id and style_id in self._own and style_id not in seen:
            seen.add(style_id)
            value, style_id = self._own[style_id]
            if value is not None:
                return value
        return None


def _paragraph_style(run: Any) -> str | None:
    for a in ancestors(run):
        if local_name(a) == "p":
            ppr = child(a, "pPr")
            return child_val(ppr, "pStyle") if ppr is not None else None
    return None


def mark_struck_runs(root: Any, styles_root: Any | None) -> int:
    """Wrap the text of every struck-through run of the main part in sentinels; how many runs."""
    styles = _StyleStrikes(styles_root)
    # Most documents strike nothing: one scan in C says so (any namespace prefix).
    if not styles.any and next(root.iter("{*}strike", "{*}dstrike", "strike", "dstrike"), None) is None:
        return 0
    marked = 0
    for run in root.iter("{*}r", "r"):
        rpr = child(run, "rPr")
        struck = _strike_of(rpr)
        if struck is None and styles.any:
            if rpr is not None:
                struck = styles.struck(child_val(rpr, "rStyle"))
            if struck is None:
                struck = styles.struck(_paragraph_style(run))
        if not struck:
            continue
        for t in run:
            if local_name(t) == "t" and t.text:
                t.text = mark(t.text)
                marked += 1
    return marked


def document_language(root: Any) -> str:
    """ "pt" or "en": the language the marker of kept revoked text is written in."""
    parts: list[str] = []
    size = 0
    for el in root.iter():
        if local_name(el) == "t" and el.text:
            parts.append(el.text)
            size += len(el.text) + 1
            if size > _LANGUAGE_SAMPLE:
                break
    return guess_language(" ".join(parts))
