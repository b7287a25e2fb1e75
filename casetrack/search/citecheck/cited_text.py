"""A document's text rebuilt from its stored chunks, with the lines and paragraphs to cite it by.

A chunk is an exact slice [char_start, char_end) of one page's text, and the chunks of a page
overlap, so a page (or the part of it some chunks cover) is rebuilt by laying the slices at their
offsets; what lies between two chunks that do not touch is only separator (a space, a line
break or the blank line between paragraphs). Line numbers come from each chunk's stored
`line_numbers` (every row has them since schema version 1: store/migrations/). Paragraph
numbers count the blank lines ("\\n\\n") from the chunk's first paragraph.

A `Region` is one or more consecutive pages' text joined by a blank line, so a quote that runs
over a page break can be found and cited (`pp. 12-13`).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from casetrack.domain import ExtractionMethod, Provenance
from casetrack.quote.fold import Folded, fold
from casetrack.store.case_store import CaseStore
from casetrack.store.journal import JournalEntry
from casetrack.store.lance_tables import CHUNKS, sql_str

# What verification reads of a chunk row (no embeddings).
TEXT_COLUMNS = [
    "chunk_id",
    "doc_id",
    "gen",
    "seq",
    "text",
    "page",
    "page_index",
    "paragraph_start",
    "paragraph_end",
    "line_start",
    "line_end",
    "char_start",
    "char_end",
    "line_numbers",
    "line_pages",
    "transcript",
]
PAGE_BREAK = "\n\n"
FURNITURE_LINES = 5  # lines at the top and bottom of a page where running headers and footers sit
_LINE = re.compile(r"[^\n]+")
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^\W*(?:page|p[aá]gina|p\.)?\s*(?:\d{1,4}|[ivxlcdm]{1,6})(?:\s*(?:of|de|/)\s*\d{1,4})?\W*$",
    re.IGNORECASE,
)

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Numbered:
    number: int
    start: int  # span in the page's text
    end: int
    tpage: int | None = (
        None  # transcripts: the line's printed transcript page (its number is the printed one)
    )


def _int(row: Row, key: str) -> int:
    value = row.get(key)
    return int(value) if isinstance(value, int) else 0


def _segments(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, after a paragraph break) of each non-empty line of a chunk's text."""
    out: list[tuple[int, int, bool]] = []
    pos, blank_before = 0, False
    for piece in text.split("\n"):
        if piece:
            out.append((pos, pos + len(piece), blank_before))
            blank_before = False
        elif out:
            blank_before = True
        pos += len(piece) + 1
    return out


def _line_numbers(row: Row, segments: list[tuple[int, int, bool]]) -> list[int]:
    """The stored number of each line of the chunk (none for a chunk without numbered lines, and
    none when they do not fit its text: such lines are not cited by number)."""
    stored = row.get("line_numbers")
    if isinstance(stored, list | tuple) and len(stored) == len(segments):
        return [int(n) for n in stored]
    return []


@dataclass
class PageText:
    """The text of one page (or of the part of it some contiguous chunks cover)."""

    page: int | None
    page_index: int
    base: int  # page offset of text[0]
    text: str
    lines: list[Numbered] = field(default_factory=list)
    paragraphs: list[Numbered] = field(default_factory=list)
    transcript: str | None = None  # a transcript page: how its document is cited ("Smith Dep.")

    def edge_lines(self, start: int, end: int) -> tuple[Numbered, Numbered] | None:
        """The first and last line overlapping local span [start, end), in reading order."""
        a, b = start + self.base, max(end, start + 1) + self.base
        hit = [n for n in self.lines if n.start < b and n.end > a]
        return (hit[0], hit[-1]) if hit else None

    def numbered_in(self, items: list[Numbered], start: int, end: int) -> tuple[int, int] | None:
        """First and last number of `items` overlapping local span [start, end)."""
        a, b = start + self.base, max(end, start + 1) + self.base
        hit = [n.number for n in items if n.start < b and n.end > a]
        return (min(hit), max(hit)) if hit else None

    def span_of(self, items: list[Numbered], first: int, last: int) -> tuple[int, int] | None:
        """Local span of the items numbered first..last (None when none of them is here)."""
        hit = [n for n in items if first <= n.number <= last]
        if not hit:
            return None
        return min(n.start for n in hit) - self.base, max(n.end for n in hit) - self.base


