"""`casetrack verify` (human output, --json, exit codes, stdin) and the verify_citation MCP tool
through the SDK's client, over a real ingested case."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client

from casetrack.app import CaseTrack
from casetrack.cli.main import cli
from casetrack.cli.verify_cmds import EXIT_BY_VERDICT
from casetrack.config import resolve_settings
from casetrack.daemon.service import Service
from casetrack.mcp.server import SessionState, build_server
from tests.conftest import DATA, MODELS, require
from tests.daemon_util import env_for

PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
TXT = DATA / "lener_br/raw_text/RR474820145230056.txt"
CASE = "Hosting v. Astro"
TERM = (
    "This is a managed hosting agreement between AstroNutrition.com and deep systems. The effective term is "
    "12 months"
)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("verify-surfaces")
    app = CaseTrack(resolve_settings(root / "home", MODELS, environ={}))
    app.create_case(CASE, "contract", "en")
    files = []
    for src in (require(PDF), require(TXT)):
        files.append(root / src.name)
        shutil.copy(src, files[-1])
    assert [r.status for r in app.ingest(CASE, files)] == ["ingested", "ingested"]
    app.close()
    yield root / "home"


def run(data_dir: Path, *args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(
        cli,
        ["--data-dir", str(data_dir), "--models-dir", str(MODELS), "verify", "--case", CASE, *args],
        input=stdin,
    )


# -- CLI ------------------------------------------------------------------------------------------


def test_cli_exact_prints_the_verdict_and_the_text_and_exits_0(data_dir: Path) -> None:
    r = run(data_dir, "--quote", TERM, "--cite", f"{PDF.name}, p. 1, ll. 5-6")
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"EXACT: the quote is at {PDF.name}, p. 1, para. 3, ll. 5-6.")
    assert f"Text at {PDF.name}, p. 1, ll. 5-6:" in r.output and "AstroNutrition.com" in r.output


def test_cli_close_lists_differences_and_flags_meaning(data_dir: Path) -> None:
    r = run(data_dir, "--quote", TERM.replace("12 months", "18 months"), "--cite", f"{PDF.name}, p. 1")
    assert r.exit_code == EXIT_BY_VERDICT["close"] == 4, r.output
    assert "the meaning changed (number)" in r.output
    assert "number    '18' -> '12'  <- changes the meaning" in r.output
    assert f"Cite it as: {PDF.name}, p. 1, para. 3, ll. 5-6" in r.output
    assert "(the lines that best match)" in r.output


def test_cli_json_and_elsewhere(data_dir: Path) -> None:
    r = run(data_dir, "--quote", TERM, "--cite", f"{PDF.name}, p. 2", "--json")
    assert r.exit_code == EXIT_BY_VERDICT["elsewhere"] == 5, r.output
    out = json.loads(r.output)
    assert {
        "verdict",
        "found_at",
        "text_at_cite",
        "differences",
        "meaning_changed",
        "similarity",
        "cite_resolved",
    } <= set(out)
    assert out["verdict"] == "elsewhere" and out["found_at"] == f"{PDF.name}, p. 1, para. 3, ll. 5-6"
    assert "Trac Issue Tracking" in out["text_at_cite"] and out["differences"] == []


def test_cli_structured_cite_and_not_found(data_dir: Path) -> None:
    found = run(
        data_dir,
        "--quote",
        "ACORDAM os Ministros da Segunda Turma do Tribunal Superior do Trabalho",
        "--document",
        TXT.name,
        "--lines",
        "41",
        "--json",
    )
    assert found.exit_code == 0 and json.loads(found.output)["cite_resolved"] == f"{TXT.name}, l. 41"
    missing = run(
        data_dir,
        "--quote",
        "The courts of Boston shall have exclusive jurisdiction over all disputes",
        "--cite",
        f"{PDF.name}, p. 1",
    )
    assert missing.exit_code == EXIT_BY_VERDICT["not_found"] == 6
    assert missing.output.startswith("NOT FOUND:")


def test_cli_errors_exit_1_with_the_fix_and_usage_exits_2(data_dir: Path) -> None:
    r = run(data_dir, "--quote", TERM, "--cite", "Lease.pdf, p. 3")
    assert r.exit_code == 1
    assert "No document named 'Lease.pdf'" in r.output and f'casetrack case info "{CASE}"' in r.output
    assert run(data_dir, "--quote", TERM).exit_code == 2  # no cite at all
    assert run(data_dir, "--quote", TERM, "--document", PDF.name, "--lines", "x-y").exit_code == 2
    helped = CliRunner().invoke(cli, ["verify", "--help"])
    assert "Exit codes: 0 exact, 4 close, 5 elsewhere, 6 not_found" in helped.output


def test_cli_in_a_real_process_reads_the_quote_from_stdin(data_dir: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "casetrack",
            "verify",
            "--case",
            CASE,
            "--quote",
            "-",
            "--cite",
            f"{PDF.name}, p. 1, ll. 5-6",
            "--json",
        ],
        input=TERM.replace("12", "18"),
        capture_output=True,
        text=True,
        env=env_for(data_dir),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 4, proc.stderr
    out = json.loads(proc.stdout)
    assert out["verdict"] == "close" and out["meaning_changes"] == ["number"]


# -- MCP ------------------------------------------------------------------------------------------


def call(data_dir: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    async def main() -> list[Any]:
        service = Service(resolve_settings(data_dir, MODELS, environ={}))
        try:
            async with Client(build_server(service, SessionState())) as client:
                return [
                    await client.call_tool(name, args) if name != "list_tools" else await client.list_tools()
                    for name, args in calls
                ]
        finally:
            service.close()

    return anyio.run(main)


def text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def test_mcp_tool_is_read_only_with_its_parameters_and_output_schema(data_dir: Path) -> None:
    (listed,) = call(data_dir, ("list_tools", {}))
    tool = next(t for t in listed.tools if t.name == "verify_citation")
    assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    assert tool.annotations.open_world_hint is False
    props = tool.input_schema["properties"]
    assert {
        "quote",
        "citation",
        "document",
        "page",
        "paragraph",
        "line_start",
        "line_end",
        "case_name",
    } == set(props)
    assert tool.input_schema["required"] == ["quote"]
    assert tool.output_schema is not None
    assert {"verdict", "found_at", "text_at_cite", "differences", "meaning_changed"} <= set(
        tool.output_schema["properties"]
    )


def test_mcp_verdicts_as_text_and_structured_content(data_dir: Path) -> None:
    close, exact, fields, missing, no_case = call(
        data_dir,
        (
            "verify_citation",
            {
                "quote": TERM.replace("12 months", "18 months"),
                "citation": f"{PDF.name}, p. 1",
                "case_name": CASE,
            },
        ),
        ("verify_citation", {"quote": TERM, "citation": f"{PDF.name}, p. 1, ll. 5-6", "case_name": CASE}),
        ("verify_citation", {"quote": TERM, "document": "premium managed", "page": 2, "case_name": CASE}),
        ("verify_citation", {"quote": TERM, "citation": "Lease.pdf, p. 3", "case_name": CASE}),
        ("verify_citation", {"quote": TERM, "citation": f"{PDF.name}, p. 1"}),
    )
    data = close.structured_content
    assert not close.is_error and data["verdict"] == "close" and data["meaning_changes"] == ["number"]
    assert data["differences"] == [{"quote": "18", "text": "12", "kind": "number"}]
    body = text(close)
    assert body.startswith("Verdict: CLOSE") and "MEANING CHANGED: number" in body
    assert (
        '- number: quote "18" / text "12"' in body
        and f"Cite it as: {PDF.name}, p. 1, para. 3, ll. 5-6" in body
    )
    assert "Text at" in body and len(body) < 2000
    assert exact.structured_content["verdict"] == "exact" and "Cite it as" not in text(exact)
    assert fields.structured_content["verdict"] == "elsewhere"
    assert fields.structured_content["found_at"] == f"{PDF.name}, p. 1, para. 3, ll. 5-6"
    # Errors name the next tool call, not a terminal command.
    assert missing.is_error and f'list_documents(case_name="{CASE}")' in text(missing)
    assert "casetrack case info" not in text(missing)
    assert no_case.is_error and "No active case" in text(no_case)
