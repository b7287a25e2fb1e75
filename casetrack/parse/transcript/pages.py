"""Transcript pages read as the transcript prints them: `with_transcripts` turns a document's
margin-numbered pages (transcript/margin.py) into pages of printed page:line numbers and gives the
document its citation label (transcript/label.py).

On such a page (`build_page`): the margin numbers leave the text, every line's number is the
printed one, a line without a number inside a run (its number lost) takes the next free number,
and the lines outside every run (running headers and footers: "Official - Subject to Final
Review", the reporter's name, "Page 45", a Bates stamp, already read by parse/bates.py) leave
the text. Each run's printed page number comes from those lines ("Page 45", or a number alone on
its line, nearest the run: a header before it, a footer after it), else the page after the
previous transcript page, else the PDF page number. Paragraphs are speaker turns: a new one at
"Q."/"A.", at a speaker's label ("MR. SMITH:", "THE COURT:"), at a parenthetical and after blank
numbered lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from casetrack.domain import Page, ParagraphKind, ParsedDocument
from casetrack.parse.pagebuilder import PageBuilder
from casetrack.parse.transcript.label import transcript_label
from casetrack.parse.transcript.margin import Margin, Numbered, Run, fill_page_numbers, read_margin

LABEL_PAGES = 3  # the transcript pages whose text names the deponent or the kind of transcript

# Where a new speaker's paragraph starts: "Q.", "A", "Q:", a label in capitals ending in a colon
# ("MR. PELLEGRINO:", "THE COURT:", "CHIEF JUSTICE ROBERTS:", "BY MS. ODUYA:"), "(Whereupon ...".
_QA = re.compile(r"^([QAPR])(?:[.:]|\s)")
_LABEL = re.compile(r"^(?:[A-ZÀ-Ý][A-ZÀ-Ý.'’\-]*\s+){0,3}[A-ZÀ-Ý][A-ZÀ-Ý.'’\-]+:(?:\s|$)")


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
