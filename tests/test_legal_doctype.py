"""Document type and date on real documents of each kind."""

from __future__ import annotations

import pytest

from casetrack.legal.docdate import find_doc_date
from casetrack.legal.doctype import classify
from tests.conftest import DATA, require

CUAD = DATA / "legal_span_bench" / "corpus" / "cuad"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("lener_br/raw_text/AgRgSTJ1.txt", "acordao"),
        ("lener_br/raw_text/ACORDAOTCU11602016.txt", "acordao"),
        ("lener_br/raw_text/lei11340.txt", "statute"),
        ("lener_br/raw_text/HC418951PR.txt", "order"),
        (
            "legal_span_bench/corpus/cuad/FEDERATEDGOVERNMENTINCOMESECURITIESINC_04_28_2020-EX-99.SERV AGREE-SERVICES AGREEMENT_POWEROF.txt",
            "power_of_attorney",
        ),
        (
            "legal_span_bench/corpus/cuad/ADMA BioManufacturing, LLC -  Amendment #3 to Manufacturing Agreement .txt",
            "amendment",
        ),
        ("legal_span_bench/corpus/contractnli/1062478_0001193125-14-442753_d838170dex3.htm.txt", "nda"),
        (
            "legal_span_bench/corpus/cuad/CCAINDUSTRIESINC_04_14_2014-EX-10.1-OUTSOURCING AGREEMENT.txt",
            "contract",
        ),
        ("legal_docs_us_courts/extra_from_history/opinion_text.txt", "opinion"),
    ],
)
def test_types(path: str, expected: str) -> None:
    text = require(DATA / path).read_text(encoding="utf-8", errors="replace")
    got = classify([text], path)
    assert got.type == expected, got
    assert got.evidence and 0 < got.confidence <= 1


def test_other_when_nothing_fires() -> None:
    assert classify(["Lorem ipsum dolor sit amet."], "notes.txt").type == "other"


@pytest.mark.parametrize(
    ("path", "lang", "iso", "rule"),
    [
        ("lener_br/raw_text/lei11340.txt", "pt", "2006-08-07", "city_date"),
        ("lener_br/raw_text/ACORDAOTCU11602016.txt", "pt", "2016-05-11", "decision"),
        ("legal_docs_us_courts/extra_from_history/opinion_text.txt", "en", "1997-11-07", "decision"),
        (
            "legal_span_bench/corpus/cuad/CCAINDUSTRIESINC_04_14_2014-EX-10.1-OUTSOURCING AGREEMENT.txt",
            "en",
            "2014-01-20",
            "dated",
        ),
    ],
)
def test_dates(path: str, lang: str, iso: str, rule: str) -> None:
    found = find_doc_date([require(DATA / path).read_text(encoding="utf-8")], lang)
    assert found is not None and (found.date, found.rule) == (iso, rule)


def test_date_forms() -> None:
    assert find_doc_date(["IN WITNESS WHEREOF, signed this 3rd day of March, 2021."]).date == "2021-03-03"  # type: ignore[union-attr]
    assert find_doc_date(["Brasília (DF), 5 de maio de 2020."], "pt").date == "2020-05-05"  # type: ignore[union-attr]
    assert find_doc_date(["REsp 1/SP, julgado em 12/03/2023, DJe 15/03/2023"], "pt").date == "2023-03-12"  # type: ignore[union-attr]
