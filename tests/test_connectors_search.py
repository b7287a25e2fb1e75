"""Terms and connectors and the rerank switch through search_case (the SDK's in-memory client over a
real Service, tests/mcp_tools.py) and through `casetrack search` on a copy of the same case."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from casetrack.config import resolve_settings
from casetrack.daemon.service import Service
from tests.cli_runner import run, run_json
from tests.conftest import MODELS
from tests.mcp_tools import CASE, LEASE, LEASE_TEXT, Host, data, error, open_host
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body

MATCH = "terminate this lease with sixty (60) days written notice"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "connectors") as opened:
        yield opened


def test_search_case_takes_syntax_and_rerank(host: Host) -> None:
    tool = host.tools()["search_case"]
    assert {"syntax", "rerank"} <= params(tool)
    assert tool.input_schema["properties"]["rerank"]["default"] is False


def test_a_connectors_query_gives_exact_matches_cited_to_their_lines(host: Host) -> None:
    result = host.call("search_case", {"case_name": CASE, "query": "terminat! w/10 notice"})
    out = data(result)
    assert out["syntax"] == "connectors" and out["expression"] == "(terminat! w/10 notice)"
    assert out["total_matches"] == len(out["results"]) == 1  # the hosting agreement says it otherwise
    hit = out["results"][0]
    assert hit["matched"] == [MATCH] and hit["match"] == "exact" and hit["relevance"] == 1.0
    assert hit["source"]["document"] == LEASE
    # The pin-cite is the line that holds the match: "2. Termination. Either party may terminate ..."
    line = next(i for i, t in enumerate(LEASE_TEXT.splitlines(), start=1) if "may terminate this lease" in t)
    assert hit["source"]["line_start"] <= line <= hit["source"]["line_end"] <= line + 1
    assert "terminate this lease" in hit["snippet"] and "Security deposit" not in hit["snippet"]
    assert "connectors" in out["stages_used"] and "dense" not in out["stages_used"]
    text = body(result)
    assert "Terms and connectors: (terminat! w/10 notice) | 1 matching passages" in text
    assert f"Matched: {MATCH}" in text


def test_connectors_find_only_what_the_text_holds(host: Host) -> None:
    queries = [
        "landlord /s deposit",  # "The Landlord shall return the security deposit"
        "tenant pre/3 deposit",
        # NOT drops a passage holding the word anywhere (the lease is one passage, deposit in clause 3).
        "rent /p transfer % deposit",
        "rent /p transfer % chocolate",
        '"Judge Smith" /s refus!',
        "landlord w/2 chocolate",
    ]

    async def script(client: Client) -> list[dict[str, Any]]:
        return [data(await client.call_tool("search_case", {"case_name": CASE, "query": q})) for q in queries]

    found = dict(zip(queries, host.run(script), strict=True))
    assert [found[q]["total_matches"] for q in queries] == [1, 0, 0, 1, 1, 0]
    assert "refused" in str(found['"Judge Smith" /s refus!']["results"])
    nothing = found["landlord w/2 chocolate"]
    assert nothing["results"] == [] and "No passage matches" in str(nothing["warnings"])


@pytest.mark.slow  # ~7 s on the shared 2-core machine: three plain searches with every model
def test_a_plain_question_stays_plain_and_syntax_forces_either_reading(host: Host) -> None:
    def ask(query: str, **extra: object) -> dict[str, object]:
        return data(host.call("search_case", {"case_name": CASE, "query": query, "top_k": 3, **extra}))

    plain = ask("What happens if the tenant and landlord disagree?")
    assert plain["syntax"] == "plain" and "expression" not in plain or plain.get("expression") is None
    forced_plain = ask("terminat! w/10 notice", syntax="plain")
    assert forced_plain["syntax"] == "plain" and forced_plain.get("expression") is None
    forced = ask("termination notice", syntax="connectors")
    assert forced["syntax"] == "connectors" and forced["expression"] == "(termination AND notice)"


def test_a_malformed_expression_is_a_tool_error_pointing_at_it(host: Host) -> None:
    message = error(host.call("search_case", {"case_name": CASE, "query": "(terminat! w/10 notice"}))
    assert "mistake at character 1" in message and "never closed" in message
    assert "  (terminat! w/10 notice\n  ^" in message
    assert 'search_case(query="(terminat! w/10 notice)", syntax="connectors")' in message


@pytest.mark.slow  # ~4 s: two plain searches, one with the late-interaction model
def test_rerank_runs_stage_4_for_one_search(host: Host) -> None:
    args = {"case_name": CASE, "query": "how much notice to terminate the lease", "top_k": 3}
    on = data(host.call("search_case", {**args, "rerank": True}))
    off = data(host.call("search_case", args))
    assert "rerank" in on["stages_used"] and "rerank" not in off["stages_used"]
    assert not any("rerank" in w for w in on["warnings"])


@pytest.mark.slow  # ~5 s: a second Service and a plain search
def test_rerank_without_a_late_interaction_model_says_how_to_install_one(host: Host, tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    for folder in MODELS.iterdir():
        if folder.is_dir() and folder.name != "colbert-standin-minilm":
            (models / folder.name).symlink_to(folder)
    data_dir = tmp_path / "data"
    shutil.copytree(host.data, data_dir)
    settings = resolve_settings(
        data_dir, models, environ={}, install_models=None, allowed_roots=[host.files], home_dir=host.files
    )
    service = Service(settings)
    try:
        response = service.app.search(CASE, "how much notice to terminate the lease", top_k=2, rerank=True)
    finally:
        service.close()
    note = next(w for w in response.warnings if w.startswith("rerank was asked for"))
    assert "no late-interaction model (E12" in note
    assert "casetrack models download --model answerai-colbert-small-v1" in note
    assert "rerank" not in response.stages_used and response.hits


@pytest.mark.slow  # ~6 s: the CLI in-process, a plain search with the late-interaction model
def test_the_cli_reads_connectors_and_reranks(
    host: Host, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(host.data, home)
    monkeypatch.setenv("CASETRACK_HOME", str(home))
    monkeypatch.setenv("CASETRACK_CLI_DAEMON", "never")
    out = run_json("search", "--case", CASE, "terminat! w/10 notice")
    assert out["syntax"] == "connectors" and out["results"][0]["matched"] == [MATCH]
    human = run("search", "--case", CASE, "landlord /s deposit").stdout
    assert "Terms and connectors: (landlord /s deposit) (1 matching passages)" in human
    assert "matched: Landlord shall return the security deposit" in human
    plain = run_json("search", "--case", CASE, "--syntax", "plain", "terminat! w/10 notice")
    assert plain["syntax"] == "plain"
    reranked = run_json("search", "--case", CASE, "notice to terminate", "--rerank")
    assert "rerank" in reranked["stages_used"]
    bad = run("search", "--case", CASE, "landlord /s", ok=False)
    assert bad.exit_code != 0
    assert "expected a word, a quoted phrase or '(' after '/s'" in bad.stderr
    assert "--syntax connectors 'landlord'" in bad.stderr
    assert json.dumps(out)  # the --json shape stays plain JSON
