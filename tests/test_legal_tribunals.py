"""Tribunal mentions by acronym and by full name, on real LeNER-Br decisions."""

from __future__ import annotations

import pytest

from casetrack.legal.tribunals import find_tribunals, normalise_tribunal
from tests.conftest import DATA, require


@pytest.mark.parametrize(
    ("written", "acronym"),
    [
        ("Superior Tribunal de Justiça", "STJ"),
        ("Supremo Tribunal Federal", "STF"),
        ("C.TST", "TST"),
        ("Tribunal de Justiça do Estado de São Paulo", "TJSP"),
        ("Tribunal de Justiça de Minas Gerais", "TJMG"),
        ("Tribunal de Justiça do Distrito Federal e dos Territórios", "TJDFT"),
        ("TJ-RS", "TJRS"),
        ("TJ/MS", "TJMS"),
        ("Tribunal Regional do Trabalho da 2ª Região", "TRT2"),
        ("TRT da 15ª Região", "TRT15"),
        ("TRT-24", "TRT24"),
        ("Tribunal Regional Federal da 4A Região", "TRF4"),
        ("TRF3", "TRF3"),
        ("TRE/SP", "TRE-SP"),
        ("Tribunal Regional Eleitoral do Rio Grande do Sul", "TRE-RS"),
        ("Tribunal de Contas da União", "TCU"),
        ("Tribunal de Contas do Estado do Paraná", "TCE-PR"),
        ("CARF", "CARF"),
        ("Conselho Nacional de Justiça", "CNJ"),
    ],
)
def test_normalised(written: str, acronym: str) -> None:
    assert normalise_tribunal(written) == acronym


def test_not_a_tribunal() -> None:
    assert list(find_tribunals("O tribunal do júri e o Tribunal Regional em geral; stj em minúsculas")) == []


def test_real_decision() -> None:
    text = require(DATA / "lener_br" / "raw_text" / "HC418951PR.txt").read_text(encoding="utf-8")
    acronyms = {t.acronym for t in find_tribunals(text)}
    assert {"TRF4", "STJ", "STF"} <= acronyms
