"""CNJ process numbers: check digits, decoding, the shapes they are written in, real LeNER-Br texts."""

from __future__ import annotations

import pytest

from casetrack.legal.cnj import check_digits, find_cnj, find_old_process_numbers, parse_cnj
from casetrack.legal.tribunals import tribunal_of_segment
from tests.conftest import DATA, require

LENER = DATA / "lener_br" / "raw_text"


def test_check_digits_of_a_known_number() -> None:
    # TST's "E-ED-RR - 795910-22.2001.5.02.5555" (LeNER-Br) has valid check digits.
    assert check_digits("0795910", "2001", "5", "02", "5555") == "22"
    assert parse_cnj("0795910-22.2001.5.02.5555").valid  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("segment", "tr", "acronym"),
    [
        (8, 26, "TJSP"),
        (8, 7, "TJDFT"),
        (8, 19, "TJRJ"),
        (4, 3, "TRF3"),
        (4, 6, "TRF6"),
        (5, 2, "TRT2"),
        (5, 24, "TRT24"),
        (5, 0, "TST"),
        (6, 26, "TRE-SP"),
        (6, 0, "TSE"),
        (3, 0, "STJ"),
        (1, 0, "STF"),
        (9, 13, "TJMMG"),
        (7, 0, "STM"),
        (8, 28, None),
        (4, 7, None),
    ],
)
def test_segment_and_tribunal_decoding(segment: int, tr: int, acronym: str | None) -> None:
    assert tribunal_of_segment(segment, tr) == acronym


def test_shapes_punctuated_bare_spaced_and_short_sequence() -> None:
    dd = check_digits("0001234", "2019", "8", "26", "0100")
    text = (
        f"a) 0001234-{dd}.2019.8.26.0100; b) 0001234{dd}20198260100; c) 0001234 {dd} 2019 8 26 0100; "
        "d) RR-385-55.2010.5.15.0033"
    )
    found = list(find_cnj(text))
    assert [c.key for c in found] == [f"0001234-{dd}.2019.8.26.0100"] * 3 + ["0000385-55.2010.5.15.0033"]
    assert found[0].tribunal == "TJSP" and found[0].origin == "0100" and found[-1].tribunal == "TRT15"


def test_invalid_check_digits() -> None:
    bad = "0001234-00.2019.8.26.0100"
    assert [c.valid for c in find_cnj(bad)] == [False]  # punctuated: kept, flagged
    assert list(find_cnj(bad, invalid=False)) == []
    assert list(find_cnj("00012340020198260100")) == []  # bare digits: the check digits decide


def test_old_formats() -> None:
    keys = [
        o.key
        for o in find_old_process_numbers(
            "Ação no processo 2003.34.00.044227-3, TC 003.783/04-8 e HC 1.0000.13.085773-3/000"
        )
    ]
    assert keys == ["trf 2003.34.00.044227-3", "tcu 003.783/04-8", "tjmg 1.0000.13.085773-3/000"]


def test_real_decision_numbers() -> None:
    text = require(LENER / "AP00000794920137060006.txt").read_text(encoding="utf-8")
    found = {c.key: c for c in find_cnj(text)}
    num = found["0000079-49.2013.7.06.0006"]
    assert num.valid and num.segment_name == "Justiça Militar da União" and num.tribunal == "CJM6"