def page_from_rows(rows: list[Row]) -> PageText:
    """One page rebuilt from some of its chunks (contiguous, overlapping or touching)."""
    rows = sorted(rows, key=lambda r: (_int(r, "char_start"), _int(r, "seq")))
    base = _int(rows[0], "char_start")
    parts: list[str] = []
    cursor = base
    lines: dict[tuple[int | None, int], list[int]] = {}  # (transcript page, number) -> span
    paragraphs: dict[int, list[int]] = {}
    prev: Row | None = None
    for row in rows:
        start, text = _int(row, "char_start"), str(row["text"])
        if start > cursor and prev is not None:
            parts.append(_gap(prev, row, start - cursor))
            cursor = start
        end = start + len(text)
        if end > cursor:
            parts.append(text[cursor - start :])
            cursor = end
        _number(row, start, lines, paragraphs)
        prev = row
    first = rows[0]
    page = first.get("page")
    return PageText(
        page=int(page) if isinstance(page, int) else None,
        page_index=_int(first, "page_index"),
        base=base,
        text="".join(parts),
        lines=sorted((Numbered(n, s, e, tp) for (tp, n), (s, e) in lines.items()), key=lambda x: x.start),
        paragraphs=sorted((Numbered(n, s, e) for n, (s, e) in paragraphs.items()), key=lambda x: x.start),
        transcript=next(
            (str(r["transcript"]) for r in rows if r.get("transcript") and r.get("line_pages")), None
        ),
    )


def _gap(prev: Row, row: Row, length: int) -> str:
    """What separates two chunks that do not touch (only whitespace ever does)."""
    if _int(row, "paragraph_start") > _int(prev, "paragraph_end"):
        sep = "\n\n"
    elif _int(row, "line_start") > _int(prev, "line_end"):
        sep = "\n"
    else:
        sep = " "
    return (sep + " " * length)[:length]


def _widen(spans: dict[Any, list[int]], number: Any, start: int, end: int) -> None:
    span = spans.get(number)
    if span is None:
        spans[number] = [start, end]
    else:
        span[0], span[1] = min(span[0], start), max(span[1], end)


def _number(
    row: Row, offset: int, lines: dict[tuple[int | None, int], list[int]], paragraphs: dict[int, list[int]]
) -> None:
    """Add a chunk's lines (by transcript page and number) and paragraphs (page offsets) to the
    page's maps."""
    text = str(row["text"])
    segments = _segments(text)
    stored = row.get("line_pages")
    tpages = (
        [int(n) for n in stored]
        if isinstance(stored, list | tuple) and len(stored) == len(segments)
        else None
    )
    for k, (number, (s, e, _after)) in enumerate(zip(_line_numbers(row, segments), segments, strict=False)):
        _widen(lines, (tpages[k] if tpages else None, number), offset + s, offset + e)
    para = _int(row, "paragraph_start")
    start = 0
    while True:
        cut = text.find("\n\n", start)
        end = len(text) if cut < 0 else cut
        if end > start:
            _widen(paragraphs, para, offset + start, offset + end)
        if cut < 0:
            break
        para += 1
        start = cut + 2


def _furniture(pages: list[PageText], starts: list[int]) -> list[tuple[int, int]]:
    """Spans (region offsets) of the running headers and footers around the page breaks: lines
    among the first or last FURNITURE_LINES of a page that are a page number ("9", "- 9 -",
    "Page 9 of 20", "ii") or repeat near the break of another page ("CONFIDENTIAL"; digits aside
    for lines of 20 characters or more: "Source: ACME INC., 8-K, 4/11/2018")."""
    zone: list[tuple[int, int, int, str]] = []  # page, start, end, line
    for k, (page, offset) in enumerate(zip(pages, starts, strict=True)):
        spans = [(m.start(), m.end()) for m in _LINE.finditer(page.text)]
        chosen = (
            spans if len(spans) <= 2 * FURNITURE_LINES else spans[:FURNITURE_LINES] + spans[-FURNITURE_LINES:]
        )
        zone += [(k, offset + a, offset + b, page.text[a:b]) for a, b in chosen]
    same = Counter(key for _k, key in {(k, _key(line, False)) for k, _a, _b, line in zone})
    alike = Counter(key for _k, key in {(k, _key(line, True)) for k, _a, _b, line in zone})
    return [
        (a, b)
        for _k, a, b, line in zone
        if _PAGE_NUMBER.match(line)
        or (len(line.strip()) >= 6 and same[_key(line, False)] > 1)
        or (len(line.strip()) >= 20 and alike[_key(line, True)] > 1)
    ]


