"""The paralegal's path through the real CLI: cases, ingest (PDF, DOCX, TXT), search, dedup.

Real parsers, real LanceDB and tantivy, the real E1 ONNX model from ../shared/models.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from casetrack.cli.main import cli
from casetrack.search.ranking.relevance import NO_GOOD_MATCH
from tests.conftest import DATA, require

CUAD_PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
LENER_TXT = DATA / "lener_br/raw_text/RR474820145230056.txt"
DOCX = DATA / "docx/python-docx_tests/blk-paras-and-tables.docx"
CITATION = re.compile(r"^.+, (p\. \d+, )?paras?\. \d+(-\d+)?(, ll?\. \d+(-\d+)?)?$")


def run(*args: str, ok: bool = True) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def run_json(*args: str) -> Any:
    return json.loads(run(*args, "--json").stdout)


@pytest.fixture
def case() -> str:
    run("case", "create", "Hosting Dispute", "--type", "contract")
    return "Hosting Dispute"


def test_case_lifecycle() -> None:
    created = run_json("case", "create", "Smith v. Jones", "--language", "pt")
    assert created["language"] == "pt" and created["status"] == "active"
    assert [c["name"] for c in run_json("case", "list")] == ["Smith v. Jones"]
    miss = run("case", "info", "Smith v Jone", ok=False)
    assert miss.exit_code == 1 and "Did you mean 'Smith v. Jones'" in miss.stderr
    refused = run("case", "delete", "Smith v. Jones", ok=False)
    assert "--yes" in refused.stderr
    run("case", "delete", "Smith v. Jones", "--yes")
    assert run_json("case", "list") == []


def test_ingest_pdf_docx_txt_and_search_with_citations(case: str, tmp_path: Path) -> None:
    files = [require(CUAD_PDF), require(LENER_TXT), require(DOCX)]
    report = json.loads(run("ingest", "--case", case, *map(str, files), "--json").stdout)
    by_name = {f["name"]: f for f in report["files"]}
    assert report["summary"]["ingested"] == 3, report
    pdf = by_name[CUAD_PDF.name]
    assert pdf["file_type"] == "pdf" and pdf["pages"] == 2 and pdf["chunks"] >= 2
    assert by_name[LENER_TXT.name]["file_type"] == "text"
    assert by_name[DOCX.name]["file_type"] == "docx"

    out = run_json("search", "--case", case, "termination of the hosting agreement", "--top-k", "5")
    assert set(out) >= {"query", "case", "results", "timings_ms"}
    assert out["case"] == case and 1 <= len(out["results"]) <= 5
    top = out["results"][0]
    assert set(top) >= {"chunk_id", "text", "score", "citation", "source"}
    assert set(top["source"]) >= {
        "document",
        "document_id",
        "page",
        "paragraph_start",
        "paragraph_end",
        "line_start",
        "line_end",
        "char_start",
        "char_end",
        "extraction_method",
    }
    assert top["source"]["document"] == CUAD_PDF.name and top["source"]["page"] in (1, 2)
    assert CITATION.match(top["citation"]), top["citation"]
    assert top["citation"].startswith(f"{CUAD_PDF.name}, p. {top['source']['page']}, para")
    # `citation`/`source` pin the matched lines inside the chunk; chunk_citation/chunk_source span it.
    assert CITATION.match(top["chunk_citation"]) and top["chunk_source"]["page"] == top["source"]["page"]
    assert top["chunk_source"]["char_start"] <= top["source"]["char_start"] < top["source"]["char_end"]
    assert top["source"]["char_end"] <= top["chunk_source"]["char_end"]
    assert top["source"]["line_end"] - top["source"]["line_start"] <= 12
    shown = run_json(
        "chunk", "--case", case, top["chunk_id"], "--query", "termination of the hosting agreement"
    )
    assert shown["citation"] == top["citation"] and shown["chunk_citation"] == top["chunk_citation"]
    assert run_json("chunk", "--case", case, top["chunk_id"])["citation"] == top["chunk_citation"]
    human = run(
        "chunk", "--case", case, top["chunk_id"], "--query", "termination of the hosting agreement"
    ).stdout
    assert top["citation"] in human and f"passage: {top['chunk_citation']}" in human

    # Portuguese query finds the Portuguese document; --document restricts the search.
    pt = run_json("search", "--case", case, "recurso de revista", "--document", LENER_TXT.name)
    assert pt["results"] and {r["source"]["document"] for r in pt["results"]} == {LENER_TXT.name}
    assert pt["results"][0]["source"]["page"] is None  # plain text has no pages

    # DOCX citations stop at the paragraph: its "lines" are not the lines Word shows.
    docx = run_json("search", "--case", case, "table", "--document", DOCX.name)["results"]
    assert docx and all(", l" not in r["citation"] and ", para" in r["citation"] for r in docx)

    # A pasted passage (line breaks, curly quotes and a typo) finds its own lines first.
    pasted = " ".join(top["snippet"].split()[:25]).replace("the", "teh", 1)
    first = run_json("search", "--case", case, pasted)["results"][0]
    assert first["match"] == "exact" and first["source"]["document"] == CUAD_PDF.name
    assert first["source"]["page"] == top["source"]["page"]
    # Nothing in the case says this: the CLI says so, and --json carries the flag.
    nonsense = run_json("search", "--case", case, "recipe for chocolate cake with strawberries")
    assert nonsense["no_good_match"] is True and all(
        r["relevance"] < NO_GOOD_MATCH for r in nonsense["results"]
    )
    assert (
        "No good match" in run("search", "--case", case, "recipe for chocolate cake with strawberries").stdout
    )
    assert out["no_good_match"] is False and top["relevance"] >= NO_GOOD_MATCH

    miss = run("search", "--case", case, "anything", "--document", "Hostng Agrement", ok=False)
    assert "No document named" in miss.stderr


def test_duplicates_force_and_changed_file(case: str, tmp_path: Path) -> None:
    doc = tmp_path / "memo.txt"
    doc.write_text(
        "The lessee must pay rent on the first day of each month.\n\nLate fees apply after five days.\n"
    )
    first = run_json("ingest", "--case", case, str(doc))
    assert first["files"][0]["status"] == "ingested"
    copy = tmp_path / "copy-of-memo.txt"
    shutil.copy(doc, copy)
    dup = run_json("ingest", "--case", case, str(copy))
    assert dup["files"][0]["status"] == "duplicate" and dup["files"][0]["duplicate_of"] == "memo.txt"
    forced = run_json("ingest", "--case", case, str(doc), "--force")
    assert forced["files"][0]["status"] == "replaced"

    doc.write_text("The tenant must pay rent on the tenth day of each month.\n")
    changed = run_json("ingest", "--case", case, str(doc))
    assert changed["files"][0]["status"] == "replaced"
    info = run_json("case", "info", case)
    assert [d["name"] for d in info["documents"]] == ["memo.txt"]
    hits = run_json("search", "--case", case, "tenth day", "--top-k", "3")["results"]
    assert hits and "tenth" in hits[0]["text"]
    assert not any("first day" in h["text"] for h in hits)


def test_folder_with_bad_files_goes_on(case: str, tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "empty.pdf").write_bytes(b"")
    (folder / "junk.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 20)
    (folder / "notes.txt").write_text("Deposition of the witness scheduled for May 4.\n")
    (folder / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    shutil.copy(
        require(DATA / "pdf_robustness/pdfplumber_tests/pdfs/password-example.pdf"), folder / "locked.pdf"
    )
    result = run("ingest-folder", "--case", case, str(folder), "--json", ok=False)
    assert result.exit_code == 3
    report = json.loads(result.stdout)
    status = {f["name"]: f for f in report["files"]}
    assert status["notes.txt"]["status"] == "ingested"
    assert status["empty.pdf"]["error_code"] == "empty"
    assert status["junk.pdf"]["status"] == "error"
    assert status["old.doc"]["status"] == "error" and ".docx" in status["old.doc"]["hint"]
    assert status["locked.pdf"]["error_code"] == "encrypted" and "--password" in status["locked.pdf"]["hint"]
    unlocked = run_json("ingest", "--case", case, str(folder / "locked.pdf"), "--password", "test")
    assert unlocked["files"][0]["status"] == "ingested"


def test_demo_runs_on_bundled_samples() -> None:
    result = run("demo")
    assert "services_agreement.txt" in result.output
    assert "ninety (90) days" in result.output
