"""The printed line numbers in a scanned transcript's left margin, read apart from the page.

Tesseract's page layout (`--psm 3`) drops the small margin digits of a deposition page or reads
a few of them as a block of their own, so the transcript rule (parse/transcript/margin.py) never sees
them. `read_line_numbers(image, lines, languages, dpi, deadline)` reads them on the straightened
image OCR ran on, and gives each OCR line its printed number:

1. the text column's left edge: the leftmost x at which at least EDGE_SHARE of the lines with
   letters start (within ALIGN of the page width; stray lines in the margin, such as a court's
   name printed sideways or margin digits read as letters, are too few); the margin strip is
   what lies left of it, less a gap; narrower than MIN_STRIP of the page, there is none;
2. a free look first: vertical rules (columns inked over RULE of the strip's height: pleading
   paper's double line) are whited out, then the strip's ink must fall into at least MIN_NUMBERS
   separate bands of rows (one per printed number): a contract's blank margin costs no tesseract
   run and changes nothing;
3. tesseract on the strip alone, `--psm 6` restricted to digits (measured on a 25-line page at
   200 and 300 DPI: psm 6 read all 25 numbers, psm 11 lost 1-9, psm 4 kept only 24-25); when
   the chain (4.) has holes (and holds MIN_NUMBERS // 2 numbers or more), once more on the strip cleaned (3x3 median, Otsu), and the longer
   chain wins: on a grainy scan (grey noise, 2.5 degrees of skew) the plain strip gave 12 of 25
   numbers and the cleaned one 25, but cleaning breaks thin strokes at 150 DPI, so it comes second;
4. the numbers 1-35 count only as a chain rising down the strip in step with their spacing: the
   longest chain whose steps in number match their distance in row pitches (within PITCH_SLACK),
   so a misread digit or a speck falls out; it must hold MIN_NUMBERS numbers, start at 1 to
   FIRST_MAX, fill most of its span (MIN_FILL) and have a pitch of one to MAX_PITCH text-line
   heights (a contract's numbered paragraphs lie many lines apart);
5. each OCR line takes the number of the row its box centre lies on (counted on by whole pitches
   from the nearest chain number, within MATCH_SLACK of the row), from 1 to the chain's last
   number (or on to 25 when the chain's last numbers were lost); a line wholly inside the margin
   strip is margin digits tesseract did read, and a line taller than TALL pitches
   read under JUNK confidence is text tesseract took for a vertical line (the "Q." and "A." down
   the left of the text: 0% confidence): both leave (`dropped`).

`numbered_paragraphs(page)` turns an `OcrPage` with such numbers into the lines a native
transcript page has: top to bottom, "12 text" (the printed number first, the margin digits
tesseract read out), pieces of one printed line (a caption's ")" column) joined, the lines on
no numbered row (a "Page 45" header, the reporter's footer, a Bates stamp) as they were.
"""

from __future__ import annotations

import logging
import re
import statistics
import time
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageFilter

from casetrack.ocr.engine import run_tesseract
from casetrack.ocr.layout import Box, LineNumbers, OcrLine, OcrPage, OcrParagraph, tsv_words
from casetrack.ocr.orient import otsu

log = logging.getLogger(__name__)

MIN_NUMBERS = 8  # as parse/transcript/margin.py's MIN_NUMBERED: fewer is no transcript page
MAX_NUMBER = 35  # as parse/transcript/margin.py's MAX_LINE
FIRST_MAX = 5  # the chain's first number (1, or a little more when the first digits were lost)
MAX_STEP = 5  # numbers a chain may skip between two read ones (misread digits)
PITCH_SLACK = 0.3  # of a pitch: how far a chain number may lie off its row
MATCH_SLACK = 0.4  # of a pitch: how far a line's centre may lie off its row
MIN_FILL = 0.6  # share of the chain's span read
MAX_PITCH = 4.0  # text-line heights: numbered rows are single to double (or 1.5) spaced
LINES = 25  # a transcript page's usual last line, assumed when the chain's last numbers were lost
EDGE_SHARE = 0.25  # of the lines with letters: how many start at the text column's edge
ALIGN = 0.012  # of the page width: lines starting this close share an edge
RULE = 0.4  # of the strip's height: a column inked over this much is a ruled line
MIN_STRIP = 0.03  # of the page width: a narrower margin holds no numbers
GAP = 0.006  # of the page width, left out between the strip and the text column
INK = 128  # grey levels at or under this are ink
MIN_BAND = 3  # rows: a shorter band of ink is a speck
TALL = 1.5  # pitches: no printed line is this tall ...
JUNK = 50.0  # ... unless it reads with at least this confidence

