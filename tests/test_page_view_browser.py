"""The page view in a real browser (Debian's chromium, driven by Playwright through its executable
path), loaded the way an MCP Apps host loads it: a test host page runs the ext-apps SDK's own host
bridge (`AppBridge`, bundled by ci/extapps_host.sh), puts the `ui://` resource CaseTrack serves in
a sandboxed iframe, delivers a real search_case result, and answers the view's tool calls through
an MCP client of CaseTrack's server. The screenshot's highlight must lie on the cited lines' words
(poppler's boxes on a native PDF page, tesseract's on a scan) and on no other line's, for a native
PDF, a scanned PDF, a DOCX and a transcript page; the browser's request log must hold nothing but
the view itself (no network at all).

Set CT_PAGE_VIEW_SCREENSHOT=docs/page-view.png to keep the native PDF's screenshot (the README's).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from PIL import Image

from bench.page_view import WordBox, line_words, poppler_words, score_cite, tesseract_words
from casetrack.app import CaseTrack
from tests.conftest import DATA, REPO, require
from tests.test_page_view import CUAD_PDF, DOCX, settings_for
from tests.transcript_maker import deposition_pdf

CHROMIUM = Path(os.environ.get("CASETRACK_CHROMIUM", "/usr/bin/chromium"))
SCAN = DATA / "legal_docs_us_courts/image-pdf.pdf"
CASE = "Browser"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
HOST_JS = """
window.startView = async function (viewHtml, toolResult) {
  const { AppBridge, PostMessageTransport } = window.ExtAppsHost;
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.cssText = "width:940px;height:1300px;border:0";
  document.body.appendChild(iframe);
  const bridge = new AppBridge(null, { name: "casetrack-test-host", version: "1.0.0" },
    { serverTools: {} }, { hostContext: { theme: "light", displayMode: "inline" } });
  bridge.oncalltool = async (params) =>
    JSON.parse(await window.pyCallTool(params.name, JSON.stringify(params.arguments || {})));
  const ready = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = viewHtml;
  await ready;
  await bridge.sendToolResult(toolResult);
  window.bridge = bridge;
};
"""


def host_bridge() -> str:
    done = subprocess.run(
        ["bash", str(REPO / "ci/extapps_host.sh")], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    return (REPO / done.stdout.strip()).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def case_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CHROMIUM.exists():
        pytest.skip(f"chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    root = tmp_path_factory.mktemp("browser")
    files = [require(CUAD_PDF), require(DOCX), require(SCAN), deposition_pdf(root / "Smith_depo.pdf")]
    app = CaseTrack(settings_for(root))
    try:
        app.create_case(CASE, "contract", "en")
        results = app.ingest(CASE, files)
        assert [r.status for r in results] == ["ingested"] * len(files), [r.error for r in results]
    finally:
        app.close()
    return root


def dumped(result: Any) -> dict[str, Any]:
    out: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return out


def yellow(pixel: Any) -> bool:
    r, g, b = pixel[:3]
    return bool(r > 170 and g > 140 and r - b > 50)


async def run_view(root: Path, query: str, document: str, shot: Path) -> dict[str, Any]:
    """search_case through CaseTrack's MCP server, its result delivered to the view in chromium;
    what the view drew (the page view it asked for, the highlight rectangles, the image's place),
    the screenshot, and every URL the browser requested."""
    from mcp import Client
    from playwright.async_api import async_playwright

    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server
    from casetrack.view.bundle import VIEW_URI

    service = Service(settings_for(root))
    requests: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    try:
        async with Client(build_server(service, SessionState())) as client:
            html = (await client.read_resource(VIEW_URI)).contents[0].text  # type: ignore[union-attr]
            searched = await client.call_tool(
                "search_case", {"query": query, "case_name": CASE, "document_filter": document, "top_k": 3}
            )
            assert not searched.is_error

            async def py_call_tool(name: str, args_json: str) -> str:
                args = json.loads(args_json)
                calls.append((name, args))
                return json.dumps(dumped(await client.call_tool(name, args)))

            # In /tmp, and chromium's TMPDIR too: CaseTrack points this process's temporary folder
            # into its data folder, too deep under xdist for chromium's singleton socket.
            profile = tempfile.mkdtemp(prefix="ct-chromium-", dir="/tmp")
            try:
                async with async_playwright() as p:
                    browser = await p.chromium.launch_persistent_context(
                        profile,
                        executable_path=str(CHROMIUM),
                        headless=True,
                        args=CHROMIUM_ARGS,
                        viewport={"width": 1000, "height": 1400},
                        env={**os.environ, "TMPDIR": profile},
                    )
                    page = browser.pages[0] if browser.pages else await browser.new_page()
                    page.on("request", lambda r: requests.append(r.url))
                    await page.expose_function("pyCallTool", py_call_tool)
                    await page.set_content(
                        f"<html><body><script>{host_bridge()}</script><script>{HOST_JS}</script></body></html>"
                    )
                    await page.evaluate("([h, r]) => window.startView(h, r)", [html, dumped(searched)])
                    frame = next(f for f in page.frames if f != page.main_frame)
                    await frame.wait_for_selector("body[data-state=ready]", timeout=120_000)
                    drawn = await frame.evaluate(
                        """() => ({
                          hl: [...document.querySelectorAll('.hl')].map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }),
                          img: (() => { const i = document.querySelector('.sheet img'); if (!i) return null; const r = i.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })(),
                          rows: [...document.querySelectorAll('.ln.cited')].map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, e.textContent]; }),
                          facts: document.getElementById('facts').textContent,
                          cite: document.getElementById('cite').textContent,
                        })"""
                    )
                    element = await page.query_selector("#view")
                    assert element is not None
                    await element.screenshot(path=str(shot))
                    await browser.close()
            finally:
                shutil.rmtree(profile, ignore_errors=True)
    finally:
        service.close()
    return {"drawn": drawn, "requests": requests, "calls": calls, "searched": dumped(searched)}


def shown_view(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """The page view the browser asked for (get_page_view's first call), read again through the app."""
    from casetrack.view.targets import ViewRequest

    name, args = next(c for c in calls if c[0] == "get_page_view")
    args = {k: v for k, v in args.items() if k != "case_name"}
    app = CaseTrack(settings_for(root))
    try:
        return app.page_view(CASE, ViewRequest(**args))
    finally:
        app.close()


def check_drawn_page(root: Path, out: dict[str, Any], shot: Path, reader: list[WordBox]) -> None:
    """The highlight rectangles, turned back into page points, hold the cited lines' words and no
    other line's; in the screenshot those words' boxes are yellow and another line's are not."""
    view = shown_view(root, out["calls"])
    drawn = out["drawn"]
    assert drawn["img"] is not None and drawn["hl"], drawn
    left, top, width, _height = drawn["img"]
    scale = view.width / width
    highlights = [
        [(x0 - left) * scale, (y0 - top) * scale, (x1 - left) * scale, (y1 - top) * scale]
        for x0, y0, x1, y1 in drawn["hl"]
    ]
    lines = [(ln.text, ln.cited) for ln in view.lines]
    measurable, stray, missed = score_cite(lines, highlights, reader)
    assert measurable and not stray and not missed, (stray, missed)
    image = Image.open(shot).convert("RGB")
    matched = line_words([t for t, _ in lines], reader)

    def share(words: list[WordBox]) -> float:
        points = []
        for w in words:
            x0, y0, x1, y1 = (
                left + w.box[0] / scale,
                top + w.box[1] / scale,
                left + w.box[2] / scale,
                top + w.box[3] / scale,
            )
            points += [(int(x), int(y)) for x in (x0 + 1, (x0 + x1) / 2, x1 - 1) for y in (y0 + 1, y1 - 1)]
        inside = [p for p in points if 0 <= p[0] < image.width and 0 <= p[1] < image.height]
        return sum(yellow(image.getpixel(p)) for p in inside) / max(len(inside), 1)

    cited_words = [w for (_, c), ws in zip(lines, matched, strict=True) if c for w in ws]
    assert share(cited_words) > 0.5
    cited_rows = [i for i, (_, c) in enumerate(lines) if c]
    far = [w for i, ws in enumerate(matched) if i < cited_rows[0] - 2 or i > cited_rows[-1] + 2 for w in ws]
    if far:
        assert share(far) < 0.05


def only_the_view(requests: list[str]) -> None:
    assert all(u.startswith(("about:", "data:")) for u in requests), requests


@pytest.mark.slow  # chromium, an OCR'd scan and the npm host bridge: about a minute
def test_native_pdf_page_in_the_mcp_apps_host(case_root: Path, tmp_path: Path) -> None:
    shot = tmp_path / "native.png"
    out = anyio.run(run_view, case_root, "premium managed hosting services", CUAD_PDF.name, shot)
    view = shown_view(case_root, out["calls"])
    assert view.kind == "image" and view.boxes_from == "text_layer"
    check_drawn_page(case_root, out, shot, poppler_words(CUAD_PDF, view.page_index + 1)[0])
    assert [c[0] for c in out["calls"]][:2] == ["get_page_view", "get_page_image"]
    assert out["drawn"]["cite"].startswith("Cited: " + CUAD_PDF.name)
    only_the_view(out["requests"])
    keep = os.environ.get("CT_PAGE_VIEW_SCREENSHOT")
    if keep:
        shutil.copy(shot, REPO / keep)


@pytest.mark.slow
def test_scanned_pdf_page_highlight_from_ocr_boxes(case_root: Path, tmp_path: Path) -> None:
    shot = tmp_path / "scan.png"
    out = anyio.run(run_view, case_root, "certiorari to the court of appeals", SCAN.name, shot)
    view = shown_view(case_root, out["calls"])
    assert view.kind == "image" and view.boxes_from == "ocr" and view.ocr_confidence is not None
    assert "OCR confidence" in out["drawn"]["facts"]
    check_drawn_page(case_root, out, shot, tesseract_words(SCAN, view.page_index, "pdf"))
    only_the_view(out["requests"])


@pytest.mark.slow
def test_transcript_page_with_bates(case_root: Path, tmp_path: Path) -> None:
    shot = tmp_path / "depo.png"
    depo = case_root / "Smith_depo.pdf"
    out = anyio.run(run_view, case_root, "where were you employed", depo.name, shot)
    view = shown_view(case_root, out["calls"])
    assert view.kind == "image" and view.bates and "Bates " + view.bates in out["drawn"]["facts"]
    check_drawn_page(case_root, out, shot, poppler_words(depo, view.page_index + 1)[0])
    only_the_view(out["requests"])


@pytest.mark.slow
def test_docx_page_laid_out_as_text(case_root: Path, tmp_path: Path) -> None:
    shot = tmp_path / "docx.png"
    out = anyio.run(run_view, case_root, "failure to obey order", DOCX.name, shot)
    view = shown_view(case_root, out["calls"])
    assert view.kind == "text"
    rows = out["drawn"]["rows"]
    cited = [ln for ln in view.lines if ln.cited]
    assert rows and len(rows) == len(cited)
    assert [r[4].strip() for r in rows] == [f"{ln.number}{ln.text}".strip() for ln in cited]
    assert [c[0] for c in out["calls"]] == ["get_page_view"]  # no picture asked for a text page
    image = Image.open(shot).convert("RGB")
    x0, y0, x1, y1 = (int(v) for v in rows[0][:4])
    probe = [(x, (y0 + y1) // 2) for x in range(x0 + 2, min(x1, image.width) - 2, 7)]
    assert sum(yellow(image.getpixel(p)) for p in probe) > 0.3 * len(probe)
    only_the_view(out["requests"])
