"""Claude's path, end to end: the SDK's MCP client over stdio against `casetrack serve`, which
starts the real daemon (real models, LanceDB, tantivy) for a private data directory.

Both protocol eras: the 2026-07-28 per-request envelope ("auto") and the `initialize` handshake
("legacy").
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import anyio
import pytest

from tests.conftest import DATA, require
from tests.daemon_util import daemon_stopped_after, data, finished, mcp_client, text

CUAD_PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
LENER_TXT = DATA / "lener_br/raw_text/RR474820145230056.txt"
DOCX = DATA / "docx/python-docx_tests/blk-paras-and-tables.docx"

READ_ONLY = {
    "get_page_view",
    "get_page_image",
    "list_cases",
    "get_case_info",
    "get_job",
    "list_documents",
    "get_document",
    "search_case",
    "get_chunk",
    "find_entity",
    "get_status",
    "verify_citation",
    "list_authorities",
    "build_chronology",
}
DESTRUCTIVE = {"delete_case", "delete_document"}
OPEN_WORLD = {"download_models"}  # the one tool that reaches past this computer (the model hub)


def test_tools_are_described_with_schemas_and_annotations(home: Path) -> None:
    async def main() -> None:
        async with mcp_client(home) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        assert READ_ONLY | DESTRUCTIVE | OPEN_WORLD <= set(tools)
        for name, tool in tools.items():
            assert tool.description and len(tool.description) > 30, name
            assert tool.output_schema is not None, name
            ann = tool.annotations
            assert ann is not None and ann.open_world_hint is (name in OPEN_WORLD), name
            assert ann.read_only_hint is (name in READ_ONLY), name
            assert ann.destructive_hint is (name in DESTRUCTIVE), name
        search = tools["search_case"].input_schema["properties"]
        assert search["top_k"]["minimum"] == 1 and search["top_k"]["maximum"] == 50
        assert {"query", "top_k", "document_filter", "case_name"} <= set(search)
        assert tools["delete_case"].input_schema["properties"]["confirm"]["default"] is False
        assert set(tools["list_cases"].input_schema["properties"]["status_filter"]["enum"]) == {
            "active",
            "closed",
            "archived",
            "all",
        }

    with daemon_stopped_after(home):
        anyio.run(main)


@pytest.mark.parametrize("mode", ["auto", pytest.param("legacy", marks=pytest.mark.slow)])
def test_case_ingest_search_chunk_delete(home: Path, tmp_path: Path, mode: str) -> None:
    folder = tmp_path / "matter"
    folder.mkdir()
    for src in (require(CUAD_PDF), require(LENER_TXT), require(DOCX)):
        shutil.copy(src, folder / src.name)

    async def main() -> None:
        async with mcp_client(home, mode) as client:
            # No active case: the error names the next step.
            miss = await client.call_tool("search_case", {"query": "termination"})
            assert miss.is_error and "No active case" in text(miss) and "create_case" in text(miss)

            created = data(
                await client.call_tool("create_case", {"name": "Hosting Dispute", "case_type": "contract"})
            )
            assert created["active"] is True and created["type"] == "contract"

            # One document, waited for, with progress notifications.
            notified: list[tuple[float, float | None, str | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                notified.append((progress, total, message))

            one = await client.call_tool(
                "ingest_document", {"file_path": str(folder / CUAD_PDF.name)}, progress_callback=on_progress
            )
            job = await finished(client, data(one), on_progress)
            assert job["status"] == "done" and job["results"][0]["status"] == "ingested", text(one)
            assert job["results"][0]["pages"] == 2
            assert notified and notified[-1][0] == 1 and notified[-1][1] == 1
            assert any(m and "embed" in m for _, _, m in notified)

            # A folder: the job id comes back at once, get_job follows it.
            start = time.monotonic()
            queued = data(await client.call_tool("ingest_folder", {"folder_path": str(folder)}))
            assert time.monotonic() - start < 10 and queued["status"] in ("queued", "running", "done")
            followed: list[tuple[float, float | None, str | None]] = []

            async def on_follow(done: float, total: float | None, message: str | None) -> None:
                followed.append((done, total, message))

            final = await finished(client, queued, on_follow, rounds=6, wait_seconds=30)
            statuses = sorted(r["status"] for r in final["results"])
            assert statuses == ["duplicate", "ingested", "ingested"], final
            assert followed and followed[-1][0] == 3

            docs = data(await client.call_tool("list_documents", {"sort_by": "name"}))["documents"]
            assert sorted(d["name"] for d in docs) == sorted([CUAD_PDF.name, LENER_TXT.name, DOCX.name])
            doc = data(await client.call_tool("get_document", {"document_name": "premium managed"}))
            assert doc["name"] == CUAD_PDF.name and doc["pages"] == 2

            # Search with citations, then the passage in full.
            found = await client.call_tool(
                "search_case", {"query": "monthly managed hosting fees", "top_k": 3}
            )
            out = data(found)
            top = out["results"][0]
            assert top["source"]["document"] == CUAD_PDF.name and top["citation"].startswith(
                f"{CUAD_PDF.name}, p. "
            )
            assert top["citation"] in text(found) and top["chunk_id"] in text(found)
            only_docx = data(
                await client.call_tool("search_case", {"query": "paragraph", "document_filter": DOCX.name})
            )
            assert {r["source"]["document"] for r in only_docx["results"]} == {DOCX.name}
            # `citation` is the pin-cite (the matched lines); the chunk's own range is chunk_citation.
            assert top["chunk_citation"].startswith(f"{CUAD_PDF.name}, p. ") and top["snippet"] in text(found)
            chunk = data(await client.call_tool("get_chunk", {"chunk_id": top["chunk_id"], "neighbours": 1}))
            assert chunk["text"] == top["text"] and chunk["citation"] == top["chunk_citation"]
            pinned = data(
                await client.call_tool(
                    "get_chunk",
                    {"chunk_id": top["chunk_id"], "neighbours": 0, "query": "monthly managed hosting fees"},
                )
            )
            assert pinned["citation"] == top["citation"] and pinned["chunk_citation"] == top["chunk_citation"]
            # Relevance a person can read, and "no good match" when nothing in the case answers.
            assert 0 < top["relevance"] <= 1 and top["match"] in ("exact", "strong", "good", "weak", "poor")
            assert out["no_good_match"] is False and "No good match" not in text(found)
            nonsense = await client.call_tool(
                "search_case", {"query": "recipe for chocolate cake with strawberries"}
            )
            assert data(nonsense)["no_good_match"] is True and "No good match" in text(nonsense)
            assert "relevance: " in text(found)
            bad_chunk = await client.call_tool("get_chunk", {"chunk_id": "nope-1-00000"})
            assert bad_chunk.is_error and "search_case" in text(bad_chunk)

            entity = data(await client.call_tool("find_entity", {"entity": "AstroNutrition.com"}))
            assert entity["documents"] and entity["documents"][0]["document"] == CUAD_PDF.name

            # Destructive tools need confirm=true.
            refused = await client.call_tool("delete_document", {"document_name": DOCX.name})
            assert refused.is_error and "confirm=true" in text(refused)
            data(await client.call_tool("delete_document", {"document_name": DOCX.name, "confirm": True}))
            docs = data(await client.call_tool("list_documents", {}))["documents"]
            assert DOCX.name not in {d["name"] for d in docs} and len(docs) == 2

            info = data(await client.call_tool("get_case_info", {}))
            assert info["document_count"] == 2 and info["storage_bytes"] > 0
            status = data(await client.call_tool("get_status", {}))
            assert status["active_case"] == "Hosting Dispute" and status["daemon"]["model_loads"] >= 1

            refused = await client.call_tool("delete_case", {"case_name": "Hosting Dispute"})
            assert refused.is_error and "confirm=true" in text(refused) and "2 documents" in text(refused)
            data(await client.call_tool("delete_case", {"case_name": "Hosting Dispute", "confirm": True}))
            assert data(await client.call_tool("list_cases", {"status_filter": "all"}))["cases"] == []
            gone = await client.call_tool("get_case_info", {})
            assert gone.is_error and "No active case" in text(gone)

    with daemon_stopped_after(home):
        anyio.run(main)


@pytest.mark.slow
def test_case_name_argument_and_status_changes(home: Path, tmp_path: Path) -> None:
    """A conversation need not depend on session state: every case tool takes case_name."""
    note = tmp_path / "nota.txt"
    note.write_text(
        "O contrato de locação foi rescindido em 3 de março de 2024 pela locatária.", encoding="utf-8"
    )

    async def main() -> None:
        async with mcp_client(home) as client:
            data(await client.call_tool("create_case", {"name": "Locação", "language": "pt"}))
            data(await client.call_tool("create_case", {"name": "Outro"}))
            job = await finished(
                client,
                data(
                    await client.call_tool(
                        "ingest_document", {"file_path": str(note), "case_name": "Locação"}
                    )
                ),
            )
            assert job["status"] == "done" and job["case_name"] == "Locação"
            hits = data(
                await client.call_tool(
                    "search_case", {"query": "rescisão do contrato", "case_name": "locação"}
                )
            )
            assert hits["results"] and hits["case"] == "Locação"
            empty = data(await client.call_tool("search_case", {"query": "rescisão"}))  # active case: Outro
            assert empty["case"] == "Outro" and empty["results"] == []
            typo = await client.call_tool("switch_case", {"case_name": "Locacao x"})
            assert typo.is_error and "list_cases" in text(typo)

            closed = data(
                await client.call_tool("set_case_status", {"case_name": "Locação", "status": "closed"})
            )
            assert closed["status"] == "closed"
            blocked = await client.call_tool(
                "ingest_document", {"file_path": str(note), "case_name": "Locação"}
            )
            assert blocked.is_error and "set_case_status" in text(blocked)
            listed = data(await client.call_tool("list_cases", {}))
            assert [c["name"] for c in listed["cases"]] == ["Outro"]
            missing = await client.call_tool("ingest_document", {"file_path": str(tmp_path / "nope.pdf")})
            assert missing.is_error and "File not found" in text(missing)

    with daemon_stopped_after(home):
        anyio.run(main)


@pytest.mark.slow
def test_a_scan_through_claude_ocr_confidence_bates_and_page_progress(home: Path, tmp_path: Path) -> None:
    from tests.pdf_maker import page_images, scanned_pdf, text_pdf

    pages = [
        [f"Page {n} of the production.", f"The witness described delivery number {n} of the turbines."]
        for n in range(1, 4)
    ]
    native = text_pdf(tmp_path / "src.pdf", pages, stamps=[f"ACME000120{n}" for n in range(1, 4)])
    scan = scanned_pdf(tmp_path / "production.pdf", page_images(native, dpi=300))

    async def main() -> None:
        async with mcp_client(home) as client:
            data(await client.call_tool("create_case", {"name": "Turbines", "case_type": "contract"}))
            notified: list[tuple[float, float | None, str | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                notified.append((progress, total, message))

            job = await finished(
                client,
                data(
                    await client.call_tool(
                        "ingest_document", {"file_path": str(scan)}, progress_callback=on_progress
                    )
                ),
                on_progress,
            )
            result = job["results"][0]
            assert result["status"] == "ingested" and result["ocr_pages"] == [1, 2, 3], job
            # Page by page: the bar moves inside the one file, and the message names the page.
            assert any(0 < done < 1 for done, _, _ in notified), notified
            assert any(m and "parse 2/3" in m for _, _, m in notified), notified
            found = await client.call_tool("search_case", {"query": "delivery number 2 of the turbines"})
            hit = data(found)["results"][0]
            assert hit["source"]["extraction_method"] == "ocr" and hit["source"]["ocr_confidence"] > 80
            assert hit["source"]["page"] == 2 and hit["citation"].endswith("(ACME0001202)")
            assert "OCR, confidence" in text(found)
            ranged = data(
                await client.call_tool("search_case", {"query": "turbines", "bates": "ACME0001203"})
            )
            assert {r["source"]["page"] for r in ranged["results"]} == {3}
            doc = await client.call_tool("get_document", {"document_name": "production.pdf"})
            details = data(doc)
            assert details["ocr_pages"] == [1, 2, 3] and set(details["page_ocr_confidence"]) == {
                "1",
                "2",
                "3",
            }
            assert details["bates"] == ["ACME0001201", "ACME0001203"] and "Bates:" in text(doc)

    with daemon_stopped_after(home):
        anyio.run(main)
