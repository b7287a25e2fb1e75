"""Legal metadata at ingest (issue 15): read from the text, overridden by companion YAML files,
and the filters that use it, through the app and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.search.filters import SearchFilters
from casetrack.search.legal_filters import legal_filters
from tests.cli_runner import run, run_json
from tests.conftest import MODELS

ACORDAO = """TRIBUNAL DE JUSTIÇA DO ESTADO DE SÃO PAULO

ACÓRDÃO

Apelação Cível nº 1000123-45.2022.8.26.0100

Vistos, relatados e discutidos estes autos de Apelação Cível, ACORDAM, em 5ª Câmara de Direito
Privado do Tribunal de Justiça de São Paulo, negar provimento ao recurso.

O fornecedor responde pelos danos causados ao consumidor por defeito na prestação do serviço
(art. 14 do CDC). A multa contratual de aluguel foi reduzida por equidade.

São Paulo, 12 de março de 2023.
"""
CONTRACT = """SERVICES AGREEMENT

This Services Agreement is made on July 1, 2019 between Acme Corp. and Beta LLC.

1. Term. Either party may terminate this Agreement on sixty days written notice.
2. Fees. Beta shall pay the monthly fee within thirty days of each invoice.
"""
LETTER = """Dear Ms. Smith,

We write about the late delivery of the pallets. The supplier must pay the penalty for late delivery.

Sincerely,
John Doe
"""


def _i(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def _filters(**values: object) -> SearchFilters:
    return SearchFilters(legal=legal_filters(**values))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("legal")


@pytest.fixture(scope="module")
def app(root: Path) -> CaseTrack:
    """One case for the module (the lost-journal test, last, changes it)."""
    tmp_path = root
    app = CaseTrack(resolve_settings(tmp_path / "home", MODELS, environ={}))
    app.create_case("Matter", language="pt")
    folder = tmp_path / "client"
    _i(folder / "_casetrack.yaml", "tags: [cliente-acme]\ncliente: Acme\n")
    files = [
        _i(folder / "acordao.txt", ACORDAO),
        _i(folder / "contracts" / "services.txt", CONTRACT),
        _i(folder / "letters" / "letter.txt", LETTER),
    ]
    _i(
        folder / "contracts" / "services.txt.yaml",
        "type: amendment\ndate: 2020-02-03\ntags: [urgent, draft]\n",
    )
    _i(folder / "letters" / "letter.yaml", "type: [unclosed\n")
    results = app.ingest("Matter", files)
    assert [r.status for r in results] == ["ingested"] * 3, [r.error for r in results]
    app.results = results  # type: ignore[attr-defined]
    return app


def test_metadata_is_read_from_the_text_and_the_companion_files(app: CaseTrack) -> None:
    acordao, contract, letter = app.results  # type: ignore[attr-defined]
    assert (acordao.doc_type, acordao.doc_date) == ("acordao", "2023-03-12")
    assert (contract.doc_type, contract.doc_date) == ("amendment", "2020-02-03")  # the YAML wins
    assert any("letter.yaml: not valid YAML" in w for w in letter.warnings)
    store = app.open_case("Matter")
    try:
        legal = {e.name: e.meta["legal"] for e in store.documents()}
    finally:
        store.close()
    assert legal["acordao.txt"]["tribunals"][0] == "TJSP"
    assert legal["acordao.txt"]["process_numbers"] == ["1000123-45.2022.8.26.0100"]
    assert legal["services.txt"]["tags"] == ["urgent", "draft"]  # the file's own YAML overrides the folder's
    assert legal["letter.txt"]["tags"] == ["cliente-acme"] and legal["letter.txt"]["fields"] == {
        "cliente": "Acme"
    }


def test_filters_keep_the_search_inside_the_documents_that_match(app: CaseTrack) -> None:
    def docs(**values: object) -> set[str]:
        response = app.search(
            "Matter", "pagamento multa prazo fee penalty", top_k=10, filters=_filters(**values)
        )
        return {h.provenance.document for h in response.hits}

    assert docs(doc_types=["acórdão"]) == {"acordao.txt"}
    assert docs(tribunals=["TJ-SP"]) == {"acordao.txt"}
    assert docs(processes=["10001234520228260100"]) == {"acordao.txt"}
    assert docs(date_from="2020-01-01", date_to="2020-12-31") == {"services.txt"}
    assert docs(tags=["urgent"]) == {"services.txt"}
    assert docs(fields=["cliente=acme"]) == {"acordao.txt", "services.txt", "letter.txt"}  # the folder's YAML
    assert docs(doc_types=["judgment"]) == set()


def test_the_cli_takes_the_same_filters(app: CaseTrack, root: Path) -> None:
    home = str(root / "home")
    out = run_json(
        "--data-dir",
        home,
        "--models-dir",
        str(MODELS),
        "search",
        "--case",
        "Matter",
        "terminate notice",
        "--doc-type",
        "amendment",
        "--tag",
        "draft",
    )
    assert {r["source"]["document"] for r in out["results"]} == {"services.txt"}
    bad = run(
        "--data-dir",
        home,
        "--models-dir",
        str(MODELS),
        "search",
        "--case",
        "Matter",
        "x",
        "--doc-type",
        "memo",
        ok=False,
    )
    assert bad.exit_code != 0 and "Unknown document type 'memo'" in bad.output and "acórdão" in bad.output


def test_the_metadata_survives_a_lost_journal(app: CaseTrack, root: Path) -> None:
    """The journal is rebuilt from LanceDB's document rows, which keep the metadata as JSON."""
    app.close()
    journal = next((root / "home" / "cases").glob("*/journal.sqlite"))
    journal.unlink()
    again = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    try:
        docs = {d["name"]: d for d in again.list_documents("Matter")}
    finally:
        again.close()
    assert docs["acordao.txt"]["doc_type"] == "acordao" and docs["acordao.txt"]["tribunals"][0] == "TJSP"
    assert docs["services.txt"]["tags"] == ["urgent", "draft"]
