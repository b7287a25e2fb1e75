"""Mailbox files (.mbox: Thunderbird, Apple Mail, Gmail's Takeout, mutt): the messages one by one.

A message starts at a "From " line (the envelope line: "From sender Mon Mar  4 10:15:00 2024")
at the start of the file or after a blank line, and ends before the next one. The envelope line
is not part of the message; ">From " lines are unescaped (mboxrd). The file is read as a stream,
never opened for writing (the stdlib's `mailbox` opens it read-write), and only one message is
held in memory at a time. Given to `parse_file`, a mailbox is refused with the command that
ingests its messages (ingest/attachments.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from casetrack.errors import ParseError, UnsupportedFileError
from casetrack.parse.options import ParseOptions

_ENVELOPE = re.compile(rb"^From \S+ +\S")
_ESCAPED = re.compile(rb"^>(>*From )")


def is_envelope(line: bytes) -> bool:
    return _ENVELOPE.match(line) is not None


def refuse_mailbox(path: Path, options: ParseOptions) -> NoReturn:
    """A mailbox is never one document: the parser of `FileType.MBOX` says how to ingest it."""
    raise UnsupportedFileError(
        f"{path.name} is a mailbox holding many e-mails, not one document.",
        hint=f'Ingest it with `casetrack ingest --case CASE "{path}"`: each message becomes a document.',
    )


def mbox_messages(path: Path) -> Iterator[bytes]:
    """Each message's bytes (headers and body, without its envelope line), in file order."""
    try:
        f = path.open("rb")
    except OSError as e:
        raise ParseError(
            f"{path.name} cannot be read: {e.strerror or e}.", hint="Check the file's permissions."
        ) from e
    with f:
        current: list[bytes] | None = None
        blank_before = True
        for line in f:
            if blank_before and is_envelope(line):
                if current:
                    yield _message(current)
                current = []
            elif current is not None:
                current.append(_ESCAPED.sub(rb"\1", line))
            blank_before = not line.strip()
        if current:
            yield _message(current)


def _message(lines: list[bytes]) -> bytes:
    data = b"".join(lines)
    # The blank line before the next envelope belongs to the mailbox, not to the message.
    if data.endswith(b"\r\n\r\n"):
        return data[:-2]
    return data[:-1] if data.endswith(b"\n\n") else data
