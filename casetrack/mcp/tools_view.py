"""The page view: a cited page with its cited lines highlighted (MCP Apps, SEP-1865).

The tools that return citations (search_case, get_chunk, find_entity, verify_citation, and
get_page_view itself) declare the view in their `_meta` (`ui.resourceUri`); a host that renders
MCP Apps loads the `ui://` resource (casetrack/view/assets/page_view.html) beside the answer and
hands it the tool's result, and the view asks these read-only tools for the page and its
picture. A host without MCP Apps ignores the `_meta`: the text and structured output it gets are
unchanged. The resource's `_meta.ui.csp` lists no domain: the view makes no request outside.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resources import TextResource
from mcp.types import CallToolResult, ImageContent, TextContent
from pydantic import Field

from casetrack.mcp.context import READ, CaseNameArg, ToolSet, call, client_of, tool_context
from casetrack.mcp.schemas import PageImageOut, PageViewOut
from casetrack.view.bundle import VIEW_MIME, VIEW_URI, view_html
from casetrack.view.records import PageViewJson

tools = ToolSet()

# The tools whose results carry citations the view can show (by tool name).
CITING_TOOLS = frozenset({"search_case", "get_chunk", "find_entity", "verify_citation", "get_page_view"})
VIEW_META: dict[str, Any] = {"ui": {"resourceUri": VIEW_URI}, "ui/resourceUri": VIEW_URI}


def tool_meta(name: str) -> dict[str, Any] | None:
    """The `_meta` a tool is registered with: the page view for the citing tools."""
    if name in CITING_TOOLS:
        return VIEW_META
    if name == "get_page_image":  # the view's own helper, and a picture Claude may look at too
        return {"ui": {"visibility": ["app", "model"]}}
    return None


def register_view(server: MCPServer[Any]) -> None:
    """The view as a resource of type text/html;profile=mcp-app, allowed no outside request."""
    server.add_resource(
        TextResource(
            uri=VIEW_URI,
            name="casetrack_page_view",
            title="CaseTrack page view",
            description="The cited page with its cited lines highlighted (MCP Apps view).",
            mime_type=VIEW_MIME,
            text=view_html(),
            meta={"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}},
        )
    )


def render_page(v: PageViewJson) -> str:
    """The page as Claude reads it: its facts, then each line with its number, cited ones marked."""
    where = f"{v['document']}" + (f", p. {v['page']} of {v['page_count']}" if v["page"] is not None else "")
    facts = [where]
    if v["bates"]:
        facts.append(f"Bates {v['bates']}")
    if v["ocr_confidence"] is not None:
        facts.append(f"OCR confidence {v['ocr_confidence']}")
    out = [" | ".join(facts)]
    if v["citation"]:
        out.append(f"Cited: {v['citation']} (lines marked >)")
    out += [f"Note: {w}" for w in v["warnings"]]
    out.append("")
    out += [f"{'>' if ln['cited'] else ' '} {ln['number']:>4}  {ln['text']}" for ln in v["lines"]]
    if not v["lines"]:
        out.append("(no text on this page)")
    steps = []
    if v["prev_page"] is not None:
        steps.append(f"previous: get_page_view(document={v['document_id']!r}, page_index={v['prev_page']})")
    if v["next_page"] is not None:
        steps.append(f"next: get_page_view(document={v['document_id']!r}, page_index={v['next_page']})")
    if steps:
        out += ["", "; ".join(steps)]
    return "\n".join(out)


@tools.tool(
    "Show cited page",
    READ,
    "The page a citation points at, with the cited lines marked: the page's text line by line with its "
    "line numbers, the document, page, Bates stamp and OCR confidence, and where each cited line sits on "
    "the page (boxes from the PDF's characters or OCR's words). Give a citation as CaseTrack prints it, a "
    "chunk_id, or a document with a page (and char_start/char_end or line_start/line_end from a result's "
    "source). Hosts that render MCP Apps show the page itself with the lines highlighted.",
)
async def get_page_view(
    ctx: Context,
    citation: Annotated[
        str | None,
        Field(description="e.g. 'Contract.pdf, p. 12, ll. 4-9' (as results cite it)", max_length=600),
    ] = None,
    chunk_id: Annotated[str | None, Field(description="chunk_id from a result: its page and lines")] = None,
    document: Annotated[
        str | None, Field(description="Document name or ID (a result's source.document_id)")
    ] = None,
    page: Annotated[int | None, Field(ge=1, description="Page number as cited")] = None,
    page_index: Annotated[int | None, Field(ge=0, description="0-based page (prev_page/next_page)")] = None,
    char_start: Annotated[int | None, Field(ge=0, description="source.char_start of a result")] = None,
    char_end: Annotated[int | None, Field(ge=0, description="source.char_end of a result")] = None,
    line_start: Annotated[int | None, Field(ge=0, description="First cited line")] = None,
    line_end: Annotated[int | None, Field(ge=0, description="Last cited line")] = None,
    case_name: CaseNameArg = None,
) -> Annotated[CallToolResult, PageViewOut]:
    from casetrack.view.targets import ViewRequest

    tc = tool_context(ctx)
    request = ViewRequest(
        citation, chunk_id, document, page, page_index, char_start, char_end, line_start, line_end
    )

    def run() -> PageViewJson:
        return tc.host.app.page_view(tc.case_id(case_name), request, client=client_of(ctx)).to_json()

    out = await call(run)
    return CallToolResult(
        content=[TextContent(type="text", text=render_page(out))],
        structured_content=PageViewOut.model_validate(out).model_dump(mode="json"),
    )


@tools.tool(
    "Page image",
    READ,
    "A page of a PDF or scanned document drawn as a PNG image (for the page view; get_page_view gives "
    "where the cited lines sit on it). page_index is 0-based, as get_page_view returns it.",
)
async def get_page_image(
    ctx: Context,
    document: Annotated[str, Field(description="Document name or ID", min_length=1)],
    page_index: Annotated[int, Field(ge=0, description="0-based page")] = 0,
    width: Annotated[int, Field(ge=200, le=2400, description="Image width in pixels")] = 1200,
    case_name: CaseNameArg = None,
) -> Annotated[CallToolResult, PageImageOut]:
    tc = tool_context(ctx)

    def run() -> tuple[bytes, str]:
        case_id = tc.case_id(case_name)
        png = tc.host.app.page_image(case_id, document, page_index, width)
        return png, tc.host.app.document_details(case_id, document)["document_id"]

    png, doc_id = await call(run)
    out = PageImageOut(document_id=doc_id, page_index=page_index, width=width, mime_type="image/png")
    return CallToolResult(
        content=[
            ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type="image/png")
        ],
        structured_content=out.model_dump(mode="json"),
    )
