"""verify_citation: is a quote really at the place it cites? (search/verify.py does the work.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field

from casetrack.domain.views import DifferenceJson, VerifyJson
from casetrack.mcp.context import READ, CaseNameArg, ToolSet, call, client_of, result, tool_context

tools = ToolSet()

MAX_TEXT_CHARS = 900  # of the text at the cite, in the readable answer


class VerifyOut(BaseModel):
    """verify_citation's structured output (the app's `VerifyJson`)."""

    model_config = ConfigDict(extra="allow")

    case: str
    verdict: str
    message: str
    quote: str
    citation: str
    cite_resolved: str | None = None
    cite_problem: str | None = None
    text_at_cite: str
    text_at_cite_trimmed: bool = False
    found_at: str | None = None
    also_found_at: list[str] = []
    differences: list[DifferenceJson] = []
    meaning_changed: bool = False
    meaning_changes: list[str] = []
    similarity: float = 0.0


def _difference(d: Mapping[str, str]) -> str:
    quote = f'"{d["quote"]}"' if d["quote"] else "(nothing)"
    text = f'"{d["text"]}"' if d["text"] else "(nothing)"
    return f"  - {d['kind']}: quote {quote} / text {text}"


def render(v: Mapping[str, Any]) -> str:
    """The readable answer: verdict, differences (meaning-changing ones named), the right cite,
    and the text at the cited place."""
    lines = [f"Verdict: {str(v['verdict']).upper().replace('_', ' ')}", str(v["message"])]
    if v.get("differences"):
        lines += ["", "Differences (quote vs document):", *(_difference(d) for d in v["differences"])]
        if v.get("meaning_changed"):
            lines.append(
                f"MEANING CHANGED: {', '.join(v['meaning_changes'])} - fix the quote before relying on it."
            )
    if v.get("found_at") and v["verdict"] != "exact":
        lines += ["", f"Cite it as: {v['found_at']}"]
    if v.get("also_found_at"):
        lines.append(f"Also at: {'; '.join(v['also_found_at'])}")
    text = str(v.get("text_at_cite") or "")
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS].rsplit(" ", 1)[0] + " ..."
    where = v.get("cite_resolved") or v.get("citation")
    trimmed = " (the lines that best match)" if v.get("text_at_cite_trimmed") else ""
    lines += ["", f"Text at {where}{trimmed}:", f'"{text}"' if text else "(no text at that place)"]
    return "\n".join(lines)


@tools.tool(
    "Verify citation",
    READ,
    "Check that a quote really is at the place it cites. Give the quote and the citation as CaseTrack prints "
    "it ('Contract.pdf, p. 12, ll. 1-4'), or document plus page/paragraph/lines. Answers exact, close (lists "
    "the differing words and flags a changed number, negation or modal verb), elsewhere (with the right "
    "citation) or not_found, always with the text actually at the cited place.",
)
async def verify_citation(
    ctx: Context,
    quote: Annotated[
        str,
        Field(
            description="The quoted words, as written in the brief or answer", min_length=1, max_length=5000
        ),
    ],
    citation: Annotated[
        str | None,
        Field(description="e.g. 'Contract.pdf, p. 12, para. 8, ll. 1-4' or 'notes.txt, ll. 30-34'"),
    ] = None,
    document: Annotated[
        str | None, Field(description="Document name or ID (instead of, or overriding, the citation's)")
    ] = None,
    page: Annotated[int | None, Field(ge=1, description="Page number")] = None,
    paragraph: Annotated[int | None, Field(ge=1, description="Paragraph number")] = None,
    line_start: Annotated[int | None, Field(ge=1, description="First cited line")] = None,
    line_end: Annotated[int | None, Field(ge=1, description="Last cited line (default: line_start)")] = None,
    case_name: CaseNameArg = None,
) -> Annotated[CallToolResult, VerifyOut]:
    tc = tool_context(ctx)

    def run() -> VerifyJson:
        return tc.host.app.verify_citation(
            tc.case_id(case_name),
            quote,
            citation,
            document,
            page,
            paragraph,
            line_start,
            line_end,
            client=client_of(ctx),
        )

    out = await call(run)
    return result(render(out), VerifyOut.model_validate(out))
