"""verify_citation through the SDK's in-memory client over a real Service (tests/mcp_tools.py):
the verdicts on an unpaged text file and a page beyond a PDF's last, each as data and as the
text Claude reads. The PDF verdicts of a CUAD contract are tests/test_verify_cli_mcp.py's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.mcp_tools import (
    CASE,
    HOSTING,
    LEASE,
    MEMO,
    READ,
    TERMINATION,
    Host,
    data,
    error,
    hints,
    open_host,
)
from tests.mcp_tools import text as body

HEARING = "Judge Smith refused and set the trial for June 10, 2024"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "verify") as opened:
        yield opened


def verify(host: Host, *calls: dict[str, object]) -> list[CallToolResult]:
    """verify_citation once per argument set, in one session whose active case is CASE."""

    async def script(client: Client) -> list[CallToolResult]:
        await client.call_tool("switch_case", {"case_name": CASE})
        return [await client.call_tool("verify_citation", dict(args)) for args in calls]

    return host.run(script)


def test_the_tool_keeps_its_parameters_and_is_read_only(host: Host) -> None:
    tool = host.tools()["verify_citation"]
    assert hints(tool) == READ and tool.input_schema["required"] == ["quote"]
    properties = tool.input_schema["properties"]
    assert {"minimum": 1, "type": "integer"} in properties["page"]["anyOf"]
    assert properties["quote"]["maxLength"] == 5000


def test_verdicts_on_a_text_file_by_paragraph_and_lines(host: Host) -> None:
    exact, changed, elsewhere, nowhere = verify(
        host,
        {"quote": TERMINATION, "citation": f"{LEASE}, para. 4, ll. 8-9"},
        {"quote": TERMINATION.replace("sixty (60)", "ninety (90)"), "document": "lease", "paragraph": 4},
        {"quote": HEARING, "document": LEASE, "line_start": 8, "line_end": 9},
        {"quote": "The moon is made of cheese", "document": LEASE, "paragraph": 2},
    )
    first = data(exact)
    assert (first["verdict"], first["found_at"], first["cite_problem"]) == (
        "exact",
        f"{LEASE}, para. 4, l. 8",
        None,
    )
    assert body(exact).startswith("Verdict: EXACT") and f"Text at {LEASE}, para. 4, ll. 8-9:" in body(exact)

    close = data(changed)
    assert close["verdict"] == "close" and close["meaning_changes"] == ["number"]
    assert close["differences"] == [
        {"quote": "ninety", "text": "sixty", "kind": "number"},
        {"quote": "90", "text": "60", "kind": "number"},
    ]
    assert close["citation"] == "lease, para. 4" and close["cite_resolved"] == f"{LEASE}, para. 4"
    assert '- number: quote "ninety" / text "sixty"' in body(changed) and "MEANING CHANGED" in body(changed)

    moved = data(elsewhere)
    assert moved["verdict"] == "elsewhere" and moved["found_at"] == f"{MEMO}, para. 3, ll. 5-6"
    assert f"Cite it as: {MEMO}, para. 3, ll. 5-6" in body(elsewhere) and TERMINATION in moved["text_at_cite"]

    missing = data(nowhere)
    assert missing["verdict"] == "not_found" and missing["found_at"] is None
    assert missing["text_at_cite"].startswith("This lease is made between") and "Cite it as" not in body(
        nowhere
    )
    assert "Verdict: NOT FOUND" in body(nowhere)


def test_a_page_the_pdf_does_not_have_and_a_quote_with_no_document(host: Host) -> None:
    beyond, no_document = verify(
        host,
        {
            "quote": "Managed hosting fees are $175 per month",
            "citation": "Premium Managed Hosting Agreement.PDF, p. 5",
        },
        {"quote": TERMINATION},
    )
    out = data(beyond)
    assert out["verdict"] == "elsewhere" and out["text_at_cite"] == ""
    assert out["cite_problem"] == f"{HOSTING.name} has no page 5: it has 2 pages"
    assert out["found_at"] == f"{HOSTING.name}, p. 1, para. 15, l. 24" and "(no text at that place)" in body(
        beyond
    )
    assert "names no document" in error(no_document) and "'Contract.pdf, p. 12, ll. 1-4'" in error(
        no_document
    )