_LETTERS = re.compile(r"[^\W\d_]{3}")
_LEADING = re.compile(r"^\s*[\dIl|]{1,3}[.:]?\s+(?=\S)")  # "12 ", "I2 ": margin digits read into the line
_DIGITS = re.compile(r"^[\dIl|.:\s]{1,5}$")


def _text_edge(lines: Sequence[OcrLine], width: int) -> int | None:
    """Where the text column starts: the leftmost x at which EDGE_SHARE of the lines start."""
    starts = sorted(
        line.box[0] for line in lines if _LETTERS.search(line.text) and not _LEADING.match(line.text)
    )
    if len(starts) < MIN_NUMBERS // 2:
        return None
    need = max(3, EDGE_SHARE * len(starts))
    for i, x in enumerate(starts):
        if sum(1 for y in starts[i:] if y - x <= ALIGN * width) >= need:
            return x
    return None


def _unruled(strip: Image.Image) -> Image.Image:
    """The strip in 8-bit grey with its vertical rules whited out."""
    grey = np.array(strip.convert("L") if strip.mode != "L" else strip)
    rules = (grey <= INK).sum(axis=0) > RULE * grey.shape[0]
    if not rules.any():
        return Image.fromarray(grey)
    grey[:, rules | np.roll(rules, 1) | np.roll(rules, -1)] = 255  # and the rule's soft edges
    return Image.fromarray(grey)


def _bands(strip: Image.Image) -> int:
    """How many separate bands of rows hold ink (at least MIN_BAND rows each)."""
    ink = (np.asarray(strip) <= INK).sum(axis=1) >= 2
    edges = np.flatnonzero(np.diff(np.concatenate(([0], ink.astype(np.int8), [0]))))
    starts, ends = edges[0::2], edges[1::2]
    return int(np.sum(ends - starts >= MIN_BAND))


def _digits(strip: Image.Image, languages: str, dpi: int | None, deadline: float) -> list[tuple[int, float]]:
    """The numbers 1-MAX_NUMBER tesseract reads in the strip, with their box centre's y, top down."""
    strip = strip.copy()
    strip.format = "PPM"
    config = "--psm 6 -c tessedit_char_whitelist=0123456789" + (f" --dpi {dpi}" if dpi else "")
    tsv = run_tesseract("tsv", strip, languages.split("+")[0], config, deadline)
    found = [
        (int(text), (box[1] + box[3]) / 2)
        for text, _, box in tsv_words(tsv)
        if text.isdigit() and len(text) <= 2 and 1 <= int(text) <= MAX_NUMBER
    ]
    return sorted(found, key=lambda d: d[1])


def _cleaned(strip: Image.Image) -> Image.Image:
    """The strip without grain: a 3x3 median, then black and white at Otsu's threshold."""
    smooth = np.asarray(strip.filter(ImageFilter.MedianFilter(3)))
    return Image.fromarray(np.where(smooth <= otsu(smooth), 0, 255).astype(np.uint8))


def _pitch(digits: list[tuple[int, float]]) -> float | None:
    """The median distance between numbered rows, from neighbours whose numbers rise by 1-3."""
    steps = [
        (y1 - y0) / (n1 - n0)
        for (n0, y0), (n1, y1) in zip(digits, digits[1:], strict=False)
        if 1 <= n1 - n0 <= 3
    ]
    return statistics.median(steps) if len(steps) >= MIN_NUMBERS // 2 else None


def _chain(digits: list[tuple[int, float]], pitch: float) -> list[tuple[int, float]]:
    """The longest chain of numbers rising down the page in step with their rows."""
    best = [1] * len(digits)
    back = [-1] * len(digits)
    for i, (n, y) in enumerate(digits):
        for j in range(i):
            m, z = digits[j]
            if (
                1 <= n - m <= MAX_STEP
                and abs((y - z) / pitch - (n - m)) <= PITCH_SLACK
                and best[j] + 1 > best[i]
            ):
                best[i], back[i] = best[j] + 1, j
    if not digits:
        return []
    i = max(range(len(digits)), key=lambda k: best[k])
    out = []
    while i >= 0:
        out.append(digits[i])
        i = back[i]
    return out[::-1]


def _trusted(chain: list[tuple[int, float]], pitch: float, lines: Sequence[OcrLine]) -> bool:
    """Whether the chain is a transcript's margin (module docstring, step 4)."""
    if len(chain) < MIN_NUMBERS or chain[0][0] > FIRST_MAX:
        return False
    if len(chain) < MIN_FILL * (chain[-1][0] - chain[0][0] + 1):
        return False
    height = statistics.median(line.box[3] - line.box[1] for line in lines)
    return height <= pitch <= MAX_PITCH * height


