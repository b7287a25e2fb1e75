"""E-mails through the whole pipeline (issue 17, item 4): `ingest-folder` of .eml files and a mailbox
built here with the stdlib, a real PDF and DOCX attached; the links in `documents list --json`;
header filters and citations in `search`; re-ingest, delete; and one real MCP client."""

from __future__ import annotations

import io
import json
import zipfile
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run, run_json
from tests.conftest import DATA, MODELS, require

PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
DOCX = DATA / "docx/python-docx_tests/blk-paras-and-tables.docx"
XLSX_TYPE = "vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DOCX_TYPE = "vnd.openxmlformats-officedocument.wordprocessingml.document"


def xlsx_stand_in() -> bytes:
    """Just enough of a workbook for CaseTrack to recognise one (and refuse it)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "[Content_Types].xml",
            '<Types><Override ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.sheet.main+xml"/></Types>',
        )
        z.writestr("xl/workbook.xml", "<workbook/>")
    return buf.getvalue()


def mail(sender: str, to: str, date: str, subject: str, body: str, html: bool = False) -> EmailMessage:
    m = EmailMessage()
    m["From"], m["To"], m["Date"], m["Subject"] = sender, to, date, subject
    m["Message-ID"] = f"<{abs(hash((subject, date)))}@test>"
    m.set_content(body, subtype="html" if html else "plain")
    return m


def build_inbox(folder: Path) -> None:
    folder.mkdir()
    contract = mail(
        "Alice Smith <alice@firm.com>",
        "Bob Jones <bob@client.com>",
        "Mon, 04 Mar 2024 10:15:00 -0500",
        "Hosting agreement for signature",
        "Bob,\n\nAttached is the premium managed hosting agreement for signature.\n"
        "The quarterly uptime credits are in the schedule.\n\nAlice\n",
    )
    contract.add_attachment(
        require(PDF).read_bytes(), maintype="application", subtype="pdf", filename="hosting.pdf"
    )
    contract.add_attachment(
        require(DOCX).read_bytes(), maintype="application", subtype=DOCX_TYPE, filename="notes.docx"
    )
    contract.add_attachment(
        xlsx_stand_in(), maintype="application", subtype=XLSX_TYPE, filename="damages.xlsx"
    )
    (folder / "contract.eml").write_bytes(contract.as_bytes())

    notice = mail(
        "Carol White <carol@client.com>",
        "alice@firm.com",
        "Fri, 10 May 2024 16:00:00 +0000",
        "Notice of default",
        "<html><body><p>Dear Alice,</p><p>The tenant failed to pay the rent due "
        "on 1 May. This is formal notice of default under section 12.</p></body></html>",
        html=True,
    )
    (folder / "notice.eml").write_bytes(notice.as_bytes())

    box = b""
    for day, subject, body in (
        (1, "Kickoff meeting", "The kickoff meeting is on Monday in the boardroom."),
        (2, "Budget approval", "The litigation budget was approved by the board."),
        (3, "Witness list", "Attached is the witness list for the arbitration."),
    ):
        m = mail(
            "Dave Brown <dave@firm.com>",
            "Erin Green <erin@firm.com>",
            f"Wed, 0{day} Nov 2023 09:00:00 +0000",
            subject,
            body,
        )
        if day == 3:
            m.add_attachment(
                "1. Frank Miller, site engineer\n2. Grace Lee, project manager\n", filename="witnesses.txt"
            )
        box += b"From dave@firm.com Wed Nov  1 09:00:00 2023\n" + m.as_bytes() + b"\n"
    (folder / "archive.mbox").write_bytes(box)

    (folder / "broken.eml").write_bytes(b"This file was cut short before any header was written.\n")


@pytest.fixture(scope="module")
def inbox(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("email")
    build_inbox(root / "inbox")
    home = root / "home"
    base = ("--data-dir", str(home), "--models-dir", str(MODELS))
    run(*base, "case", "create", "Mail")
    result = run(*base, "ingest-folder", "--case", "Mail", str(root / "inbox"), "--json", ok=False)
    return {
        "root": root,
        "base": base,
        "exit": result.exit_code,
        "report": json.loads(result.stdout),
        "home": home,
    }


def by_name(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {i["name"]: i for i in items}


def test_ingest_folder_report(inbox: dict[str, Any]) -> None:
    assert inbox["exit"] == 3  # broken.eml failed; the rest of the batch went on
    files = by_name(inbox["report"]["files"])
    assert set(files) == {"archive.mbox", "broken.eml", "contract.eml", "notice.eml"}
    broken = files["broken.eml"]
    assert broken["status"] == "error" and broken["error_code"] == "corrupt"
    assert "does not look like an e-mail" in broken["error"] and "Save the message again" in broken["hint"]

    contract = files["contract.eml"]
    assert (
        contract["status"] == "ingested"
        and contract["file_type"] == "email"
        and contract["doc_type"] == "email"
    )
    assert contract["doc_date"] == "2024-03-04"
    parts = by_name(contract["attachments"])
    assert set(parts) == {
        "contract.eml › hosting.pdf",
        "contract.eml › notes.docx",
        "contract.eml › damages.xlsx",
    }
    assert (
        parts["contract.eml › hosting.pdf"]["status"] == "ingested"
        and parts["contract.eml › hosting.pdf"]["pages"] == 2
    )
    assert parts["contract.eml › notes.docx"]["status"] == "ingested"
    assert parts["contract.eml › damages.xlsx"]["error_code"] == "unsupported"
    assert [
        w for w in contract["warnings"] if w.startswith("attachment damages.xlsx not ingested: unsupported")
    ]

    box = files["archive.mbox"]
    assert box["status"] == "ingested" and box["file_type"] == "mbox"
    messages = by_name(box["messages"])
    assert set(messages) == {
        "archive.mbox › 2023-11-01 Kickoff meeting",
        "archive.mbox › 2023-11-02 Budget approval",
        "archive.mbox › 2023-11-03 Witness list",
    }
    witness = messages["archive.mbox › 2023-11-03 Witness list"]
    assert [a["name"] for a in witness["attachments"]] == [
        "archive.mbox › 2023-11-03 Witness list › witnesses.txt"
    ]
    assert not (next((inbox["home"] / "cases").iterdir()) / "attachments.tmp").exists()  # scratch copies gone


def test_documents_list_json_shows_the_links(inbox: dict[str, Any]) -> None:
    docs = by_name(run_json(*inbox["base"], "documents", "list", "--case", "Mail"))
    assert len(docs) == 8  # contract.eml and 2 attachments, notice.eml, 3 messages and 1 attachment
    email = docs["contract.eml"]
    assert email["file_type"] == "email" and email["attachment_of"] is None
    assert [a["name"] for a in email["attachments"]] == [
        "contract.eml › hosting.pdf",
        "contract.eml › notes.docx",
    ]
    pdf = docs["contract.eml › hosting.pdf"]
    assert pdf["attachment_of"] == {"document_id": email["document_id"], "name": "contract.eml"}
    assert pdf["file_type"] == "pdf" and pdf["pages"] == 2 and pdf["attachments"] == []
    assert pdf["source_path"] == email["source_path"] and email["source_path"].endswith("contract.eml")
    assert docs["archive.mbox › 2023-11-02 Budget approval"]["doc_type"] == "email"


def search(inbox: dict[str, Any], query: str, *filters: str) -> list[dict[str, Any]]:
    out = run_json(*inbox["base"], "search", "--case", "Mail", query, *filters)
    return list(out["results"])


def test_header_filters(inbox: dict[str, Any]) -> None:
    alice = {
        r["source"]["document"]
        for r in search(inbox, "hosting agreement uptime", "--field", "from=alice@firm.com")
    }
    assert alice and alice <= {"contract.eml", "contract.eml › hosting.pdf", "contract.eml › notes.docx"}
    assert "contract.eml › hosting.pdf" in alice  # an attachment answers to its e-mail's sender
    carol = {
        r["source"]["document"] for r in search(inbox, "notice of default", "--field", "from=Carol White")
    }
    assert carol == {"notice.eml"}
    assert not search(inbox, "notice of default", "--field", "from=nobody@firm.com")
    recent = {
        r["source"]["document"]
        for r in search(
            inbox, "meeting budget notice agreement", "--doc-type", "email", "--date-from", "2024-01-01"
        )
    }
    assert recent and recent <= {"contract.eml", "notice.eml"}
    older = {
        r["source"]["document"]
        for r in search(
            inbox, "budget approved by the board", "--doc-type", "email", "--date-to", "2023-12-31"
        )
    }
    assert "archive.mbox › 2023-11-02 Budget approval" in older and older <= {
        "archive.mbox › 2023-11-01 Kickoff meeting",
        "archive.mbox › 2023-11-02 Budget approval",
        "archive.mbox › 2023-11-03 Witness list",
    }


def test_the_sender_and_the_body_are_cited_by_their_lines(inbox: dict[str, Any]) -> None:
    hits = search(inbox, "formal notice of default under section 12")
    top = hits[0]["source"]
    assert top["document"] == "notice.eml" and top["page"] is None
    assert (top["line_start"], top["line_end"]) == (
        7,
        7,
    )  # headers 1-4, blank 5, "Dear Alice," 6 (HTML: no blanks)
    sender = search(inbox, "Carol White carol@client.com", "--doc-type", "email")[0]
    assert sender["source"]["document"] == "notice.eml" and sender["source"]["line_start"] == 1


def test_ingesting_again_adds_nothing_and_force_replaces_in_place(inbox: dict[str, Any]) -> None:
    before = by_name(run_json(*inbox["base"], "documents", "list", "--case", "Mail"))
    again = run_json(
        *inbox["base"], "ingest", "--case", "Mail", str(inbox["root"] / "inbox" / "contract.eml")
    )
    assert [f["status"] for f in again["files"]] == ["duplicate"]
    forced = run_json(
        *inbox["base"], "ingest", "--case", "Mail", str(inbox["root"] / "inbox" / "contract.eml"), "--force"
    )["files"][0]
    assert forced["status"] == "replaced"
    assert [a["status"] for a in forced["attachments"]] == ["replaced", "replaced", "error"]
    after = by_name(run_json(*inbox["base"], "documents", "list", "--case", "Mail"))
    assert {n: d["document_id"] for n, d in after.items()} == {n: d["document_id"] for n, d in before.items()}


def test_mcp_search_with_header_filters_and_the_links(inbox: dict[str, Any]) -> None:
    import anyio
    from mcp import Client

    from casetrack.config import resolve_settings
    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server

    async def calls() -> tuple[Any, Any]:
        service = Service(resolve_settings(inbox["home"], MODELS, environ={}))
        try:
            async with Client(build_server(service, SessionState())) as client:
                found = await client.call_tool(
                    "search_case",
                    {
                        "case_name": "Mail",
                        "query": "witness list arbitration",
                        "doc_type": "email",
                        "field": "to=erin@firm.com",
                    },
                )
                listed = await client.call_tool("list_documents", {"case_name": "Mail"})
                return found, listed
        finally:
            service.close()

    found, listed = anyio.run(calls)
    assert not found.is_error and not listed.is_error
    names = {r["source"]["document"] for r in found.structured_content["results"]}
    assert "archive.mbox › 2023-11-03 Witness list" in names and all(
        n.startswith("archive.mbox › ") for n in names
    )
    docs = by_name(listed.structured_content["documents"])
    txt = docs["archive.mbox › 2023-11-03 Witness list › witnesses.txt"]
    assert txt["attachment_of"]["name"] == "archive.mbox › 2023-11-03 Witness list"


def test_deleting_an_email_deletes_its_attachments(inbox: dict[str, Any]) -> None:
    out = run(*inbox["base"], "documents", "delete", "--case", "Mail", "contract.eml", "--yes")
    assert "Deleted 'contract.eml'" in out.output
    left = set(by_name(run_json(*inbox["base"], "documents", "list", "--case", "Mail")))
    assert not {n for n in left if n.startswith("contract.eml")}
    assert "notice.eml" in left and "archive.mbox › 2023-11-03 Witness list › witnesses.txt" in left