def _key(line: str, digits_aside: bool) -> str:
    """A line as compared with the lines near other page breaks ("Article 26" and "Article 34"
    are alike digits aside, but too short to be taken for a running header)."""
    key = " ".join(line.split()).casefold()
    return _DIGITS.sub("#", key) if digits_aside else key


@dataclass
class Region:
    """Consecutive pages (or parts of pages) of one document, joined by a blank line.

    `reading` is `text` with the running headers and footers between its pages blanked out
    (same length, same offsets): quotes are matched in it, since a quote over a page break
    leaves them out; `text` is what is shown."""

    entry: JournalEntry
    pages: list[PageText]
    starts: list[int]  # offset of each page's text in `text`
    text: str
    reading: str
    furniture: list[tuple[int, int]]  # spans of the running headers and footers between pages
    _folds: dict[bool, Folded] = field(default_factory=dict, repr=False)  # reading? -> its fold

    @classmethod
    def of(cls, entry: JournalEntry, pages: list[PageText]) -> Region:
        starts, parts, pos = [], [], 0
        for page in pages:
            starts.append(pos)
            parts.append(page.text)
            pos += len(page.text) + len(PAGE_BREAK)
        text = PAGE_BREAK.join(parts)
        reading, furniture = text, _furniture(pages, starts) if len(pages) > 1 else []
        if furniture:
            chars = list(text)
            for a, b in furniture:
                chars[a:b] = " " * (b - a)
            reading = "".join(chars)
        return cls(entry, pages, starts, text, reading, furniture)

    def folded(self, start: int, end: int, reading: bool) -> Folded:
        """fold(source[start:end]) of `reading` (else `text`), cut from one fold of the whole."""
        whole = self._folds.get(reading)
        if whole is None:
            whole = self._folds[reading] = fold(self.reading if reading else self.text)
        a, b = bisect.bisect_left(whole.offsets, start), bisect.bisect_left(whole.offsets, end)
        return Folded(whole.text[a:b], [o - start for o in whole.offsets[a:b]])

    def in_furniture(self, start: int, end: int) -> bool:
        """True when text[start:end] is running headers and footers (and whitespace) only."""
        rest = list(self.text[start:end])
        hit = False
        for a, b in self.furniture:
            lo, hi = max(a, start), min(b, end)
            if lo < hi:
                hit = True
                rest[lo - start : hi - start] = " " * (hi - lo)
        return hit and not "".join(rest).strip()

    @property
    def lines_citable(self) -> bool:
        return self.entry.meta.get("file_type") != "docx"

    def _pieces(self, start: int, end: int) -> list[tuple[PageText, int, int]]:
        """(page, local start, local end) of each page [start, end) touches."""
        out = []
        for page, offset in zip(self.pages, self.starts, strict=True):
            a, b = max(start, offset), min(end, offset + len(page.text))
            if a < b:
                out.append((page, a - offset, b - offset))
        return out

    def page_spans(self, start: int, end: int) -> set[tuple[str, int, int, int]]:
        """(doc_id, page_index, start, end) in each page's own offsets, for the pages [start, end)
        touches: what two regions compare to tell whether they hold the same place."""
        return {
            (self.entry.doc_id, page.page_index, page.base + a, page.base + b)
            for page, a, b in self._pieces(start, end)
        }

    def locate(self, spans: set[tuple[str, int, int, int]]) -> tuple[int, int] | None:
        """The region span of page spans (as `page_spans` gives them) that lie in this region."""
        found = []
        for page, offset in zip(self.pages, self.starts, strict=True):
            for doc_id, index, a, b in spans:
                lo, hi = max(a, page.base), min(b, page.base + len(page.text))
                if doc_id == self.entry.doc_id and index == page.page_index and lo < hi:
                    found += [offset + lo - page.base, offset + hi - page.base]
        return (min(found), max(found)) if found else None

    def provenance(self, start: int, end: int) -> Provenance:
        """The provenance of text[start:end]. A span that crosses pages has no paragraph or
        line numbers (they restart on each page): it is cited `pp. 12-13`."""
        pieces = self._pieces(start, end) or [(self.pages[0], 0, 0)]
        first, a, first_end = pieces[0]
        last, _, b = pieces[-1]
        paras = lines = None
        if last is first:
            paras, lines = first.numbered_in(first.paragraphs, a, b), first.numbered_in(first.lines, a, b)
        elif last.page_index == first.page_index:  # two parts of one unpaged text
            p1, p2 = (
                first.numbered_in(first.paragraphs, a, first_end),
                last.numbered_in(last.paragraphs, 0, b),
            )
            l1, l2 = first.numbered_in(first.lines, a, first_end), last.numbered_in(last.lines, 0, b)
            paras = (p1[0], p2[1]) if p1 and p2 else None
            lines = (l1[0], l2[1]) if l1 and l2 else None
        return replace(
            Provenance(
                document=self.entry.name,
                document_id=self.entry.doc_id,
                page=first.page,
                paragraph_start=paras[0] if paras else 0,
                paragraph_end=paras[1] if paras else 0,
                line_start=lines[0] if lines else 0,
                line_end=lines[1] if lines else 0,
                char_start=first.base + a,
                char_end=last.base + b,
                extraction_method=ExtractionMethod.NATIVE,
                lines_citable=self.lines_citable,
                page_end=last.page if last.page != first.page else None,
            ),
            **_transcript_lines(pieces),
        )

    def citation(self, start: int, end: int) -> str:
        """CaseTrack's citation of text[start:end] (`Contract.pdf, p. 12, para. 8, ll. 1-4`)."""
        prov = self.provenance(start, end)
        if prov.paragraph_start > 0 or prov.is_transcript:
            return prov.citation()
        if prov.page is None:
            return prov.document
        if prov.page_end is not None:
            return f"{prov.document}, pp. {prov.page}-{prov.page_end}"
        return f"{prov.document}, p. {prov.page}"

    def whole_lines(self, start: int, end: int) -> tuple[int, int]:
        """[start, end) widened to the lines it touches."""
        a = self.text.rfind("\n", 0, start) + 1
        b = self.text.find("\n", end)
        return a, len(self.text) if b < 0 else b

    def page_at(self, offset: int) -> tuple[PageText, int]:
        """The page holding region offset `offset`, and that page's offset in the region."""
        i = max(0, bisect.bisect_right(self.starts, offset) - 1)
        return self.pages[i], self.starts[i]


