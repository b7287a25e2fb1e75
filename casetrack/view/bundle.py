"""The HTML page view: one self-contained file (assets/page_view.html: markup, style and script
inline, no font, no library, a content-security policy that allows no request at all).

Served to MCP Apps hosts as the `ui://` resource the citing tools point at (mcp/tools_view.py);
written by `casetrack show` with the pages it shows embedded (`embedded_html`).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

VIEW_URI = "ui://casetrack/page-view.html"
VIEW_MIME = "text/html;profile=mcp-app"  # MCP Apps (SEP-1865): an HTML view for a tool result
_ANCHOR = '<script>\n"use strict";'


def view_html() -> str:
    """The view as shipped (package data)."""
    return resources.files("casetrack.view").joinpath("assets/page_view.html").read_text(encoding="utf-8")


def embedded_html(data: dict[str, Any]) -> str:
    """The view with its data inline (`casetrack show`): `data` holds `case`, `result` (what a
    tool result would carry: a page view), `views` and `images` (base64 PNG) by page index."""
    html = view_html()
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    head = f"<script>window.CASETRACK_EMBEDDED = {payload};</script>\n"
    if _ANCHOR not in html:
        raise RuntimeError("the page view's script anchor is missing from assets/page_view.html")
    return html.replace(_ANCHOR, head + _ANCHOR, 1)
