"""HTML → paragraphs of lines, with the standard library's tolerant `html.parser`.

Legislation portals (planalto.gov.br) and court sites write old, hand-made HTML: unclosed
`<p>`s, layout tables, `<font>`, `<strike>` around revoked provisions. The reader keeps its own
stack of open elements and closes them the way browsers do for the common cases (a block
closes an open `<p>`, a `<li>` the previous one, a `<tr>` the open row), which is all paragraph
boundaries need:

* block elements are paragraph boundaries, `<br>` a line break, two `<br>`s a new paragraph;
  whitespace collapses except in `<pre>`;
* scripts, styles, navigation, forms and embedded objects are dropped; `<title>` is the title;
* a table row of several short cells is one TABLE line, cells joined by " | " (like DOCX); a
  layout row (one cell, or cells holding whole passages) keeps its cells' paragraphs;
* struck-through text (`<strike>`, `<s>`, `<del>`, `text-decoration: line-through` inline or
  by a class of the page's `<style>`) is marked for `revoked.RevokedText`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from casetrack.domain import ParagraphKind
from casetrack.parse.revoked import END, START, RevokedText, mark

VOID = frozenset(
    "area base basefont br col embed frame hr img input keygen link meta param source track wbr".split()
)
_DROPPED = frozenset(
    "script style noscript template nav svg math iframe object embed canvas button select textarea "
    "datalist audio video map applet frameset".split()
)
_BLOCK = frozenset(
    "address article aside blockquote body caption center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li main menu ol p "
    "pre section summary table tbody td tfoot th thead tr ul".split()
)
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_P = frozenset(("p",))
_STRUCK_TAGS = frozenset(("strike", "s", "del"))
# A start tag of these closes an open element of the same group, searched down to a boundary.
_SCOPE = frozenset("table td th caption html object template".split())
_IMPLIED: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "li": (frozenset(("li",)), _SCOPE | {"ul", "ol"}),
    "dt": (frozenset(("dt", "dd")), _SCOPE | {"dl"}),
    "dd": (frozenset(("dt", "dd")), _SCOPE | {"dl"}),
    "td": (frozenset(("td", "th")), frozenset(("table", "tr"))),
    "th": (frozenset(("td", "th")), frozenset(("table", "tr"))),
    "tr": (frozenset(("tr",)), frozenset(("table",))),
    "thead": (frozenset(("thead", "tbody", "tfoot")), frozenset(("table",))),
    "tbody": (frozenset(("thead", "tbody", "tfoot")), frozenset(("table",))),
    "tfoot": (frozenset(("thead", "tbody", "tfoot")), frozenset(("table",))),
    "option": (frozenset(("option",)), frozenset(("select",))),
}
_LINE_THROUGH = re.compile(r"text-decoration(?:-line)?\s*:[^;\"']*line-through", re.IGNORECASE)
_CSS_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CSS_CLASS = re.compile(r"\.([\w-]+)\s*$")
_SPACES = re.compile(r"\s+")
# A row whose cells are each one paragraph of at most this many characters is a data row.
_MAX_CELL = 300

Paragraph = tuple[list[str], ParagraphKind]


@dataclass
class _Open:
    tag: str
    struck: bool
    dropped: bool
    pre: bool


@dataclass
class _Table:
    cells: list[list[Paragraph]] = field(default_factory=list)
    in_row: bool = False


class HtmlReader(HTMLParser):
    """Feed it the decoded page, call `close()`, then read `paragraphs` and `title`."""

    def __init__(self, revoked: RevokedText) -> None:
        super().__init__(convert_charrefs=True)
        self.revoked = revoked
        self.paragraphs: list[Paragraph] = []
        self.title: str | None = None
        self._first_heading: str | None = None
        self._stack: list[_Open] = []
        self._sinks: list[list[Paragraph]] = [self.paragraphs]
        self._tables: list[_Table] = []
        self._lines: list[str] = [""]
        self._title_parts: list[str] | None = None
        self._style_parts: list[str] | None = None
        self._struck_classes: set[str] = set()

    # -- html.parser callbacks -------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _IMPLIED:
            names, boundary = _IMPLIED[tag]
            self._close_nearest(names, boundary)
        if tag in _BLOCK:
            self._close_nearest(_P, _SCOPE)
            if tag in _HEADINGS and self._stack and self._stack[-1].tag in _HEADINGS:
                self._pop_through(len(self._stack) - 1)
        if tag == "br":
            if not self._state().dropped:
                self._lines.append("")
            return
        if tag in _BLOCK:
            self._flush()
        if tag in VOID:
            return
        parent = self._state()
        attr = {k: v or "" for k, v in attrs}
        own_struck = (
            tag in _STRUCK_TAGS
            or bool(_LINE_THROUGH.search(attr.get("style", "")))
            or any(c in self._struck_classes for c in attr.get("class", "").split())
        )
        dropped = tag in _DROPPED or attr.get("role", "").lower() == "navigation"
        self._stack.append(
            _Open(tag, parent.struck or own_struck, parent.dropped or dropped, parent.pre or tag == "pre")
        )
        self._opened(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # XHTML's "<br/>", "<p/>": open and close at once.
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "br":  # "</br>" is a line break in every browser
            self.handle_starttag("br", [])
            return
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i].tag == tag:
                self._pop_through(i)
                return
        if tag in _BLOCK:
            self._flush()  # a stray end tag still ends the paragraph it closes in a browser

    def handle_data(self, data: str) -> None:
        state = self._state()
        if self._style_parts is not None:
            self._style_parts.append(data)
        if state.dropped:
            return
        if self._title_parts is not None:
            self._title_parts.append(data)
            return
        if state.pre:
            pieces = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        else:
            pieces = [_SPACES.sub(" ", data)]
        for i, piece in enumerate(pieces):
            if i:
                self._lines.append("")
            self._lines[-1] += mark(piece) if state.struck and piece.strip() else piece

    def close(self) -> None:
        super().close()
        self._pop_through(0)
        self._flush()
        while self._tables:  # rows written outside any <table>
            self._end_row(self._tables.pop())
        if self.title is None:
            self.title = self._first_heading

    # -- the stack -------------------------------------------------------------------------

    def _state(self) -> _Open:
        return self._stack[-1] if self._stack else _Open("", False, False, False)

    def _close_nearest(self, names: frozenset[str], boundary: frozenset[str]) -> None:
        for i in range(len(self._stack) - 1, -1, -1):
            tag = self._stack[i].tag
            if tag in names:
                self._pop_through(i)
                return
            if tag in boundary:
                return

    def _pop_through(self, index: int) -> None:
        while len(self._stack) > index:
            self._closed(self._stack[-1].tag)
            self._stack.pop()

    def _opened(self, tag: str) -> None:
        if tag == "title" and self.title is None:
            self._title_parts = []
        elif tag == "style":
            self._style_parts = []
        elif tag == "table":
            self._tables.append(_Table())
        elif tag == "tr":
            table = self._table()
            self._end_row(table)
            table.in_row = True
        elif tag in ("td", "th"):
            self._table().in_row = True
            self._sinks.append([])

    def _closed(self, tag: str) -> None:
        if tag in _BLOCK:
            self._flush()
        if tag == "title" and self._title_parts is not None:
            self.title = " ".join("".join(self._title_parts).split()) or None
            self._title_parts = None
        elif tag == "style" and self._style_parts is not None:
            self._read_css("".join(self._style_parts))
            self._style_parts = None
        elif tag in ("td", "th") and len(self._sinks) > 1:
            cell = self._sinks.pop()
            self._table().cells.append(cell)
        elif tag == "tr" and self._tables:
            self._end_row(self._tables[-1])
        elif tag == "table" and self._tables:
            self._end_row(self._tables.pop())

    def _table(self) -> _Table:
        if not self._tables:
            self._tables.append(_Table())  # a row outside any table
        return self._tables[-1]

    def _read_css(self, css: str) -> None:
        """Classes a `<style>` block strikes through (".revogado { text-decoration: ... }")."""
        for selectors, body in _CSS_RULE.findall(css):
            if _LINE_THROUGH.search(body):
                for selector in selectors.split(","):
                    m = _CSS_CLASS.search(selector.strip())
                    if m:
                        self._struck_classes.add(m.group(1))

    # -- paragraphs and rows ---------------------------------------------------------------

    def _kind(self) -> ParagraphKind:
        for entry in reversed(self._stack):
            if entry.tag in _HEADINGS or entry.tag == "caption":
                return ParagraphKind.HEADING
            if entry.tag == "li":
                return ParagraphKind.LIST_ITEM
            if entry.tag in _BLOCK:
                return ParagraphKind.BODY
        return ParagraphKind.BODY

    def _flush(self) -> None:
        """End the open paragraph; a blank line inside it (two `<br>`s) splits it in two."""
        lines, self._lines = self._lines, [""]
        kind = self._kind()
        group: list[str] = []
        for line in [*lines, ""]:
            if line.replace(START, "").replace(END, "").strip():
                group.append(line)
                continue
            if group:
                self._emit("\n".join(group), kind)
                group = []

    def _emit(self, text: str, kind: ParagraphKind) -> None:
        text = self.revoked.apply(text)
        lines = [" ".join(line.split()) for line in text.split("\n")]
        lines = [line for line in lines if line]
        if not lines:
            return
        if kind is ParagraphKind.HEADING and self._first_heading is None:
            self._first_heading = " ".join(lines)
        self._sinks[-1].append((lines, kind))

    def _end_row(self, table: _Table) -> None:
        cells, table.cells = [c for c in table.cells if c], []
        table.in_row = False
        if not cells:
            return
        data_row = len(cells) > 1 and all(
            len(c) == 1 and sum(len(line) for line in c[0][0]) <= _MAX_CELL for c in cells
        )
        if data_row:
            line = " | ".join(" ".join(c[0][0]) for c in cells)
            self._sinks[-1].append(([line], ParagraphKind.TABLE))
            return
        for cell in cells:
            self._sinks[-1].extend(cell)
