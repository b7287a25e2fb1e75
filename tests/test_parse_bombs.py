"""Decompression bombs refused before they cost memory (issue 30): zip packages (DOCX, and the
XLSX and ODT detection opens to name), XML entities, images. The bombs are made here, small on
disk (bench/bombs.py); what each one costs is measured by bench/bombs.py (bench/RESULTS.md)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.bombs import (
    BOMBS,
    Member,
    docx_content_types,
    docx_document,
    docx_image,
    docx_lying_size,
    docx_many_members,
    measure,
    odt_mimetype,
    pdf_stream,
    png_pixels,
    write_zip,
    xlsx_workbook,
    xml_entities,
    xml_quadratic,
)
from casetrack.errors import CorruptFileError, ImageTooLargeError, PackageTooLargeError, ParseError
from casetrack.parse import parse_file
from tests.conftest import DATA, require

GIB = 1 << 30


def _parse_peak(path: Path) -> tuple[ParseError, int]:
    """The error parsing `path` raises, and the most memory Python allocated meanwhile (bytes)."""
    tracemalloc.start()
    try:
        with pytest.raises(ParseError) as refused:
            parse_file(path)
        return refused.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (docx_content_types, "its part [Content_Types].xml would inflate to 300 MB, over the 256 MB limit"),
        (docx_document, "its part word/document.xml would inflate to 300 MB"),
        (docx_image, "its part word/media/image1.png would inflate to 300 MB"),
        (docx_many_members, "its parts would inflate to more than 1.0 GB in all"),  # 129 x 8 MB
        (xlsx_workbook, "its part [Content_Types].xml would inflate"),
        (odt_mimetype, "its part mimetype would inflate"),
    ],
)
def test_a_zip_bomb_is_refused_before_it_is_inflated(
    tmp_path: Path, make: Callable[[Path, int], Path], says: str
) -> None:
    # Issue 30: a DOCX bomb allocated ~3.3 GB ([Content_Types].xml read whole) before it was refused.
    bomb = make(tmp_path, GIB if make is docx_many_members else 300 * 2**20)
    assert bomb.stat().st_size < 2 * 2**20  # small on disk
    error, peak = _parse_peak(bomb)
    assert isinstance(error, PackageTooLargeError) and error.code == "too_large"
    assert says in error.message and "decompression bomb" in error.message and error.hint
    assert peak < 20 * 2**20, f"{peak / 2**20:.0f} MB allocated before the refusal"


def test_a_member_inflating_far_past_its_ratio_is_refused(tmp_path: Path) -> None:
    # 200 MB of spaces in ~200 KB: under the size limits, over the ratio.
    bomb = write_zip(
        tmp_path / "ratio.docx", [Member("word/document.xml", size=200 * 2**20, head=b"<w:document>")]
    )
    error, peak = _parse_peak(bomb)
    assert isinstance(error, PackageTooLargeError) and "would inflate 1,0" in error.message
    assert "over the limit of 200 times" in error.message and peak < 20 * 2**20


def test_a_member_lying_about_its_size_stops_at_the_size_it_declares(tmp_path: Path) -> None:
    bomb = docx_lying_size(tmp_path, 300 * 2**20)  # declares 1 MiB, inflates to 300 MiB
    error, peak = _parse_peak(bomb)
    assert isinstance(error, CorruptFileError) and peak < 50 * 2**20


@pytest.mark.parametrize("make", [xml_entities, xml_quadratic])
def test_xml_entities_are_refused_before_the_parser_expands_them(
    tmp_path: Path, make: Callable[[Path, int], Path]
) -> None:
    bomb = make(tmp_path, 0)
    assert bomb.stat().st_size < 4096
    error, _ = _parse_peak(bomb)
    assert isinstance(error, PackageTooLargeError)
    assert "its part word/document.xml declares XML entities, which Word never writes" in error.message


def test_a_pdf_stream_inflating_past_the_limit_is_refused_before_pdfminer_reads_it(tmp_path: Path) -> None:
    # 6.2 GB and five minutes for a 3 GB content stream before (bench/bombs.py).
    bomb = pdf_stream(tmp_path, 300 * 2**20)
    error, peak = _parse_peak(bomb)
    assert isinstance(error, PackageTooLargeError) and "a stream in it inflates past 128 MB" in error.message
    assert peak < 20 * 2**20


def test_a_real_pdf_with_compressed_streams_still_opens() -> None:
    parsed = parse_file(require(DATA / "legal_docs_us_courts/recap_documents/ca2_1-1.pdf"))
    assert len(parsed.pages) == 2 and parsed.pages[0].text.strip()


def test_an_image_declaring_too_many_pixels_is_not_decoded(tmp_path: Path) -> None:
    bomb = png_pixels(tmp_path, 13_000 * 13_000)  # 169 megapixels in ~170 KB
    error, peak = _parse_peak(bomb)
    assert isinstance(error, ImageTooLargeError) and "169 megapixels" in error.message
    assert peak < 20 * 2**20


@pytest.mark.slow  # ~40 s: every bomb of bench/bombs.py inflating to 1 GiB, each parsed in a fresh process
def test_every_bomb_peaks_under_500_mb(tmp_path: Path) -> None:
    for name, make in BOMBS.items():
        result = measure(make(tmp_path, GIB))
        assert result["peak_mb"] is not None and int(str(result["peak_mb"])) < 500, (name, result)
