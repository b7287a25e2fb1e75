"""The page view (issue 28) on real files: the highlight boxes land on the cited lines (checked
against poppler's word boxes, another PDF engine), text documents are laid out with their line
numbers, citation strings resolve, a moved original falls back to text with the fix, the MCP
tools declare the view and serve the page, and `casetrack show --out` draws the highlight over the
cited lines' pixels.

Real CUAD and US court PDFs, a DOCX from ../shared/data, a deposition transcript made on the spot;
the real E1 model. The OCR pages and the browser are in tests/test_page_view_browser.py (slow).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from PIL import Image

from bench.page_view import poppler_words, score_cite
from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
from casetrack.view.page import page_rows, stored_page
from casetrack.view.targets import ViewRequest, clean_citation
from tests.conftest import DATA, MODELS, require
from tests.transcript_maker import deposition_pdf

CASE = "Views"
CUAD_PDF = (
    DATA
    / "legal_span_bench/cuad_pdf/Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
)
OPINION_PDF = DATA / "legal_docs_us_courts/recap_documents/ca2_1-1.pdf"
DOCX = DATA / "legal_docs_us_courts/word-docx.docx"


def settings_for(root: Path) -> Any:
    models = root / "models"
    models.mkdir(exist_ok=True)
    link = models / "multilingual-e5-small-enpt"
    if not link.exists():
        link.symlink_to(MODELS / "multilingual-e5-small-enpt", target_is_directory=True)
    return resolve_settings(root / "home", models, environ={})


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CaseTrack, Path, dict[str, Path]]]:
    root = tmp_path_factory.mktemp("views")
    files = {p.name: require(p) for p in (CUAD_PDF, OPINION_PDF, DOCX)}
    depo = deposition_pdf(root / "Smith_depo.pdf")
    files[depo.name] = depo
    app = CaseTrack(settings_for(root))
    app.create_case(CASE, "contract", "en")
    results = app.ingest(CASE, list(files.values()))
    assert [r.status for r in results] == ["ingested"] * len(files), [r.error for r in results]
    yield app, root, files
    app.close()


def doc_id(app: CaseTrack, name: str) -> str:
    with app.reading(CASE) as store:
        return next(e.doc_id for e in store.documents() if e.name == name)


def test_highlights_cover_the_cited_lines_and_no_other(
    built: tuple[CaseTrack, Path, dict[str, Path]],
) -> None:
    """Every third line of every page of a contract, a court opinion and a transcript, cited in
    runs of one to three lines: each highlight holds its lines' words (as poppler finds them) and
    touches no other line's."""
    app, _root, files = built
    scored = on_target = 0
    for name in (CUAD_PDF.name, OPINION_PDF.name, "Smith_depo.pdf"):
        did = doc_id(app, name)
        with app.reading(CASE) as store:
            entry = next(e for e in store.documents() if e.doc_id == did)
            pages = int(entry.meta["page_count"])
            stored = [stored_page(page_rows(store, entry, i)) for i in range(pages)]
        for index, page in enumerate(stored):
            if page is None:
                continue
            words = poppler_words(files[name], index + 1)[0]
            for first in range(0, len(page.lines), 3):
                last = min(first + first % 3 + (first // 3) % 3, len(page.lines) - 1)
                request = ViewRequest(
                    document=did,
                    page_index=index,
                    char_start=page.lines[first].start,
                    char_end=page.lines[last].end,
                )
                view = app.page_view(CASE, request)
                assert view.kind == "image" and view.boxes_from == "text_layer", view.warnings
                assert [ln.number for ln in view.lines if ln.cited] == [
                    ln.number for ln in page.lines[first : last + 1]
                ]
                measurable, stray, missed = score_cite(
                    [(ln.text, ln.cited) for ln in view.lines],
                    [list(b.rounded()) for b in view.highlights],
                    words,
                )
                if not measurable:
                    continue
                scored += 1
                on_target += not stray and not missed
                assert not stray, f"{name} p. {index + 1}: a highlight covers another line"
    assert scored >= 40
    assert on_target / scored >= 0.98, (on_target, scored)


def test_transcript_page_shows_bates_and_resolves_its_own_cite(
    built: tuple[CaseTrack, Path, dict[str, Path]],
) -> None:
    app, _root, _files = built
    found = app.search(CASE, "where were you employed", top_k=3, documents=["Smith_depo.pdf"])
    hit = found.hits[0]
    p = hit.provenance
    assert p.is_transcript and p.bates
    cite = p.citation()  # "Smith Dep. 45:3-12 (Smith_depo.pdf, p. 3, ABC...)"
    assert clean_citation(cite).startswith("Smith_depo.pdf, p. ")
    view = app.page_view(
        CASE, ViewRequest(document=p.document_id, page=p.page, char_start=p.char_start, char_end=p.char_end)
    )
    assert view.bates == p.bates and view.page == p.page
    assert [ln.number for ln in view.lines if ln.cited][0] == p.line_start
    assert all(ln.box is not None for ln in view.lines if ln.cited)
    by_string = app.page_view(
        CASE, ViewRequest(citation=f"Smith_depo.pdf, p. {p.page}, ll. {p.line_start}-{p.line_end}")
    )
    assert by_string.page_index == view.page_index
    assert [ln.number for ln in by_string.lines if ln.cited] == list(range(p.line_start, p.line_end + 1))


def test_docx_is_laid_out_as_text_with_line_numbers(built: tuple[CaseTrack, Path, dict[str, Path]]) -> None:
    app, _root, _files = built
    hit = app.search(CASE, "failure to obey order", top_k=1, documents=[DOCX.name]).hits[0]
    p = hit.provenance
    view = app.page_view(
        CASE, ViewRequest(document=p.document_id, page=p.page, char_start=p.char_start, char_end=p.char_end)
    )
    assert view.kind == "text" and view.width is None and not view.highlights
    cited = [ln for ln in view.lines if ln.cited]
    assert cited and " ".join(ln.text for ln in cited).find(hit.snippet.split()[0]) >= 0
    numbers = [ln.number for ln in view.lines]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_prev_next_and_the_text_claude_reads(built: tuple[CaseTrack, Path, dict[str, Path]]) -> None:
    from casetrack.mcp.tools_view import render_page

    app, _root, _files = built
    did = doc_id(app, "Smith_depo.pdf")
    view = app.page_view(CASE, ViewRequest(citation="Smith_depo.pdf, p. 3, ll. 3-4")).to_json()
    assert (view["prev_page"], view["page_index"], view["next_page"]) == (1, 2, 3)
    assert view["cited_lines"] == [3, 4] and "p. 3, ll. 3-4" in view["citation"]
    text = render_page(view)
    marked = [line for line in text.splitlines() if line.startswith(">")]
    assert [int(line.split()[1]) for line in marked] == [3, 4]
    last = app.page_view(CASE, ViewRequest(document=did, page_index=view["page_count"] - 1)).to_json()
    assert last["next_page"] is None and last["cited_lines"] == []


def test_a_moved_original_is_shown_as_text_with_the_fix(tmp_path: Path) -> None:
    copy = tmp_path / "Moved.pdf"
    shutil.copy(require(OPINION_PDF), copy)
    app = CaseTrack(settings_for(tmp_path))
    try:
        app.create_case("M", "contract", "en")
        assert app.ingest("M", [copy])[0].status == "ingested"
        assert app.page_view("M", ViewRequest(citation="Moved.pdf, p. 1, l. 2")).kind == "image"
        copy.rename(tmp_path / "elsewhere.pdf")
        view = app.page_view("M", ViewRequest(citation="Moved.pdf, p. 1, l. 2"))
        assert view.kind == "text" and [ln.number for ln in view.lines if ln.cited] == [2]
        assert "no longer at" in view.warnings[0] and 'casetrack ingest --case "M"' in view.warnings[0]
    finally:
        app.close()


def test_show_out_png_is_highlighted_over_the_cited_lines(
    built: tuple[CaseTrack, Path, dict[str, Path]], tmp_path: Path
) -> None:
    """`casetrack show CITE --out page.png` end to end (the CLI in-process on the same data folder):
    the cited lines' boxes are yellow in the PNG, the other lines' are not."""
    from click.testing import CliRunner

    from casetrack.cli.main import cli

    app, root, _files = built
    cite = f"{CUAD_PDF.name}, p. 1, ll. 6-7"
    view = app.page_view(CASE, ViewRequest(citation=cite))
    out = tmp_path / "page.png"
    runner = CliRunner()
    env = {
        "CASETRACK_HOME": str(root / "home"),
        "CASETRACK_MODELS_DIR": str(root / "models"),
        "CASETRACK_CLI_DAEMON": "never",
    }
    done = runner.invoke(cli, ["show", "--case", CASE, cite, "--out", str(out), "--width", "1000"], env=env)
    assert done.exit_code == 0, done.output
    image = Image.open(out).convert("RGB")
    assert view.width is not None
    scale = image.width / view.width

    def yellow_share(box: Any) -> float:
        x0, y0, x1, y1 = (int(v * scale) for v in (box.x0, box.top, box.x1, box.bottom))
        pixels = [image.getpixel((x, y)) for x in range(x0, x1, 2) for y in range(y0, max(y1, y0 + 1), 2)]
        # Yellow: bright red and green, little blue (grey anti-aliasing has all three alike).
        yellow = [
            p for p in pixels if isinstance(p, tuple) and p[0] > 180 and p[1] > 150 and p[0] - p[2] > 60
        ]
        return len(yellow) / max(len(pixels), 1)

    for line in view.lines:
        if line.box is None:
            continue
        if line.cited:
            assert yellow_share(line.box) > 0.5, line
        elif (
            line.box.top > max(b.bottom for b in view.highlights) + 3
            or line.box.bottom < min(b.top for b in view.highlights) - 3
        ):
            assert yellow_share(line.box) < 0.05, line
    listed = runner.invoke(cli, ["show", "--case", CASE, cite, "--json"], env=env)
    assert listed.exit_code == 0 and json.loads(listed.output)["cited_lines"] == [6, 7]


def test_mcp_tools_declare_the_view_and_serve_the_page(
    built: tuple[CaseTrack, Path, dict[str, Path]],
) -> None:
    from mcp import Client

    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server
    from casetrack.view.bundle import VIEW_MIME, VIEW_URI

    _app, root, _files = built

    async def main() -> None:
        service = Service(settings_for(root))
        try:
            async with Client(build_server(service, SessionState())) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                for name in ("search_case", "get_chunk", "find_entity", "verify_citation", "get_page_view"):
                    assert (tools[name].meta or {})["ui"]["resourceUri"] == VIEW_URI, name
                assert tools["list_cases"].meta is None
                resources = {str(r.uri): r for r in (await client.list_resources()).resources}
                assert resources[VIEW_URI].mime_type == VIEW_MIME
                html = (await client.read_resource(VIEW_URI)).contents[0]
                text = getattr(html, "text", "")
                assert "default-src 'none'" in text
                assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text
                searched = await client.call_tool(
                    "search_case", {"query": "premium managed hosting", "case_name": CASE}
                )
                src = searched.structured_content["results"][0]["source"]
                page = await client.call_tool(
                    "get_page_view",
                    {
                        "case_name": CASE,
                        "document": src["document_id"],
                        "page": src["page"],
                        "char_start": src["char_start"],
                        "char_end": src["char_end"],
                    },
                )
                assert not page.is_error
                data = page.structured_content or {}
                assert data["kind"] == "image" and data["highlights"] and data["page"] == src["page"]
                image = await client.call_tool(
                    "get_page_image",
                    {
                        "case_name": CASE,
                        "document": src["document_id"],
                        "page_index": data["page_index"],
                        "width": 600,
                    },
                )
                assert image.content[0].type == "image" and image.content[0].mime_type == "image/png"
        finally:
            service.close()

    anyio.run(main)
