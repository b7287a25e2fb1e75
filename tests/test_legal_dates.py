"""legal/dates.py: the one date grammar (EN and PT forms, month precision, what is no date) and the
relative expressions with their resolution."""

from __future__ import annotations

from datetime import date

import pytest

from casetrack.legal.dates import find_dates, find_relative, resolve


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("signed on March 5, 2021, by", "en", [("March 5, 2021", "2021-03-05", "day")]),
        ("Mar. 5th, 2021", "en", [("Mar. 5th, 2021", "2021-03-05", "day")]),
        ("on 5 March 2021", "en", [("5 March 2021", "2021-03-05", "day")]),
        ("this 11th day of August, 1997", "en", [("11th day of August, 1997", "1997-08-11", "day")]),
        ("the 5th of March 2021", "en", [("5th of March 2021", "2021-03-05", "day")]),
        ("COMMENCEMENT DATE: MARCH 1, 2001", "en", [("MARCH 1, 2001", "2001-03-01", "day")]),
        ("filed 03/05/2021", "en", [("03/05/2021", "2021-03-05", "day")]),  # month first in English
        ("protocolado em 03/05/2021", "pt", [("03/05/2021", "2021-05-03", "day")]),  # day first in Portuguese
        ("on 13/05/2021", "en", [("13/05/2021", "2021-05-13", "day")]),  # 13 is no month
        ("2021-03-05", "en", [("2021-03-05", "2021-03-05", "day")]),
        ("em 05.03.2021", "en", [("05.03.2021", "2021-03-05", "day")]),  # dots: day first
        ("em 5/3/21 e", "pt", [("5/3/21", "2021-03-05", "day")]),
        ("Signed 9/9/97", "en", [("9/9/97", "1997-09-09", "day")]),
        ("Brasília, 18 de Maio de 2016.", "pt", [("18 de Maio de 2016", "2016-05-18", "day")]),
        ("1º de março de 2021", "pt", [("1º de março de 2021", "2021-03-01", "day")]),
        ("transferred in August 2015 when", "en", [("August 2015", "2015-08-01", "month")]),
        ("em março de 2021", "pt", [("março de 2021", "2021-03-01", "month")]),
        (
            "de dezembro/2016 a abril/2017",
            "pt",
            [("dezembro/2016", "2016-12-01", "month"), ("abril/2017", "2017-04-01", "month")],
        ),
        ("effective as of, August __, 2019 (the", "en", [("August __, 2019", "2019-08-01", "month")]),
    ],
)
def test_dates_in_every_usual_form(text: str, language: str, expected: list[tuple[str, str, str]]) -> None:
    found = [(m.text, m.value.isoformat(), m.precision) for m in find_dates(text, language)]
    assert found == expected
    assert all(text[m.start : m.end] == m.text for m in find_dates(text, language))


@pytest.mark.parametrize(
    "text",
    [
        "In 2019 the company grew; see 24 F.2d 268 (1928).",  # bare years
        "Lei 8.078/1990 and Lei nº 13.015/2014",  # statute numbers
        "Section 1.5.12 and version 10-11-12",  # numbers with dots or dashes and a short year
        "the Company may 2021 nothing",  # an English month-year needs its capital
        "Dated: ____________",  # a blank field
        "fls. 04/10 and 2:15-cv-01739",  # page ranges and case numbers
        "February 30, 2021",  # no such day
    ],
)
def test_what_is_no_date(text: str) -> None:
    assert find_dates(text, "en") == []


@pytest.mark.parametrize(
    ("text", "kind", "anchor", "expected"),
    [
        (
            "executed as of the date first above written.",
            "document",
            date(2009, 3, 30),
            ("2009-03-30", "day"),
        ),
        (
            "Accepted and agreed to as of the date hereof:",
            "document",
            date(1997, 4, 25),
            ("1997-04-25", "day"),
        ),
        ("was docketed today as 17-3510", "document", date(2017, 10, 31), ("2017-10-31", "day")),
        ("The defendant answered the next day.", "next_day", date(2021, 3, 5), ("2021-03-06", "day")),
        ("No dia seguinte, o réu foi citado.", "next_day", date(2021, 3, 31), ("2021-04-01", "day")),
        ("Thirty days later, the court ruled.", "later", date(2021, 3, 5), ("2021-04-04", "day")),
        ("Dez dias depois, houve audiência.", "later", date(2021, 3, 5), ("2021-03-15", "day")),
        ("Two months later, it settled.", "later", date(2021, 1, 31), ("2021-03-31", "day")),
        ("on the 5th of that month, he paid", "day_of_month", date(2021, 3, 20), ("2021-03-05", "day")),
        ("no dia 5 do mesmo mês, pagou", "day_of_month", date(2021, 3, 20), ("2021-03-05", "day")),
        ("on that same day, the bank", "same_day", date(2021, 3, 20), ("2021-03-20", "day")),
    ],
)
def test_relative_dates_resolve_against_their_anchor(
    text: str, kind: str, anchor: date, expected: tuple[str, str]
) -> None:
    [mention] = find_relative(text)
    assert mention.kind == kind and text[mention.start : mention.end] == mention.text
    resolved = resolve(mention, anchor, "day")
    assert resolved is not None and (resolved[0].isoformat(), resolved[1]) == expected


@pytest.mark.parametrize(
    "text",
    [
        "within 14 days of the date of this notice",
        "For a period of two years following the date hereof",
        "shares outstanding as of the date hereof",  # a representation, not an event
        "This Agreement shall expire five years after the date hereof.",
        "a contar do dia seguinte à data de emissão",
        "no prazo de dez dias depois da citação",
    ],
)
def test_periods_and_deadlines_are_no_relative_date(text: str) -> None:
    assert find_relative(text) == []


def test_a_day_cannot_be_counted_from_a_month() -> None:
    [mention] = find_relative("the next day")
    assert resolve(mention, date(2019, 8, 1), "month") is None
    [doc] = find_relative("effective as of the date first written above")
    assert resolve(doc, date(2019, 8, 1), "month") == (date(2019, 8, 1), "month")
