"""Legislation and case-law references with canonical keys, on LeNER-Br gold spans."""

from __future__ import annotations

import pytest

from casetrack.legal.jurisprudence import find_jurisprudence
from casetrack.legal.legislation import find_legislation
from tests.conftest import DATA, require


def keys(text: str) -> list[tuple[str, ...]]:
    return [r.keys for r in find_legislation(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("art. 300, § 1º, inciso II, do CPC", ("cpc art. 300 § 1 inc. II", "cpc", "lei 13105/2015")),
        ("arts. 186 e 927 do Código Civil", ("cc art. 186", "cc art. 927", "cc", "lei 10406/2002")),
        ("art. 173, § 1º, II, CF/88", ("cf art. 173 § 1 inc. II", "cf")),
        ("art. 312, p.u do CPP", ("cpp art. 312 § único", "cpp", "decreto-lei 3689/1941")),
        (
            "art. 65, §§ 1º e 2º, da Lei nº 8.666/93",
            ("lei 8666/1993 art. 65 § 1", "lei 8666/1993 art. 65 § 2", "lei 8666/1993"),
        ),
        ("CF, art. 5º, LXXIV", ("cf art. 5 inc. LXXIV", "cf")),
        ("MP 2.200-2/2001", ("mp 2200-2/2001",)),
    ],
)
def test_pinpoint_keys(text: str, expected: tuple[str, ...]) -> None:
    assert keys(text) == [expected]


def test_spellings_of_one_law_share_a_key() -> None:
    found = keys(
        "Lei nº 8.078/1990; Lei 8.078/90; Lei 8.078, de 11 de setembro de 1990; CDC; "
        "Código de Defesa do Consumidor"
    )
    assert len(found) == 5 and all("cdc" in k for k in found)
    assert all("lei 8078/1990" in k for k in found[:3])


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Súmula 7/STJ", "súmula 7 stj"),
        ("Súmula nº 7 do STJ", "súmula 7 stj"),
        ("Súmula Vinculante 13", "súmula vinculante 13"),
        ("Enunciado n° 331, IV, do TST", "súmula 331 tst"),
        ("OJ nº 111 da SDI-1 do TST", "oj 111 sbdi-1 tst"),
        ("Tema 1.046 da repercussão geral", "tema 1046 stf"),
        ("AgRg no REsp 1.234.567/SP", "agrg resp 1234567"),
        ("Recurso Especial nº 1.583.083/RS", "resp 1583083"),
        ("E-ED-RR - 795910-22.2001.5.02.5555", "e ed rr 0795910-22.2001.5.02.5555"),
        ("Acórdão 1.481/2005-1ª Câmara", "acórdão 1481/2005"),
        ("MS 25.880/DF", "ms 25880"),
    ],
)
def test_jurisprudence_keys(text: str, key: str) -> None:
    assert [j.key for j in find_jurisprudence(text)] == [key]


def test_case_classes_need_their_capitals() -> None:
    assert list(find_jurisprudence("re 123.456 e ms 25.880 em minúsculas")) == []


def test_lener_gold_spans_are_found() -> None:
    """Every LEGISLACAO span of the first 3,000 test tokens overlaps a reference we find."""
    lines = require(DATA / "lener_br" / "test" / "test.conll").read_text(encoding="utf-8").splitlines()[:3000]
    text, spans, cur = "", [], None
    for line in lines:
        parts = line.split(" ")
        if len(parts) < 2:
            text += "\n"
            continue
        start = len(text) + 1
        text += " " + parts[0]
        if parts[-1] == "B-LEGISLACAO":
            cur = [start, len(text)]
            spans.append(cur)
        elif parts[-1] == "I-LEGISLACAO" and cur:
            cur[1] = len(text)
        else:
            cur = None
    found = [(r.start, r.end) for r in find_legislation(text)]
    missed = [text[s:e] for s, e in spans if not any(a < e and s < b for a, b in found)]
    assert len(spans) > 20 and len(missed) <= len(spans) // 10, missed
