"""CLI parity with the MCP tools (issue 17, item 8): `documents list|info`, `chunk --context`,
`find-entity`, the default case (`case use`), `jobs` without a daemon, over a small real case
(two LeNER-BR decisions), the CLI run in-process; the same answers from the MCP tools through the
SDK's client (in memory, against the daemon's `Service`)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import Result
from mcp import Client

from casetrack.app import CaseTrack
from casetrack.cli.common import NO_CASE
from casetrack.config import resolve_settings
from casetrack.daemon.service import Service
from casetrack.mcp.server import SessionState, build_server
from casetrack.ocr import engine_info
from tests.cli_runner import run
from tests.conftest import DATA, MODELS, require
from tests.pdf_maker import merged_pdf, page_images, scanned_pdf, text_pdf

LENER = DATA / "lener_br/raw_text"
LONG = LENER / "AIRR3999520145020086.txt"  # four chunks: neighbours on both sides
SHORT = LENER / "RR474820145230056.txt"
CASE = "Caso Parity"
SCANS = "Scans"
E1 = "multilingual-e5-small-enpt"
LETTER = [
    ["NOTICE OF DEFAULT", "The tenant has not paid the rent due on 1 March 2024.", "Cure within ten days."],
    ["Page two.", "Failing cure, the landlord may terminate the lease."],
]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("cli-parity")
    (root / "models").mkdir()  # E1 only: the fast tier ingests in seconds (none of this needs the others)
    (root / "models" / E1).symlink_to(MODELS / E1, target_is_directory=True)
    app = CaseTrack(resolve_settings(root / "home", root / "models", environ={}))
    app.create_case(CASE, "employment", "pt")
    results = app.ingest(CASE, [require(LONG), require(SHORT)])
    assert [r.status for r in results] == ["ingested", "ingested"]
    # A PDF whose second page is a scan, ingested while tesseract is missing: in, with a page to OCR.
    native = text_pdf(root / "letter.pdf", LETTER)
    scanned_pdf(root / "scan.pdf", page_images(native, dpi=150))
    mixed = merged_pdf(root / "Letter mixed.pdf", [(native, 0), (root / "scan.pdf", 1)])
    app.create_case(SCANS)
    with pytest.MonkeyPatch.context() as patched:
        patched.setenv("CASETRACK_TESSERACT", "/nonexistent/tesseract")
        engine_info(refresh=True)
        assert app.ingest(SCANS, [mixed])[0].needs_ocr_pages == [2]
    engine_info(refresh=True)
    app.close()
    yield root / "home"


def ct(home: Path, *args: str, ok: bool = True) -> Result:
    """`casetrack --data-dir HOME ARGS` in this process, never through a daemon."""
    return run(
        "--data-dir",
        str(home),
        "--models-dir",
        str(home.parent / "models"),
        *args,
        ok=ok,
        env={"CASETRACK_CLI_DAEMON": "never"},
    )


def ct_json(home: Path, *args: str) -> Any:
    result = ct(home, *args, "--json")
    return json.loads(result.stdout)


def mcp(home: Path, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools' structured outputs, through the MCP SDK's client."""

    async def main() -> list[dict[str, Any]]:
        service = Service(resolve_settings(home, home.parent / "models", environ={}))
        try:
            async with Client(build_server(service, SessionState())) as client:
                out = []
                for name, args in calls:
                    answer = await client.call_tool(name, {"case_name": CASE, **args})
                    assert not answer.is_error, answer.content
                    out.append(dict(answer.structured_content or {}))
                return out
        finally:
            service.close()

    return anyio.run(main)


def test_documents_list_json_has_the_issues_keys_and_keeps_the_old_ones(home: Path) -> None:
    docs = ct_json(home, "documents", "list", "--case", CASE, "--sort", "name")
    assert [d["name"] for d in docs] == sorted([LONG.name, SHORT.name])
    for d in docs:
        assert {
            "id",
            "name",
            "pages",
            "chunks",
            "status",
            "document_id",
            "file_type",
            "needs_ocr_pages",
        } <= set(d)
        assert d["id"] == d["document_id"] and d["status"] == "ingested" and d["chunks"] >= 1
    assert next(d for d in docs if d["name"] == LONG.name)["chunks"] >= 3


