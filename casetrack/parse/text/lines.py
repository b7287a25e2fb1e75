"""A text's lines as an editor numbers them, and its runs of non-blank lines.

A lawyer who reads "ll. 3-5" opens the .txt in any editor and finds those lines, so blank
lines still count even though they do not appear in `Page.text` (TXT, MD and e-mail bodies).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


def is_blank(line: str) -> bool:
    """The same whitespace definition PageBuilder uses when it drops blank lines."""
    return not line.split()


def split_lines(text: str) -> list[str]:
    r"""The text's lines as an editor numbers them: only \r\n, \r and \n end a line.

    str.splitlines() would also break at form feeds, \x1c-\x1e, U+0085 and U+2028, which
    would shift every later line number away from what the user's editor shows.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a trailing newline ends the last line; it does not start a new one
    return lines


def blank_line_blocks(lines: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """(index of first line, lines) of each run of non-blank lines."""
    start = -1
    for i, line in enumerate(lines):
        if is_blank(line):
            if start >= 0:
                yield start, list(lines[start:i])
                start = -1
        elif start < 0:
            start = i
    if start >= 0:
        yield start, list(lines[start:])
