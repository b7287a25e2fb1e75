"""Deposition and hearing transcripts: pages whose lines carry printed margin numbers (1-25,
sometimes 1-28), read as the transcript prints them.

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

On such a page (`rebuild`): the margin numbers leave the text, every line's number is the
printed one, a line without a number inside a run (its number lost) takes the next free number,
and the lines outside every run (running headers and footers: "Official - Subject to Final
Review", the reporter's name, "Page 45", a Bates stamp, already read by parse/bates.py) leave
the text. Each run's printed page number comes from those lines ("Page 45", or a number alone on
its line, nearest the run: a header before it, a footer after it), else the page after the
previous transcript page, else the PDF page number. Paragraphs are speaker turns: a new one at
"Q."/"A.", at a speaker's label ("MR. SMITH:", "THE COURT:"), at a parenthetical and after blank
numbered lines.

The document's citation label (`transcript_label`): `Smith Dep.` for a deposition (the
deponent's surname from "DEPOSITION OF JOHN A. SMITH" or "Depoimento de João da Silva" on the
first transcript pages), `Tr.` for other transcripts (hearings, oral arguments, trials; a
Portuguese "Termo de audiência"), and None for margin-numbered pages that are no transcript
(pleading paper): such a document is left exactly as parsed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from casetrack.domain import Page, ParagraphKind, ParsedDocument
from casetrack.parse.pagebuilder import PageBuilder

MAX_LINE = 35  # margin numbers run 1-25 (28 on pleading paper, 32 on some); larger is text
MAX_STEP = 3  # a run's numbers rise by at most this much (OCR may lose blank lines' numbers)
FIRST_MAX = 3  # a run starts at 1 (or 2-3 when OCR lost its first numbers)
MAX_INDENT = 8  # a margin number opens its line; one far to the right is a page number (a .txt's header)
MIN_RUN = 5  # fewer numbered lines in a row are a list, a date or a page number
MIN_NUMBERED = 8  # a transcript page has at least this many numbered lines ...
MIN_SHARE = 0.5  # ... and they are most of its non-blank lines
LABEL_PAGES = 3  # the transcript pages whose text names the deponent or the kind of transcript

_MARGIN = re.compile(r"^\s*(\d{1,2})(?=\s|$)\s*(.*?)\s*$")
_PAGE_WORD = re.compile(r"\b(?:page|p[áa]gina|pg\.?)\s*(\d{1,4})\b(?!\s*[-–])", re.IGNORECASE)
_PAGE_LONE = re.compile(r"^\W{0,3}(\d{1,4})\W{0,3}$")
# Where a new speaker's paragraph starts: "Q.", "A", "Q:", a label in capitals ending in a colon
# ("MR. PELLEGRINO:", "THE COURT:", "CHIEF JUSTICE ROBERTS:", "BY MS. ODUYA:"), "(Whereupon ...".
_QA = re.compile(r"^([QAPR])(?:[.:]|\s)")
_LABEL = re.compile(r"^(?:[A-ZÀ-Ý][A-ZÀ-Ý.'’\-]*\s+){0,3}[A-ZÀ-Ý][A-ZÀ-Ý.'’\-]+:(?:\s|$)")
_SPEAKER = re.compile(
    r"^(?:BY\s+)?(?:MR|MRS|MS|DR|DRA|THE|JUSTICE|CHIEF\s+JUSTICE|JUDGE|JUIZ|JU[ÍI]ZA|SR|SRA)\.?"
    r"\s+[A-ZÀ-Ý][A-ZÀ-Ý.'’\- ]{1,30}:"
)
# A transcript's title ("TRANSCRIPT OF MOTION HEARING", "P R O C E E D I N G S", a Portuguese
# "Termo de audiência"), in capitals where an order on pleading paper would use the words too
# ("the deposition transcript"); and the weaker cues of a transcript's cover ("came on for oral
# argument", "court reporter"), which an order may use as well: they count beside "APPEARANCES".
_TITLE = re.compile(
    r"\bTRANSCRIPT\s+OF\b|REPORTER'S\s+TRANSCRIPT|(?i:p\s+r\s+o\s+c\s+e\s+e\s+d\s+i\s+n\s+g\s+s|"
    r"termo\s+de\s+audi[êe]ncia|assentada|taquigr|estenotip)"
)
_COVER = re.compile(
    r"came\s+on\s+for|oral\s+argument|court\s+reporter|shorthand|stenograph|reporting", re.IGNORECASE
)
_APPEARANCES = re.compile(r"^\s*(?:APPEARANCES|PRESENTES)\b", re.MULTILINE)
_NAME_WORD = r"(?:[A-ZÀ-Ý][\w'’.\-]*|d[aeo]s?|e|van|von|de\s+la)"
_DEPONENT = re.compile(
    r"(?i:deposition|depoimento)(?:\s+(?i:upon\s+oral\s+examination|pessoal))?\s+"
    r"(?i:of|de|da|do)\s*[:\-]?\s+(?:(?i:the\s+)?(?i:witness|testemunha|autora?|r[ée]u?|r[ée])\s+)?"
    rf"(?P<name>[A-ZÀ-Ý][\w'’.\-]*(?:[ \t]+{_NAME_WORD}){{0,6}})"
)
_NOT_A_DEPOSITION = re.compile(
    r"(?i:motion|notice|compel|subpoena|to\s+take|for\s+the|requerimento|intima)\W*\S*\W*$"
)
_SUFFIXES = frozenset("JR JR. SR SR. II III IV ESQ ESQ. PH.D. PHD M.D. MD".split())
_CORPORATE = re.compile(
    r"\b(?:inc|corp|corporation|company|co|llc|llp|ltd|l\.p|s\.a|ltda|bank)\b\.?", re.IGNORECASE
)


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
        m = _MARGIN.match(line)
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


def _starts_turn(text: str) -> bool:
    return bool(_QA.match(text) or _LABEL.match(text) or text.startswith("("))


def _paragraphs(run: Run) -> list[list[Numbered]]:
    """A run's lines cut at speaker turns and at blank numbered lines."""
    out: list[list[Numbered]] = []
    prev: Numbered | None = None
    for line in run.lines:
        if not line.text:
            prev = line
            continue
        gap = prev is not None and (not prev.text or line.number > prev.number + 1)
        if not out or gap or _starts_turn(line.text):
            out.append([])
        out[-1].append(line)
        prev = line
    return out


