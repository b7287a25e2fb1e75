"""The dispatch table: every file type has one parser, all with one signature, and `parse_file`
hands each its options (password, page progress)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from casetrack.domain import FileType
from casetrack.errors import UnsupportedFileError
from casetrack.parse import parse_file
from casetrack.parse.formats import PARSERS
from casetrack.parse.options import ParseOptions
from tests.conftest import DATA, require

LOCKED = DATA / "pdf_robustness/pdfplumber_tests/pdfs/password-example.pdf"  # password "test", 4 pages


def test_every_file_type_has_a_parser_taking_the_path_and_the_options() -> None:
    assert set(PARSERS) == set(FileType)
    for parser in PARSERS.values():
        assert list(inspect.signature(parser).parameters) == ["path", "options"]


def test_parse_file_hands_the_password_and_the_page_progress_to_the_parser() -> None:
    calls: list[tuple[int, int]] = []
    doc = parse_file(
        require(LOCKED), password="test", on_page=lambda done, total: calls.append((done, total))
    )
    assert doc.page_count == 4 and calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    heard: list[int] = []
    options = ParseOptions(password="test", on_page=lambda done, total: heard.append(done))
    assert parse_file(LOCKED, options=options).page_count == 4 and heard == [1, 2, 3, 4]


def test_options_compare_without_their_progress_callback() -> None:
    assert ParseOptions(on_page=lambda done, total: None) == ParseOptions()


def test_a_mailbox_is_refused_with_the_command_that_ingests_its_messages(tmp_path: Path) -> None:
    box = tmp_path / "box.mbox"
    box.write_bytes(b"From a@b.com Mon Mar  4 10:15:00 2024\nFrom: a@b.com\nSubject: x\n\nbody\n")
    with pytest.raises(UnsupportedFileError) as err:
        parse_file(box)
    assert err.value.message == "box.mbox is a mailbox holding many e-mails, not one document."
    assert (
        err.value.hint
        == f'Ingest it with `casetrack ingest --case CASE "{box}"`: each message becomes a document.'
    )
