"""CNJ process numbers in real Brazilian decisions (LeNER-Br, ../shared/data/lener_br): a number
whose check digits do not hold is flagged in the ingest report, `documents info` and
`find-entity`; the tribunal its J.TR segment names (5.23 = TRT23, 8.26 = TJSP) fills the document's tribunals
and the `--tribunal` filter. Through the real CLI (in-process), real models and stores."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from casetrack.search.legal_filters import legal_filters, matches
from tests.cli_runner import run_json
from tests.conftest import DATA, MODELS, require

RAW = DATA / "lener_br" / "raw_text"
# A TSE instruction whose number, 0604337-81.2018.6.00.0000, has wrong check digits (the rest gives 95).
WRONG = "INSTRUCAOON06043378120186000000.txt"
# A TST appeal from 0000047-48.2014.5.23.0056: segment 5.23 is TRT23, which its text never names.
TRT = "RR474820145230056.txt"


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[dict[str, Any]]]:
    root = tmp_path_factory.mktemp("cnj")
    for name in (WRONG, TRT):
        shutil.copy(require(RAW / name), root / name)
    cli = ["--data-dir", str(root / "home"), "--models-dir", str(MODELS)]
    run_json(*cli, "case", "create", "Processos", "--language", "pt")
    report = run_json(*cli, "ingest", "--case", "Processos", str(root / WRONG), str(root / TRT))
    return cli, report["files"]


def test_wrong_check_digits_are_flagged_at_ingest_and_in_documents_info(
    case: tuple[list[str], list[dict[str, Any]]],
) -> None:
    cli, results = case
    wrong = next(r for r in results if r["name"] == WRONG)
    assert any(
        "0604337-81.2018.6.00.0000 has wrong check digits (81; its other digits give 47)" in str(w)
        for w in wrong["warnings"]
    )
    right = next(r for r in results if r["name"] == TRT)
    assert not any("check digits" in str(w) for w in right["warnings"])
    info = run_json(*cli, "documents", "info", "--case", "Processos", WRONG)
    check = next(c for c in info["process_checks"] if c["number"] == "0604337-81.2018.6.00.0000")
    assert (check["valid"], check["expected_check_digits"], check["tribunal"]) == (False, "47", "TSE")
    assert "Check it against the court's record" in check["problem"]
    good = run_json(*cli, "documents", "info", "--case", "Processos", TRT)["process_checks"]
    assert good and all(c["valid"] and c["problem"] is None for c in good)


def test_find_entity_flags_a_number_with_wrong_check_digits(
    case: tuple[list[str], list[dict[str, Any]]],
) -> None:
    cli, _ = case
    out = run_json(*cli, "find-entity", "--case", "Processos", "0604337-81.2018.6.00.0000")
    assert out["process_number"]["valid"] is False and out["process_number"]["tribunal"] == "TSE"
    assert any("wrong check digits" in w for w in out["warnings"])
    assert [d["document"] for d in out["documents"]] == [WRONG]
    fine = run_json(*cli, "find-entity", "--case", "Processos", "0000047-48.2014.5.23.0056")
    assert fine["process_number"]["valid"] is True and fine["process_number"]["tribunal"] == "TRT23"
    assert not any("check digits" in w for w in fine["warnings"])


def test_the_tribunal_decoded_from_the_number_filters_search(
    case: tuple[list[str], list[dict[str, Any]]],
) -> None:
    cli, _ = case
    listed = {d["name"]: d for d in run_json(*cli, "documents", "list", "--case", "Processos")}
    assert "TRT23" in listed[TRT]["tribunals"]
    out = run_json(*cli, "search", "--case", "Processos", "recurso de revista", "--tribunal", "TRT-23")
    assert {r["source"]["document"] for r in out["results"]} == {TRT}
    tse = run_json(*cli, "search", "--case", "Processos", "instrução", "--tribunal", "TSE")
    assert {r["source"]["document"] for r in tse["results"]} == {WRONG}


def test_segment_8_26_is_tjsp_for_the_filter_even_in_documents_ingested_before() -> None:
    """A document stored before ingest decoded tribunals (only its process number recorded)."""
    legal = {"legal": {"process_numbers": ["1000123-45.2022.8.26.0100"], "tribunals": []}}
    assert matches(legal, legal_filters(tribunals=["TJ-SP"]))
    assert not matches(legal, legal_filters(tribunals=["TJRJ"]))
