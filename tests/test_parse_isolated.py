"""Parsing in a child process gives the same documents and errors as in-process parsing, and a
slow or dying parser costs one per-file error while the next file parses normally."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from casetrack.errors import CorruptFileError, EncryptedFileError
from casetrack.parse import parse_file
from casetrack.parse.isolated import IsolatedParser, parse_timeout
from casetrack.parse.options import ParseOptions
from tests.conftest import DATA, require

PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
LOCKED = DATA / "pdf_robustness/pdfplumber_tests/pdfs/password-example.pdf"
DOCX = DATA / "docx/python-docx_tests/blk-paras-and-tables.docx"


@pytest.fixture(scope="module")
def parser() -> Iterator[IsolatedParser]:
    isolated = IsolatedParser()
    yield isolated
    isolated.close()


def test_same_document_as_in_process(parser: IsolatedParser) -> None:
    for path in (require(PDF), require(DOCX)):
        here, there = parse_file(path), parser.parse(path)
        assert [p.text for p in there.pages] == [p.text for p in here.pages]
        assert there.file_type == here.file_type and there.page_count == here.page_count


def test_errors_keep_their_type_message_and_hint(parser: IsolatedParser) -> None:
    with pytest.raises(EncryptedFileError) as err:
        parser.parse(require(LOCKED))
    assert err.value.message == "password-example.pdf is password-protected."
    assert err.value.hint and "--password" in err.value.hint
    assert parser.parse(LOCKED, password="test").page_count >= 1


def test_a_parse_that_takes_too_long_is_stopped_and_the_next_one_works(parser: IsolatedParser) -> None:
    before = parser.restarts
    with pytest.raises(CorruptFileError, match="took longer than"):
        parser.parse(require(PDF), timeout=0.001)
    assert parser.restarts == before + 1
    assert parser.parse(PDF).page_count == 2


def test_a_parser_that_dies_is_one_error(parser: IsolatedParser) -> None:
    parser.parse(require(DOCX))  # the child is running

    def kill_child(done: int, total: int) -> None:  # at the first page the child reports: mid-parse
        if done == 1:
            assert parser._proc is not None and parser._proc.pid is not None
            os.kill(parser._proc.pid, signal.SIGKILL)

    big = max(require(DATA / "legal_span_bench/cuad_pdf").rglob("*.PDF"), key=lambda p: p.stat().st_size)
    with pytest.raises(CorruptFileError, match="parser stopped"):
        parser.parse(big, on_page=kill_child)
    assert parser.parse(PDF).page_count == 2


def test_the_progress_callback_in_the_options_stays_here_and_hears_each_page(parser: IsolatedParser) -> None:
    heard: list[tuple[int, int]] = []
    options = ParseOptions(
        on_page=lambda done, total: heard.append((done, total))
    )  # a closure: not picklable
    assert parser.parse(require(PDF), options=options).page_count == 2
    assert heard == [(1, 2), (2, 2)]


def test_timeouts_scale_with_size(tmp_path: Path) -> None:
    small = tmp_path / "a.txt"
    small.write_text("x")
    assert parse_timeout(small) == pytest.approx(120, abs=1)
    assert parse_timeout(tmp_path / "missing") == 120
