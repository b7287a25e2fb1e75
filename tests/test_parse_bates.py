"""Bates stamps: read from the page's first and last lines, kept when the document agrees on the
prefix, never taken from citations or table numbers; ranges as a person types them."""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.parse import parse_file
from casetrack.parse.bates import in_range, parse_bates, parse_bates_range, with_bates
from casetrack.parse.pagebuilder import PageBuilder
from tests.pdf_maker import text_pdf


def _page(number: int, *lines: str):  # type: ignore[no-untyped-def]
    builder = PageBuilder(number)
    for line in lines:
        builder.add_paragraph([line])
    return builder.build()


def test_a_stamped_production_reads_every_pages_stamp(tmp_path: Path) -> None:
    pages = [
        ["Letter to counsel", "We enclose the documents requested."],
        ["The second page of the letter."],
        ["Exhibit list", "1. Supply agreement"],
    ]
    pdf = text_pdf(tmp_path / "production.pdf", pages, stamps=["ACME0001200", "ACME0001201", "ACME0001202"])
    parsed = parse_file(pdf)
    assert [p.bates for p in parsed.pages] == ["ACME0001200", "ACME0001201", "ACME0001202"]


@pytest.mark.parametrize("stamp", ["SMITH-000123", "DEF_00012345", "ABC 0001234", "CONF ABC-0004567"])
def test_stamp_shapes(stamp: str) -> None:
    pages = with_bates([_page(1, "Body text of the page.", stamp)])
    assert pages[0].bates == stamp


@pytest.mark.parametrize(
    "line",
    [
        "See Smith v. Jones, 2020 WL 1924409",  # a Westlaw cite
        "AU AU 2015329723",  # a patent number in a table
        "ABA 026009593",  # a routing number
        "Page 0000012",
        "The parties agree that the purchase price shall be paid under invoice ABC0001234",  # a sentence
    ],
)
def test_things_shaped_like_stamps_are_not_stamps(line: str) -> None:
    assert with_bates([_page(1, "Body.", line)])[0].bates is None


def test_an_unpadded_number_counts_only_as_a_rising_run() -> None:
    run = with_bates([_page(n, "Text.", f"XYZ {1000 + n}00") for n in range(1, 4)])
    assert [p.bates for p in run] == ["XYZ 100100", "XYZ 100200", "XYZ 100300"]
    alone = with_bates([_page(1, "Text.", "XYZ 100100")])
    assert alone[0].bates is None


def test_the_documents_prefix_wins_over_a_stray_one() -> None:
    pages = with_bates(
        [
            _page(1, "Text.", "ACME0000001"),
            _page(2, "Text.", "ACME0000002"),
            _page(3, "Text.", "OTHER0009999"),
        ]
    )
    assert [p.bates for p in pages] == ["ACME0000001", "ACME0000002", None]


def test_stamps_survive_only_in_margins() -> None:
    lines = [
        "Line one.",
        "Line two.",
        "ACME0000005",
        "Line four.",
        "Line five.",
        "Line six.",
        "Line seven.",
        "Line eight.",
        "Line nine.",
    ]
    assert with_bates([_page(1, *lines)])[0].bates is None  # third line of nine: body, not a margin


def test_ranges_as_typed() -> None:
    assert parse_bates_range("ABC0001200-ABC0001300") == ("ABC", 1200, 1300)
    assert parse_bates_range("abc-0001300 to abc-0001200") == ("ABC", 1200, 1300)
    assert parse_bates_range("ABC0001250") == ("ABC", 1250, 1250)
    with pytest.raises(ValueError, match="ABC0001200-ABC0001300"):
        parse_bates_range("pages 3 to 5")
    with pytest.raises(ValueError, match="different prefixes"):
        parse_bates_range("ABC0001200-XYZ0001300")
    wanted = parse_bates_range("ABC0001200-ABC0001300")
    assert (
        in_range("ABC-0001250", wanted) and not in_range("ABC0001301", wanted) and not in_range(None, wanted)
    )
    assert parse_bates("ABC_0001234") is not None and parse_bates("hello") is None