def build_page(
    number: int | None, margin: Margin, confidences: Sequence[float] = (), base: Page | None = None
) -> Page:
    """The page's transcript lines as a `Page`: printed line numbers, each line's transcript page,
    margin numbers and running headers and footers out (`base`: the page as parsed, whose
    extraction facts and Bates stamp carry over)."""
    builder = PageBuilder(number)
    runs = margin.runs
    if len({r.page for r in runs}) == len(runs):  # a condensed sheet: its pages in printed order
        runs = sorted(runs, key=lambda r: r.page or 0)
    for run in runs:
        assert run.page is not None
        for para in _paragraphs(run):
            builder.add_paragraph(
                [n.text for n in para],
                ParagraphKind.BODY,
                confidences=[confidences[n.index] for n in para] if confidences else None,
                numbers=[(run.page, n.number) for n in para],
            )
    if base is None:
        return builder.build()
    page = builder.build(base.extraction_method, base.needs_ocr, base.ocr_confidence)
    return replace(page, bates=base.bates)


def page_lines(page: Page) -> list[str]:
    return [page.text[s.start : s.end] for s in page.lines]


def with_transcripts(doc: ParsedDocument, raw: Sequence[Sequence[str]] | None = None) -> ParsedDocument:
    """`doc` with its margin-numbered pages read as transcript pages (module docstring) and its
    citation label; unchanged when no page is one. Run after the Bates stamps are read: the
    running headers and footers leave the text. `raw`: each page's lines as the file holds them,
    one per line of the page (a .txt's, whose indentation tells a page number from a margin one)."""
    if raw is not None and [len(r) for r in raw] != [len(p.lines) for p in doc.pages]:
        raw = None
    texts = [
        (list(raw[k]) if raw is not None else page_lines(p)) if p.lines and not p.line_pages else []
        for k, p in enumerate(doc.pages)
    ]
    margins = [read_margin(t) if t else None for t in texts]
    if not any(margins):
        return doc
    fill_page_numbers([(p.number, m) for p, m in zip(doc.pages, margins, strict=True)])
    pages = [
        build_page(p.number, m, p.line_confidences if len(p.line_confidences) == len(p.lines) else (), p)
        if m is not None
        else p
        for p, m in zip(doc.pages, margins, strict=True)
    ]
    first = [t for t, m in zip(texts, margins, strict=True) if m is not None][:LABEL_PAGES]
    label = transcript_label(first, texts[0] if texts else [])
    if label is None:  # pleading paper, or numbered lines that are no transcript: left as they are
        return doc
    return replace(doc, pages=tuple(pages), transcript=label)


def transcript_label(pages: Sequence[Sequence[str]], first_page: Sequence[str] = ()) -> str | None:
    """How the transcript is cited: `Smith Dep.`, `Tr.`, or None when the margin-numbered pages
    are no transcript (module docstring). `pages`: the first transcript pages' lines as read
    (margin numbers, headers and footers still in); `first_page`: the document's first page."""
    lines = [_MARGIN.sub(r"\2", line) for page in [first_page, *pages] for line in page]
    text = "\n".join(lines)
    deponent = _deponent(text)
    if deponent:
        return f"{deponent} Dep."
    turns = sum(1 for line in lines if _SPEAKER.match(line))
    questions = sum(1 for line in lines if line.startswith(("Q.", "Q ")))
    answers = sum(1 for line in lines if line.startswith(("A.", "A ")))
    cover = _COVER.search(text) is not None and _APPEARANCES.search(text) is not None
    if turns >= 3 or (questions >= 2 and answers >= 2) or _TITLE.search(text) or cover:
        return "Tr."
    return None


def _deponent(text: str) -> str | None:
    """The deponent's surname (a company's name) from "DEPOSITION OF JOHN A. SMITH"."""
    for m in _DEPONENT.finditer(text):
        if _NOT_A_DEPOSITION.search(text[max(0, m.start() - 40) : m.start()]):
            continue  # "MOTION TO COMPEL THE DEPOSITION OF ..." is a motion
        name = m["name"].strip(" ,.;:")
        if _CORPORATE.search(name):
            return " ".join(_titled(w) for w in name.split())
        words = [w.strip(",") for w in name.split()]
        while len(words) > 1 and words[-1].upper() in _SUFFIXES:
            words.pop()
        if words:
            return _titled(words[-1].rstrip("."))
    return None


def _titled(word: str) -> str:
    """SMITH -> Smith, O'BRIEN -> O'Brien, SMITH-JONES -> Smith-Jones; mixed case as written."""
    if not word.isupper():
        return word
    return re.sub(r"[^\W\d_]+", lambda m: m[0].capitalize(), word.lower())