def _number(box: Box, chain: list[tuple[int, float]], pitch: float, last: int) -> int | None:
    """The printed number of the row a line's box centre lies on, or None."""
    centre = (box[1] + box[3]) / 2
    n, y = min(chain, key=lambda d: abs(d[1] - centre))
    steps = (centre - y) / pitch
    number = n + round(steps)
    if abs(steps - round(steps)) > MATCH_SLACK or not 1 <= number <= last:
        return None
    return number


def read_line_numbers(
    image: Image.Image, lines: Sequence[OcrLine], languages: str, dpi: int | None, deadline: float
) -> LineNumbers | None:
    """Each line's printed margin number (module docstring), or None when the page has no
    trusted margin. `image`: the straightened image OCR ran on; `lines`: what OCR read on it."""
    started = time.perf_counter()
    width, height = image.size
    edge = _text_edge(lines, width)
    if edge is None or edge - GAP * width < MIN_STRIP * width:
        return None
    right = round(edge - GAP * width)
    strip = _unruled(image.crop((0, 0, right, height)))
    if _bands(strip) < MIN_NUMBERS:
        return None
    best: tuple[list[tuple[int, float]], float] | None = None
    for variant in (strip, None):
        digits = _digits(variant if variant is not None else _cleaned(strip), languages, dpi, deadline)
        pitch = _pitch(digits)
        chain = _chain(digits, pitch) if pitch else []
        if pitch and _trusted(chain, pitch, lines) and (best is None or len(chain) > len(best[0])):
            best = chain, pitch
        log.debug("margin digits %s: %d in a chain", [n for n, _ in digits], len(chain))
        if len(chain) < MIN_NUMBERS // 2 or (
            best is not None and best[0][0][0] == 1 and len(best[0]) == best[0][-1][0]
        ):
            break  # no column of numbers at all, or none lost: nothing to clean
    if best is None:
        return None
    chain, pitch = best
    last = chain[-1][0]
    last = max(last, min(LINES, last + MAX_STEP))
    dropped = tuple(
        (line.box[2] <= right + GAP * width and bool(_DIGITS.match(line.text)))
        or (line.box[3] - line.box[1] > TALL * pitch and line.confidence < JUNK)
        for line in lines
    )
    numbers = tuple(
        None if inside else _number(line.box, chain, pitch, last)
        for line, inside in zip(lines, dropped, strict=True)
    )
    seconds = round(time.perf_counter() - started, 3)
    log.debug(
        "margin: %d of %d numbers in a chain, pitch %.1f px, %.2f s", len(chain), len(digits), pitch, seconds
    )
    return LineNumbers(numbers, dropped, edge, round(pitch, 2), seconds)


def numbered_paragraphs(page: OcrPage) -> tuple[OcrParagraph, ...]:
    """The page's lines as a native transcript page has them (module docstring): paragraphs as
    tesseract made them, where the top-to-bottom order keeps them together."""
    margin = page.margin
    if margin is None:
        return page.paragraphs
    rows: dict[object, list[tuple[int, OcrLine]]] = {}  # one printed line (or one unnumbered line)
    k = 0
    for p, paragraph in enumerate(page.paragraphs):
        for line in paragraph.lines:
            number, inside = margin.numbers[k], margin.dropped[k]
            k += 1
            if inside:
                continue
            text = _LEADING.sub("", line.text) if line.box[0] < margin.edge - margin.pitch / 4 else line.text
            if text:
                key: object = number if number is not None else ("line", k)
                rows.setdefault(key, []).append((p, OcrLine(text, line.confidence, line.box)))
    out: list[tuple[float, int, OcrLine]] = []
    for key, pieces in rows.items():
        pieces.sort(key=lambda piece: piece[1].box[0])
        boxes = [line.box for _, line in pieces]
        box = (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )
        text = " ".join(line.text for _, line in pieces)
        if isinstance(key, int):
            text = f"{key} {text}"
        confidence = round(sum(line.confidence for _, line in pieces) / len(pieces), 2)
        out.append(((box[1] + box[3]) / 2, pieces[0][0], OcrLine(text, confidence, box)))
    out.sort(key=lambda row: (row[0], row[2].box[0]))
    paragraphs: list[list[OcrLine]] = []
    previous = -1
    for _, p, line in out:
        if p != previous or not paragraphs:
            paragraphs.append([])
        paragraphs[-1].append(line)
        previous = p
    return tuple(OcrParagraph(tuple(lines)) for lines in paragraphs)
