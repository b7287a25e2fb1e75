"""A DOCX's comments (word/comments.xml): who wrote each, when, what it says and the text it is
anchored to (between its w:commentRangeStart and w:commentRangeEnd in the body), so they are
searchable and cited as comments: each becomes a paragraph after the body and the notes, whose
first line names it ("[Comment 1] Jane Doe, 2024-03-01, on "the Seller shall deliver":").

docx2python's own `comments` fails on a comment without a w:date (Word writes none for some
threads and resolved comments), so the part is read here with the same safe parser as the rest
of the package.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_SAFE_XML = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
_SENTINELS = re.compile("[\ufdd0-\ufdef]")
_MAX_ANCHOR = 160  # characters of the commented text quoted in the comment's first line


@dataclass(frozen=True)
class Comment:
    number: int  # 1, 2, 3 in the order of comments.xml
    author: str
    date: str  # YYYY-MM-DD, or "" when Word recorded none
    text: str  # the comment's own paragraphs, "\n"-joined
    anchor: str  # the body text it is attached to ("" when it marks a point)

    def lines(self) -> list[str]:
        """The paragraph the comment becomes: "[Comment n] author, date, on "anchor":" then its text."""
        who = ", ".join(p for p in (self.author, self.date) if p)
        anchor = self.anchor if len(self.anchor) <= _MAX_ANCHOR else self.anchor[: _MAX_ANCHOR - 3] + "..."
        head = (
            f"[Comment {self.number}]"
            + (f" {who}" if who else "")
            + (f', on "{anchor}"' if anchor else "")
            + ":"
        )
        return [head, *[line for line in self.text.split("\n") if line.strip()]]


def _text(elem: Any) -> str:
    paragraphs = []
    for par in elem.iter(f"{_W}p"):
        paragraphs.append("".join(t.text or "" for t in par.iter(f"{_W}t", f"{_W}tab")).strip())
    return "\n".join(p for p in paragraphs if p)


def _anchors(document: Any) -> dict[str, str]:
    """comment id -> the body text between its range start and end, in document order."""
    open_ranges: dict[str, list[str]] = {}
    done: dict[str, str] = {}
    for elem in document.iter(f"{_W}commentRangeStart", f"{_W}commentRangeEnd", f"{_W}t"):
        if elem.tag == f"{_W}t":
            for parts in open_ranges.values():
                parts.append(elem.text or "")
            continue
        cid = elem.get(f"{_W}id") or ""
        if elem.tag == f"{_W}commentRangeStart":
            open_ranges[cid] = []
        elif cid in open_ranges:
            # the page-break sentinels docx/pages.py put in the body are no text
            done[cid] = " ".join(_SENTINELS.sub("", "".join(open_ranges.pop(cid))).split())
    return done


def read_comments(source: Path | io.BytesIO, main_name: str = "word/document.xml") -> list[Comment]:
    """The package's comments in the order comments.xml holds them ([] when it has none)."""
    with zipfile.ZipFile(source) as zf:
        names = set(zf.namelist())
        folder = main_name.rsplit("/", 1)[0] + "/" if "/" in main_name else ""
        part = f"{folder}comments.xml"
        if part not in names:
            return []
        root = etree.fromstring(zf.read(part), _SAFE_XML)
        anchors = _anchors(etree.fromstring(zf.read(main_name), _SAFE_XML)) if main_name in names else {}
    out: list[Comment] = []
    for comment in root.iter(f"{_W}comment"):
        text = _text(comment)
        if not text:
            continue
        date = re.match(r"\d{4}-\d{2}-\d{2}", comment.get(f"{_W}date") or "")
        out.append(
            Comment(
                number=len(out) + 1,
                author=" ".join((comment.get(f"{_W}author") or "").split()),
                date=date[0] if date else "",
                text=text,
                anchor=anchors.get(comment.get(f"{_W}id") or "", ""),
            )
        )
    return out