# -- reading chunks -------------------------------------------------------------------------------


def read_rows(store: CaseStore, where: str) -> list[dict[str, Any]]:
    """Chunk rows matching `where`, with the columns of TEXT_COLUMNS."""
    table = store.lance.table(CHUNKS)
    if table is None:
        return []
    n = int(table.count_rows(where))
    if n == 0:
        return []
    select = list(TEXT_COLUMNS)
    rows: list[dict[str, Any]] = table.search().where(where).select(select).limit(n).to_arrow().to_pylist()
    return rows


def document_where(entry: JournalEntry, extra: str = "") -> str:
    where = f"doc_id = {sql_str(entry.doc_id)} AND gen = {int(entry.gen)}"
    return f"{where} AND ({extra})" if extra else where


def pages_of(rows: Iterable[Row]) -> list[PageText]:
    """The rows grouped by page and rebuilt, in page order; a page whose chunks do not touch
    is cut into its contiguous parts."""
    by_page: dict[int, list[Row]] = defaultdict(list)
    for row in rows:
        by_page[_int(row, "page_index")].append(row)
    pages: list[PageText] = []
    for index in sorted(by_page):
        group = sorted(by_page[index], key=lambda r: _int(r, "seq"))
        run: list[Row] = [group[0]]
        for row in group[1:]:
            if _int(row, "seq") == _int(run[-1], "seq") + 1:
                run.append(row)
            else:
                pages.append(page_from_rows(run))
                run = [row]
        pages.append(page_from_rows(run))
    return pages


def _transcript_lines(pieces: list[tuple[PageText, int, int]]) -> dict[str, Any]:
    """A transcript span's `Smith Dep. 44:25-45:2`: its first and last lines' printed page and
    number, by position (numbers restart on each page); {} for other documents."""
    lo, hi = pieces[0][0].edge_lines(*pieces[0][1:]), pieces[-1][0].edge_lines(*pieces[-1][1:])
    first = pieces[0][0]
    if not first.transcript or lo is None or hi is None or lo[0].tpage is None or hi[1].tpage is None:
        return {}
    return {
        "transcript": first.transcript,
        "transcript_page": lo[0].tpage,
        "line_start": lo[0].number,
        "transcript_page_end": hi[1].tpage if hi[1].tpage != lo[0].tpage else None,
        "line_end": hi[1].number,
    }
