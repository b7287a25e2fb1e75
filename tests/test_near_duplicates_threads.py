"""Near-duplicates, e-mail threads and Outlook .msg at ingest (issue 29), through the real CLI and
the MCP in-memory client over a real Service: a real ContractNLI NDA (../shared/data/
legal_span_bench) and a one-word edit of it, a real .msg (tests/fixtures/msg) and replies written
here. Slow tier: every model embeds the documents, the .msg's picture is OCR'd, and each CLI call
loads its models in-process (the threshold itself is measured on real near-twins in
bench/near_duplicates.py; tests/test_quote_similar.py has the fast checks)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from casetrack.daemon.service import Service
from tests.cli_runner import run_json
from tests.conftest import DATA, MODELS, require
from tests.mcp_tools import Host, data, text, tool_settings

pytestmark = pytest.mark.slow  # ~4 min on 2 shared cores (2 of them ingesting 5 files with every model)

NDAS = DATA / "legal_span_bench" / "corpus" / "contractnli"
ORIGINAL, EDITED = "Basic-Non-Disclosure-Agreement.txt", "Basic-NDA-edited.txt"
MSG = Path(__file__).parent / "fixtures" / "msg" / "plain_jpeg_attached.msg"
CASE = "Twins"


def _reply(folder: Path) -> Path:
    """A reply to the .msg (its Message-ID in In-Reply-To), and a reply to that one by subject only."""
    first = EmailMessage()
    first["From"] = "matijs@xxxxxx.nl"
    first["To"] = "Matijs van Zuijlen <Matijs.van.Zuijlen@xs4all.nl>"
    first["Date"] = "Tue, 25 Sep 2007 09:00:00 +0200"
    first["Subject"] = "Re: test"
    first["Message-ID"] = "<reply-1@xxxxxx.nl>"
    first["In-Reply-To"] = "<20070924132803.GB10141@matijs.net>"
    first.set_content("Got the picture, thanks.\n")
    (folder / "reply.eml").write_bytes(first.as_bytes())
    second = EmailMessage()
    second["From"] = "Matijs van Zuijlen <Matijs.van.Zuijlen@xs4all.nl>"
    second["To"] = "matijs@xxxxxx.nl"
    second["Date"] = "Wed, 26 Sep 2007 10:00:00 +0200"
    second["Subject"] = "RE: Re: test"  # saved without its In-Reply-To: joins by subject and sender
    second.set_content("Good.\n")
    (folder / "reply2.eml").write_bytes(second.as_bytes())
    return folder


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("twins")
    files = root / "files"
    files.mkdir()
    for name in (ORIGINAL,):
        shutil.copy(require(NDAS / name), files / name)
    original = (files / ORIGINAL).read_text(encoding="utf-8")
    assert " confidential " in original
    (files / EDITED).write_text(original.replace(" confidential ", " secret ", 1), encoding="utf-8")
    shutil.copy(MSG, files / MSG.name)
    _reply(files)
    cli = ["--data-dir", str(root / "home"), "--models-dir", str(MODELS)]
    run_json(*cli, "case", "create", CASE, "--language", "en")
    order = [ORIGINAL, EDITED, MSG.name, "reply.eml", "reply2.eml"]
    report = run_json(*cli, "ingest", "--case", CASE, *[str(files / n) for n in order])
    return {
        "cli": cli,
        "files": files,
        "home": root / "home",
        "results": {r["name"]: r for r in report["files"]},
    }


def test_the_ingest_report_names_the_document_a_file_nearly_copies(case: dict[str, Any]) -> None:
    results = case["results"]
    assert all(r["status"] == "ingested" for r in results.values()), results
    one_word = results[EDITED]["near_duplicate_of"]
    assert (one_word["name"], one_word["words_changed"], one_word["lines_changed"]) == (ORIGINAL, 1, 1)
    assert 0.99 < one_word["similarity"] < 1.0
    assert results[ORIGINAL]["near_duplicate_of"] is None
    assert results[MSG.name]["near_duplicate_of"] is None


def test_documents_list_shows_groups_or_hides_near_duplicates(case: dict[str, Any]) -> None:
    cli = case["cli"]
    shown = {d["name"]: d for d in run_json(*cli, "documents", "list", "--case", CASE, "--sort", "name")}
    assert shown[EDITED]["near_duplicate_of"]["name"] == ORIGINAL
    assert [c["name"] for c in shown[ORIGINAL]["near_duplicates"]] == [EDITED]
    grouped = [
        d["name"]
        for d in run_json(
            *cli, "documents", "list", "--case", CASE, "--sort", "name", "--near-duplicates", "group"
        )
    ]
    assert grouped.index(EDITED) == grouped.index(ORIGINAL) + 1
    hidden = {
        d["name"] for d in run_json(*cli, "documents", "list", "--case", CASE, "--hide-near-duplicates")
    }
    assert EDITED not in hidden and ORIGINAL in hidden and MSG.name in hidden


def test_search_hides_or_groups_near_duplicates(case: dict[str, Any]) -> None:
    cli = case["cli"]
    query = [
        "search",
        "--case",
        CASE,
        "obligations of the receiving party to keep information confidential",
        "--top-k",
        "20",
    ]
    every = {r["source"]["document"] for r in run_json(*cli, *query)["results"]}
    assert {ORIGINAL, EDITED} <= every
    hidden = {r["source"]["document"] for r in run_json(*cli, *query, "--hide-near-duplicates")["results"]}
    assert EDITED not in hidden and ORIGINAL in hidden
    grouped = run_json(*cli, *query, "--near-duplicates", "group")["results"]
    docs = [r["source"]["document"] for r in grouped]
    assert EDITED not in docs and ORIGINAL in docs  # one result per family: the original's ranks first here
    assert any(EDITED in (r.get("near_duplicates") or []) for r in grouped)


def test_an_outlook_msg_is_an_email_in_a_thread_with_its_replies(case: dict[str, Any]) -> None:
    cli = case["cli"]
    msg = case["results"][MSG.name]
    assert msg["file_type"] == "email" and [a["name"] for a in msg["attachments"]] == [
        f"{MSG.name} › test.jpg"
    ]
    info = run_json(*cli, "documents", "info", "--case", CASE, "reply2.eml")
    assert [m["name"] for m in info["thread"]] == [MSG.name, "reply.eml", "reply2.eml"]  # oldest first
    assert info["thread"][0]["subject"] == "test"
    details = run_json(*cli, "documents", "info", "--case", CASE, MSG.name)
    assert details["file_type"] == "email" and details["fields"]["subject"] == "test"
    # its attachment, a grey gradient with no text, is tried as a document of its own: OCR reads nothing
    assert msg["attachments"][0]["status"] in ("ingested", "needs_ocr")
    assert run_json(*cli, "documents", "info", "--case", CASE, ORIGINAL)["thread"] == []


@pytest.fixture(scope="module")
def host(case: dict[str, Any]) -> Iterator[Host]:
    service = Service(tool_settings(case["home"], case["files"]))
    service.start()
    try:
        yield Host(service, case["files"], case["home"])
    finally:
        service.close()


def test_mcp_tools_take_near_duplicates_and_show_the_thread(host: Host) -> None:
    tools = host.tools()
    assert tools["list_documents"].input_schema["properties"]["near_duplicates"]["enum"] == [
        "show",
        "group",
        "hide",
    ]
    assert "near_duplicates" in tools["search_case"].input_schema["properties"]
    listed = host.call("list_documents", {"case_name": CASE, "near_duplicates": "hide"})
    assert EDITED not in {d["name"] for d in data(listed)["documents"]}
    shown = host.call("list_documents", {"case_name": CASE})
    assert f"Near-duplicate of {ORIGINAL} (" in text(shown)
    found = host.call(
        "search_case",
        {
            "case_name": CASE,
            "query": "receiving party keep information confidential",
            "top_k": 20,
            "near_duplicates": "group",
        },
    )
    assert EDITED not in {r["source"]["document"] for r in data(found)["results"]}
    assert f"Also in its near-duplicates: {EDITED}" in text(found)
    reply = host.call("get_document", {"case_name": CASE, "document_name": "reply.eml"})
    assert [m["name"] for m in data(reply)["thread"]] == [MSG.name, "reply.eml", "reply2.eml"]
    assert "Thread:     3 messages" in text(reply)
