"""Deposition and hearing transcripts: which lines of a page carry printed margin numbers (1-25,
sometimes 1-28), grouped into the transcript pages they print, each with its printed page number.

The measured rule (`read_margin`, over a page's lines in reading order: a PDF page, an OCR'd
scan, a whole .txt file): a line starts with its margin number when it opens with an integer of
1-35 followed by a space or nothing (and indented at most MAX_INDENT: a number far to the right
is a page number); consecutive such lines whose numbers rise by 1-3 (OCR may
lose a blank line's number) make a *run*, one transcript page, which starts again at 1-3; a run
of fewer than MIN_RUN lines is a list item, a date or a page number, not a margin. A page is a
transcript page when its runs hold at least MIN_NUMBERED lines and at least MIN_SHARE of its
non-blank lines ("most lines of the page start with consecutive integers 1..N").
Measured on ../shared/data: the SCOTUS transcript (25 of 28 lines numbered) passes; none of the
CUAD contracts, the US court filings or the pdfplumber/pypdf robustness PDFs does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_LINE = 35  # margin numbers run 1-25 (28 on pleading paper, 32 on some); larger is text
MAX_STEP = 3  # a run's numbers rise by at most this much (OCR may lose blank lines' numbers)
FIRST_MAX = 3  # a run starts at 1 (or 2-3 when OCR lost its first numbers)
MAX_INDENT = 8  # a margin number opens its line; one far to the right is a page number (a .txt's header)
MIN_RUN = 5  # fewer numbered lines in a row are a list, a date or a page number
MIN_NUMBERED = 8  # a transcript page has at least this many numbered lines ...
MIN_SHARE = 0.5  # ... and they are most of its non-blank lines


MARGIN = re.compile(r"^\s*(\d{1,2})(?=\s|$)\s*(.*?)\s*$")
_PAGE_WORD = re.compile(r"\b(?:page|p[áa]gina|pg\.?)\s*(\d{1,4})\b(?!\s*[-–])", re.IGNORECASE)
_PAGE_LONE = re.compile(r"^\W{0,3}(\d{1,4})\W{0,3}$")


@dataclass(frozen=True)
class Numbered:
    """One line of a run: where it is in the input, its printed number and its text."""

    index: int
    number: int
    text: str


@dataclass
class Run:
    """One transcript page's lines: those with a margin number and those inside them."""

    lines: list[Numbered]
    page: int | None = None  # the printed transcript page number, when one is printed

    @property
    def first(self) -> int:
        return self.lines[0].index

    @property
    def last(self) -> int:
        return self.lines[-1].index


@dataclass
class Margin:
    """What `read_margin` found on a page: its runs (transcript pages) in reading order."""

    runs: list[Run]
    furniture: list[int] = field(default_factory=list)  # indexes of the lines outside every run


def read_margin(lines: Sequence[str]) -> Margin | None:
    """The page's transcript runs by the measured rule (module docstring), or None when the page
    is not a margin-numbered one."""
    candidates = []
    for i, line in enumerate(lines):
        m = MARGIN.match(line)
        if m is not None and 1 <= int(m[1]) <= MAX_LINE and len(line) - len(line.lstrip()) <= MAX_INDENT:
            candidates.append(Numbered(i, int(m[1]), " ".join(m[2].split())))
    runs = [r for r in _runs(candidates) if len(r) >= MIN_RUN]
    numbered = sum(len(r) for r in runs)
    if numbered < MIN_NUMBERED or numbered < MIN_SHARE * sum(1 for line in lines if line.strip()):
        return None
    inside = {n.index for r in runs for n in r}
    full = [Run(_with_unnumbered(r, lines)) for r in runs]
    held = {n.index for r in full for n in r.lines} | inside
    margin = Margin(full, [i for i, line in enumerate(lines) if line.strip() and i not in held])
    _read_page_numbers(margin, lines)
    return margin


def _runs(candidates: list[Numbered]) -> list[list[Numbered]]:
    """Candidates grouped into rising runs; a small number that would cut a run short while the
    next candidate carries it on is text ("2 weeks later" whose margin number OCR lost)."""
    runs: list[list[Numbered]] = []
    current: list[Numbered] = []
    for k, c in enumerate(candidates):
        last = current[-1].number if current else None
        if last is not None and last < c.number <= last + MAX_STEP:
            current.append(c)
            continue
        if c.number > FIRST_MAX:
            continue  # a number that continues nothing is text
        after = candidates[k + 1].number if k + 1 < len(candidates) else None
        if last is not None and after is not None and last < after <= last + MAX_STEP + 1:
            continue
        if current:
            runs.append(current)
        current = [c]
    if current:
        runs.append(current)
    return runs


def _with_unnumbered(run: list[Numbered], lines: Sequence[str]) -> list[Numbered]:
    """The run with the lines between its numbered ones (their numbers lost, or a line the
    layout split in two): each takes the next free number, else its predecessor's."""
    out: list[Numbered] = []
    for a, b in zip(run, [*run[1:], None], strict=True):
        out.append(a)
        if b is None:
            break
        between = [i for i in range(a.index + 1, b.index) if lines[i].strip()]
        for j, i in enumerate(between):
            free = a.number + 1 + j
            out.append(Numbered(i, free if free < b.number else a.number, " ".join(lines[i].split())))
    return out


def _page_number(line: str) -> tuple[int, bool] | None:
    """A printed page number in a header or footer line, and whether it says "Page"."""
    line = line.strip()
    m = _PAGE_WORD.search(line)
    if m is not None:
        return int(m[1]), True
    m = _PAGE_LONE.match(line)
    return (int(m[1]), False) if m is not None else None


def _read_page_numbers(margin: Margin, lines: Sequence[str]) -> None:
    """Each run's printed page number from the lines around it (module docstring)."""
    found = [(i, n) for i in margin.furniture if (n := _page_number(lines[i])) is not None]
    runs = margin.runs
    if len(runs) == 1:
        run = runs[0]
        ranked = sorted(found, key=lambda f: (not f[1][1], min(abs(f[0] - run.first), abs(f[0] - run.last))))
        run.page = ranked[0][1][0] if ranked else None
        return
    headers = any(i < runs[0].first for i, _ in found)
    for k, run in enumerate(runs):
        if headers:
            lo, hi = (runs[k - 1].last if k else -1), run.first
            near = [f for f in found if lo < f[0] < hi][::-1]
        else:
            lo, hi = run.last, (runs[k + 1].first if k + 1 < len(runs) else len(lines))
            near = [f for f in found if lo < f[0] < hi]
        near.sort(key=lambda f: not f[1][1])  # "Page 45" before a bare number; stable otherwise
        run.page = near[0][1][0] if near else None


def fill_page_numbers(margins: Sequence[tuple[int | None, Margin | None]]) -> None:
    """Runs without a printed page number take the page after the previous transcript page when
    it was on the same or the preceding page, else the page's own number, else 1."""
    prev: int | None = None
    prev_at: int | None = None
    for at, (number, margin) in enumerate(margins):
        if margin is None:
            continue
        for k, run in enumerate(margin.runs):
            follows = prev is not None and prev_at is not None and at - prev_at <= 1
            if run.page is None:
                if follows and prev is not None:
                    run.page = prev + 1
                elif number is not None and len(margin.runs) == 1:
                    run.page = number
                else:
                    run.page = (prev + 1) if prev is not None else k + 1
            prev, prev_at = run.page, at