def test_a_document_with_pages_to_ocr_is_listed_as_needs_ocr(home: Path) -> None:
    (doc,) = ct_json(home, "documents", "list", "--case", SCANS)
    assert doc["status"] == "needs_ocr" and doc["needs_ocr_pages"] == [2] and doc["pages"] == 2
    assert "needs OCR: p. 2)" in ct(home, "documents", "list", "--case", SCANS).stdout
    human = ct(home, "documents", "info", "--case", SCANS, "letter").stdout
    assert f"(id {doc['id']}, needs_ocr)" in human
    assert f'pages that need OCR: 2 (casetrack reocr --case "{SCANS}" --document "Letter mixed.pdf")' in human


def test_documents_info_and_list_equal_the_mcp_tools(home: Path) -> None:
    info = ct_json(home, "documents", "info", "--case", CASE, "airr3999")  # a unique part of the name
    listed = ct_json(home, "documents", "list", "--case", CASE)
    got, tool_list = mcp(home, ("get_document", {"document_name": LONG.name}), ("list_documents", {}))
    assert info == got
    assert info["case"] == CASE and info["name"] == LONG.name and info["id"] == info["document_id"]
    assert listed == tool_list["documents"]
    human = ct(home, "documents", "info", "--case", CASE, info["id"]).stdout
    assert human.startswith(f"{LONG.name}  (id {info['id']}, ingested)") and "source: " in human
    missing = ct(home, "documents", "info", "--case", CASE, "Lease.pdf", ok=False)
    assert missing.exit_code == 1 and "No document named 'Lease.pdf'" in missing.output
    assert f'casetrack case info "{CASE}"' in missing.output


def test_chunk_context_is_neighbours_and_equals_get_chunk(home: Path) -> None:
    doc = ct_json(home, "documents", "info", "--case", CASE, LONG.name)
    middle = f"{doc['id']}-{doc['generation']}-00001"
    one = ct_json(home, "chunk", "--case", CASE, middle)  # default: one passage either side
    two = ct_json(home, "chunk", "--case", CASE, middle, "--context", "2")
    none = ct_json(home, "chunk", "--case", CASE, middle, "--context", "0")
    alias = ct_json(home, "chunk", "--case", CASE, middle, "--neighbours", "2")
    assert (len(one["before"]), len(one["after"])) == (1, 1)
    assert (len(two["before"]), len(two["after"])) == (1, 2)  # the first chunk has nothing before it
    assert (none["before"], none["after"]) == ([], [])
    assert alias == two and two["chunk_id"] == middle and two["case"] == CASE
    (tool,) = mcp(home, ("get_chunk", {"chunk_id": middle, "neighbours": 2}))
    assert tool == two
    assert "--context, --neighbours N" in ct(home, "chunk", "--help").stdout


def test_find_entity_is_entity_and_equals_the_tool(home: Path) -> None:
    args = ("--case", CASE, "adicional de insalubridade", "--top-k", "5")
    found = ct_json(home, "find-entity", *args)
    assert found == ct_json(home, "entity", *args)
    assert found["documents"] and found["case"] == CASE
    (tool,) = mcp(home, ("find_entity", {"entity": "adicional de insalubridade", "top_k": 5}))
    assert tool == found
    assert ct(home, "find-entity", *args).stdout == ct(home, "entity", *args).stdout


def test_default_case_is_used_when_case_is_left_out(home: Path) -> None:
    try:
        no_case = ct(home, "documents", "list", ok=False)
        assert no_case.exit_code == 1 and NO_CASE in no_case.output
        assert ct_json(home, "case", "use") == {"default_case": None, "exists": False}
        said = ct(home, "case", "use", CASE.lower()).stdout  # any way a case is named
        assert f"The default case is now '{CASE}'" in said
        state = home / "cli.json"
        assert stat.S_IMODE(os.stat(state).st_mode) == 0o600
        assert json.loads(state.read_text())["default_case"]["name"] == CASE
        plain = ct(home, "documents", "list")
        assert f"Case: {CASE} (the default" in plain.stderr and LONG.name in plain.stdout
        quiet = ct(home, "documents", "list", "--json")
        assert quiet.stderr == "" and json.loads(quiet.stdout) == ct_json(
            home, "documents", "list", "--case", CASE
        )
        assert ct_json(home, "find-entity", "insalubridade")["case"] == CASE
        assert ct_json(home, "status")["case"]["name"] == CASE
        assert ct_json(home, "verify", "--quote", "adicional de insalubridade", "--document", SHORT.name)[
            "verdict"
        ]
        assert ct_json(home, "case", "use")["default_case"]["name"] == CASE
    finally:
        ct(home, "case", "use", "--clear")
    assert ct_json(home, "case", "use")["default_case"] is None
    assert NO_CASE in ct(home, "chunk", "x-1-00000", ok=False).output


