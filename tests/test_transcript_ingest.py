"""Transcripts end to end: the made deposition (PDF, stamped), its condensed copy, a hearing .txt
and a contract ingested through the real CLI (parsed in the child process, chunked, embedded,
stored in LanceDB and tantivy), then searched and read back through the CLI (`--json` and human
output) and through the SDK's MCP client against `casetrack serve` (the real daemon): results cite
`Smith Dep. 45:3-12` / `Tr. 2:16-20`, with the file and PDF page after; a contract is cited as
before."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner, Result

from casetrack.cli.main import cli
from tests import transcript_maker as tm
from tests.conftest import DATA, MODELS, require
from tests.daemon_util import daemon_stopped_after, data, mcp_client, text

pytestmark = pytest.mark.slow  # one module-wide ingest with the real models (~30-60 s)

CASE = "Harbor Freight v. Meridian"
CONTRACT = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
TRANSCRIPT_CITE = re.compile(r"^(Smith Dep\.|Tr\.) \d+:\d+(-(\d+:)?\d+)? \(")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("transcript-ingest")
    folder = root / "matter"
    folder.mkdir()
    tm.deposition_pdf(folder / "Smith_depo.pdf")
    tm.condensed_pdf(folder / "Smith_condensed.pdf")
    tm.hearing_txt(folder / "hearing_2023-06-14.txt")
    shutil.copy(require(CONTRACT), folder / CONTRACT.name)
    home = root / "home"
    run(home, "case", "create", CASE, "--type", "civil")
    paths = sorted(str(p) for p in folder.iterdir())
    report = json.loads(run(home, "ingest", "--case", CASE, *paths, "--json").stdout)
    assert report["summary"]["ingested"] == 4, report
    yield home


def run(home: Path, *args: str, ok: bool = True) -> Result:
    result = CliRunner().invoke(
        cli, ["--data-dir", str(home), "--models-dir", str(MODELS), *args], catch_exceptions=False
    )
    if ok:
        assert result.exit_code == 0, result.output
    return result


def search(home: Path, query: str, *args: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(run(home, "search", "--case", CASE, query, *args, "--json").stdout)
    return out


def test_cli_search_cites_the_deposition_by_its_printed_page_and_lines(home: Path) -> None:
    out = search(
        home, "the compressor on unit four had failed over the weekend", "--document", "Smith_depo.pdf"
    )
    top = out["results"][0]
    src = top["source"]
    assert src["transcript"] == "Smith Dep." and src["transcript_page"] == 44 and src["page"] == 2
    assert src["line_start"] <= 18 and src["line_end"] >= 19 and src["line_end"] <= 25
    assert top["citation"] == (
        f"Smith Dep. 44:{src['line_start']}-{src['line_end']} (Smith_depo.pdf, p. 2, {tm.bates(2)})"
    )
    assert src["transcript_cite"] == top["citation_short"] == top["citation"].split(" (")[0]
    assert "Gary Hollis. He told me the compressor on unit" in top["text"]
    assert not re.search(r"(?m)^\d{1,2} ", top["text"])  # margin numbers are not text
    assert top["chunk_source"]["transcript_page"] == 44 and top["chunk_citation"].startswith(
        "Smith Dep. 44:1-25 ("
    )
    # The human output leads with the same cite.
    assert (
        f"1. {top['citation']}"
        in run(
            home,
            "search",
            "--case",
            CASE,
            "the compressor on unit four had failed over the weekend",
            "--document",
            "Smith_depo.pdf",
        ).stdout
    )


def test_cli_verbatim_passage_is_pinned_to_its_own_lines(home: Path) -> None:
    quote = (
        "That Meridian's liability for lost goods is capped at fifty cents per pound unless we declared "
        "a higher value in writing."
    )
    top = search(home, quote, "--document", "Smith_depo.pdf")["results"][0]
    assert top["match"] == "exact" and top["source"]["transcript_cite"] == "Smith Dep. 47:9-11"
    condensed = search(home, quote, "--document", "Smith_condensed.pdf")["results"][0]
    assert condensed["source"]["transcript_cite"] == "Smith Dep. 47:9-11"
    assert condensed["citation"] == "Smith Dep. 47:9-11 (Smith_condensed.pdf, p. 2)"


def test_cli_hearing_txt_is_cited_tr(home: Path) -> None:
    top = search(home, "I am going to grant the motion in part", "--document", "hearing_2023-06-14.txt")[
        "results"
    ][0]
    src = top["source"]
    assert src["transcript"] == "Tr." and src["transcript_page"] == 2 and src["page"] is None
    assert src["line_start"] <= 16 <= src["line_end"]
    assert top["citation"].startswith(f"Tr. 2:{src['line_start']}") and top["citation"].endswith(
        "(hearing_2023-06-14.txt)"
    )


def test_cli_chunk_and_a_contract_keep_their_forms(home: Path) -> None:
    top = search(home, "Did Harbor Freight pay Lakeshore for the loss", "--document", "Smith_depo.pdf")[
        "results"
    ][0]
    shown = json.loads(run(home, "chunk", "--case", CASE, top["chunk_id"], "--json").stdout)
    assert shown["citation"] == top["chunk_citation"] and shown["source"]["transcript_page"] == 46
    pinned = json.loads(
        run(
            home,
            "chunk",
            "--case",
            CASE,
            top["chunk_id"],
            "--query",
            "Did Harbor Freight pay Lakeshore for the loss",
            "--json",
        ).stdout
    )
    assert pinned["citation"].startswith("Smith Dep. 46:7") and pinned["source"][
        "transcript_cite"
    ].startswith("Smith Dep. 46:7")
    contract = search(home, "termination of the hosting agreement", "--document", CONTRACT.name)["results"][0]
    assert contract["citation"].startswith(f"{CONTRACT.name}, p. ") and ", para" in contract["citation"]
    assert contract["source"]["transcript"] is None and contract["source"]["transcript_cite"] is None


def test_cli_verify_reports_the_place_as_the_transcript_cite(home: Path) -> None:
    exact = json.loads(
        run(
            home,
            "verify",
            "--case",
            CASE,
            "--quote",
            "Gary Hollis e-mailed it to me on January 13 at my request.",
            "--cite",
            "Smith_depo.pdf, p. 3",
            "--json",
        ).stdout
    )
    assert exact["verdict"] == "exact" and exact["found_at"] == "Smith Dep. 45:8-9 (Smith_depo.pdf, p. 3)"
    # A quote over the PDF page break (44:25 to 45:2), cited to the wrong page: found at both pages.
    moved = run(
        home,
        "verify",
        "--case",
        CASE,
        "--quote",
        "I called our dispatcher and told her to stop routing "
        "refrigerated loads to Joliet until further notice.",
        "--cite",
        "Smith_depo.pdf, p. 5",
        "--json",
        ok=False,
    )
    assert json.loads(moved.stdout)["found_at"] == "Smith Dep. 44:25-45:2 (Smith_depo.pdf, pp. 2-3)"


def test_mcp_client_reads_transcript_cites(home: Path) -> None:
    async def main() -> None:
        async with mcp_client(home) as client:
            found = await client.call_tool(
                "search_case",
                {
                    "query": "Mr. Smith, I'm handing you what has been marked as Exhibit 14",
                    "document_filter": "Smith_depo.pdf",
                    "case_name": CASE,
                },
            )
            assert not found.is_error, text(found)
            top = data(found)["results"][0]
            assert top["source"]["transcript_cite"] == "Smith Dep. 45:3-4"
            assert "Smith Dep. 45:3-4 (Smith_depo.pdf, p. 3, HFL0001203)" in text(found)
            chunk = await client.call_tool("get_chunk", {"chunk_id": top["chunk_id"], "case_name": CASE})
            assert text(chunk).startswith("Smith Dep. 45:1-25 (Smith_depo.pdf, p. 3, HFL0001203)")
            hearing = await client.call_tool(
                "search_case",
                {
                    "query": "why not produce them",
                    "document_filter": "hearing_2023-06-14.txt",
                    "case_name": CASE,
                },
            )
            src = data(hearing)["results"][0][
                "source"
            ]  # "THE COURT: Ms. Lindqvist, why not produce them?" is 2:12
            assert src["transcript_cite"] == f"Tr. 2:{src['line_start']}-{src['line_end']}"
            assert src["line_start"] <= 12 <= src["line_end"]
            assert f"{src['transcript_cite']} (hearing_2023-06-14.txt)" in text(hearing)
            checked = await client.call_tool(
                "verify_citation",
                {
                    "quote": "Mr. Smith, I'm handing you what has been marked as Exhibit 14.",
                    "citation": "Smith_depo.pdf, p. 3",
                    "case_name": CASE,
                },
            )
            assert data(checked)["found_at"] == "Smith Dep. 45:3-4 (Smith_depo.pdf, p. 3)", text(checked)

    with daemon_stopped_after(home):
        anyio.run(main)
