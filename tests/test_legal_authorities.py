"""The table of authorities (issue 15) and the legal filters through the CLI and a real MCP client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from tests.cli_runner import run_json
from tests.conftest import MODELS

BRIEF = """PLAINTIFF'S BRIEF IN OPPOSITION

The right of privacy is fundamental. Roe v. Wade, 410 U.S. 113, 153 (1973). The State may not
burden it without a compelling interest. Id. at 155. See also Planned Parenthood v. Casey,
505 U.S. 833 (1992).

The statute at issue, 42 U.S.C. § 1983, gives a remedy. Roe, 410 U.S. at 160.
"""
OPINION = """MEMORANDUM OPINION

Defendants rely on Planned Parenthood v. Casey, 505 U.S. 833, 846 (1992), and on Roe v. Wade,
410 U.S. 113 (1973). Neither supports them.
"""
RECURSO = """RECURSO DE APELAÇÃO

O fornecedor responde objetivamente pelos danos causados ao consumidor (art. 14 do CDC).
Aplica-se a Súmula 7/STJ. Ver também o art. 14, caput, da Lei nº 8.078/1990.
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("authorities")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case("Roe")
    files = []
    for name, text in (("brief.txt", BRIEF), ("opinion.txt", OPINION), ("recurso.txt", RECURSO)):
        (root / name).write_text(text, encoding="utf-8")
        files.append(root / name)
    assert all(r.ok for r in app.ingest("Roe", files))
    app.close()
    return root / "home"


def test_most_cited_first_with_pin_cites(home: Path) -> None:
    app = CaseTrack(resolve_settings(home, MODELS, environ={}))
    try:
        out = app.authorities("Roe")
    finally:
        app.close()
    keys = [a["key"] for a in out["authorities"]]
    roe = next(a for a in out["authorities"] if a["key"].startswith("410 U.S. 113"))
    assert (
        roe["documents"] == 2 and roe["mentions"] >= 3
    )  # the full cite, "Id. at 155" and "Roe, 410 U.S. at 160"
    assert keys.index(roe["key"]) < 2  # cited by two documents: among the first
    assert {p["document"] for p in roe["cited_in"]} == {"brief.txt", "opinion.txt"}
    assert all("ll." in p["citation"] or "l." in p["citation"] for p in roe["cited_in"])
    assert any("cdc" in k for k in keys) and any("súmula 7" in k or "sumula 7" in k for k in keys)
    only = CaseTrack(resolve_settings(home, MODELS, environ={}))
    try:
        statutes = only.authorities("Roe", kind="us_statute")["authorities"]
    finally:
        only.close()
    assert statutes and all(a["kind"] == "us_statute" for a in statutes)


def test_the_cli_prints_the_table(home: Path) -> None:
    out = run_json(
        "--data-dir", str(home), "--models-dir", str(MODELS), "authorities", "--case", "Roe", "--top", "3"
    )
    assert out["shown"] == 3 and out["total"] >= 5


def test_mcp_list_authorities_and_filtered_search(home: Path) -> None:
    import anyio
    from mcp import Client

    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server

    async def calls() -> tuple[Any, Any]:
        service = Service(resolve_settings(home, MODELS, environ={}))
        try:
            async with Client(build_server(service, SessionState())) as client:
                table = await client.call_tool("list_authorities", {"case_name": "Roe", "top_k": 5})
                found = await client.call_tool(
                    "search_case", {"case_name": "Roe", "query": "danos ao consumidor", "language": "pt"}
                )
                return table, found
        finally:
            service.close()

    table, found = anyio.run(calls)
    assert not table.is_error and "410 U.S. 113" in table.content[0].text
    assert table.structured_content["authorities"][0]["documents"] >= 2
    assert not found.is_error
    results = found.structured_content["results"]
    assert results and {r["source"]["document"] for r in results} == {"recurso.txt"}
    json.dumps(table.structured_content)  # plain JSON


def test_find_entity_takes_the_same_filters(home: Path) -> None:
    base = ("--data-dir", str(home), "--models-dir", str(MODELS))
    everywhere = run_json(*base, "entity", "--case", "Roe", "410 U.S. 113")
    assert {d["document"] for d in everywhere["documents"]} == {"brief.txt", "opinion.txt"}
    briefs = run_json(*base, "entity", "--case", "Roe", "410 U.S. 113", "--doc-type", "brief")
    assert {d["document"] for d in briefs["documents"]} == {"brief.txt"}
    none = run_json(*base, "entity", "--case", "Roe", "410 U.S. 113", "--doc-type", "invoice")
    assert none["documents"] == [] and "No document in this case matches the filters." in none["warnings"]


def test_find_entity_finds_an_authority_or_process_number_however_written(tmp_path: Path) -> None:
    app = CaseTrack(resolve_settings(tmp_path / "home", MODELS, environ={}))
    try:
        app.create_case("Forms", language="pt")
        (tmp_path / "a.txt").write_text(
            "Processo nº 1000123-06.2022.8.26.0100, em trâmite na 5ª Vara Cível.", encoding="utf-8"
        )
        (tmp_path / "b.txt").write_text(
            "Conforme os autos 10001230620228260100, o réu foi citado.", encoding="utf-8"
        )
        (tmp_path / "c.txt").write_text(
            "Aplica-se o art. 14 do CDC; ver também o artigo 14 da Lei 8.078/90.", encoding="utf-8"
        )
        assert all(r.ok for r in app.ingest("Forms", [tmp_path / n for n in ("a.txt", "b.txt", "c.txt")]))

        def found(entity: str) -> dict[str, list[str]]:
            return {
                d.document: [m.matched_text for m in d.mentions]
                for d in app.find_entity("Forms", entity).documents
            }

        both = {"a.txt": ["1000123-06.2022.8.26.0100"], "b.txt": ["10001230620228260100"]}
        assert found("1000123-06.2022.8.26.0100") == both
        assert found("10001230620228260100") == both
        cdc = sorted(found("art. 14 do CDC")["c.txt"])  # the same authority, written two ways
        assert cdc[0] == "art. 14 do CDC" and cdc[1].startswith("artigo 14 da Lei 8.078")
    finally:
        app.close()