def test_a_deleted_default_case_is_a_clear_error_with_the_fix(home: Path) -> None:
    try:
        ct(home, "case", "create", "Outro")
        ct(home, "case", "use", "Outro")
        app = CaseTrack(resolve_settings(home, home.parent / "models", environ={}))
        try:
            app.delete_case("Outro")  # as Claude's delete_case does: the CLI's default is left behind
        finally:
            app.close()
        gone = ct(home, "documents", "list", ok=False)
        assert gone.exit_code == 1 and "The default case 'Outro' no longer exists" in gone.output
        assert "casetrack case use NAME" in gone.output and "casetrack case use --clear" in gone.output
        assert ct_json(home, "case", "use") == {
            "default_case": {
                "id": json.loads((home / "cli.json").read_text())["default_case"]["id"],
                "name": "Outro",
            },
            "exists": False,
        }
        # Deleted from the CLI, the default goes with it.
        ct(home, "case", "create", "Terceiro")
        ct(home, "case", "use", "Terceiro")
        assert "It was the default case" in ct(home, "case", "delete", "Terceiro", "--yes").stdout
        assert ct_json(home, "case", "use")["default_case"] is None
    finally:
        ct(home, "case", "use", "--clear")


def test_jobs_without_a_daemon_say_where_jobs_live(home: Path) -> None:
    for args in (("jobs", "list"), ("jobs", "show", "abc"), ("jobs", "cancel", "abc")):
        r = ct(home, *args, ok=False)
        assert r.exit_code == 1, r.output
        assert "No CaseTrack daemon is running" in r.output and "casetrack daemon start" in r.output


def test_deletes_never_guess(home: Path, tmp_path: Path) -> None:
    # Issue 30: a fragment of a name deleted the one document it matched.
    ct(home, "case", "create", "Guess")
    memo = tmp_path / "secret-memo.txt"
    memo.write_text("Privileged strategy memo.\n", encoding="utf-8")
    ct(home, "ingest", "--case", "Guess", str(memo))
    refused = ct(home, "documents", "delete", "--case", "Guess", "memo", "--yes", ok=False)
    assert refused.exit_code != 0 and "Did you mean 'secret-memo.txt'" in refused.output
    assert 'casetrack case info "Guess"' in refused.output
    assert [d["name"] for d in ct_json(home, "documents", "list", "--case", "Guess")] == ["secret-memo.txt"]
    case_id = ct_json(home, "case", "info", "Guess")["id"]
    prefix = ct(home, "case", "delete", case_id[:7], "--yes", ok=False)
    assert prefix.exit_code != 0 and f"Did you mean 'Guess' (id {case_id})" in prefix.output
    assert ct_json(home, "case", "info", case_id)["name"] == "Guess"
    doc_id = ct_json(home, "documents", "list", "--case", "Guess")[0]["id"]
    assert (
        ct_json(home, "documents", "delete", "--case", "Guess", doc_id, "--yes")["deleted"]
        == "secret-memo.txt"
    )


def test_deletes_print_json(home: Path, tmp_path: Path) -> None:
    ct(home, "case", "create", "Quarto")
    note = tmp_path / "nota.txt"
    note.write_text("Nota de teste sobre o prazo de contestação.\n", encoding="utf-8")
    ct(home, "ingest", "--case", "Quarto", str(note))
    doc = ct_json(home, "documents", "list", "--case", "Quarto")[0]
    assert ct_json(home, "documents", "delete", "--case", "Quarto", "nota.txt", "--yes") == {
        "deleted": "nota.txt",
        "id": doc["id"],
        "case": "Quarto",
    }
    assert ct_json(home, "documents", "list", "--case", "Quarto") == []
    ct(home, "case", "use", "Quarto")
    case_id = ct_json(home, "case", "use")["default_case"]["id"]
    assert ct_json(home, "case", "delete", "Quarto", "--yes") == {
        "deleted": "Quarto",
        "id": case_id,
        "was_default": True,
    }
    assert ct_json(home, "case", "use")["default_case"] is None
