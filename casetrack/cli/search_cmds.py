"""`casetrack search` and `casetrack demo`."""

from __future__ import annotations

import json
import textwrap
from importlib import resources
from pathlib import Path
from typing import Any

import click

from casetrack.cli.main import get_app
from casetrack.domain import SearchResponse
from casetrack.errors import CaseExistsError

DEMO_CASE = "CaseTrack Demo"


def response_json(r: SearchResponse) -> dict[str, Any]:
    """The stable `--json` shape (names fixed by the skeleton issue; add fields, never rename)."""
    return {
        "query": r.query,
        "case": r.case,
        "results": [
            {
                "chunk_id": h.chunk_id,
                "text": h.text,
                "snippet": h.snippet,
                "score": h.score,
                "citation": h.citation,
                "citation_short": h.provenance.citation_short(),
                "source": {
                    "document": h.provenance.document,
                    "document_id": h.provenance.document_id,
                    "page": h.provenance.page,
                    "paragraph_start": h.provenance.paragraph_start,
                    "paragraph_end": h.provenance.paragraph_end,
                    "line_start": h.provenance.line_start,
                    "line_end": h.provenance.line_end,
                    "char_start": h.provenance.char_start,
                    "char_end": h.provenance.char_end,
                    "extraction_method": h.provenance.extraction_method.value,
                },
            }
            for h in r.hits
        ],
        "stages_used": r.stages_used,
        "stages_skipped": r.stages_skipped,
        "timings_ms": r.timings_ms,
        "warnings": r.warnings,
    }


def print_response(r: SearchResponse, snippet_chars: int = 400) -> None:
    """Human output: citation, then the matching sentences of each result."""
    for warning in r.warnings:
        click.secho(f"Note: {warning}", fg="yellow", err=True)
    if not r.hits:
        click.echo(f"No results for {r.query!r} in '{r.case}'.")
        return
    for i, h in enumerate(r.hits, start=1):
        click.secho(f"{i}. {h.citation}", bold=True)
        click.echo(textwrap.indent(textwrap.fill(h.snippet or h.text[:snippet_chars], 100), "   "))
    click.echo(f"({len(r.hits)} results in {r.timings_ms.get('total', 0):.0f} ms)")


@click.command("search")
@click.option("--case", "case", required=True, help="Case name or id.")
@click.argument("query")
@click.option("--top-k", default=10, show_default=True, type=click.IntRange(1, 100), help="Number of results.")
@click.option("--offset", default=0, type=click.IntRange(0, 1000), help="Skip this many results (paging).")
@click.option("--document", "documents", multiple=True, help="Only search this document (name or id); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def search(ctx: click.Context, case: str, query: str, top_k: int, offset: int, documents: tuple[str, ...], as_json: bool) -> None:
    """Search a case; every result carries its citation (document, page, paragraph, lines)."""
    response = get_app(ctx).search(case, query, top_k=top_k, documents=list(documents) or None, offset=offset)
    if as_json:
        click.echo(json.dumps(response_json(response), ensure_ascii=False))
    else:
        print_response(response)


@click.command("demo")
@click.option("--query", default="How much notice is needed to terminate the agreement?", show_default=True)
@click.pass_context
def demo(ctx: click.Context, query: str) -> None:
    """Create a demo case from the bundled sample documents and search it."""
    app = get_app(ctx)
    try:
        app.create_case(DEMO_CASE, "contract", "en")
        click.echo(f"Created case '{DEMO_CASE}'.")
    except CaseExistsError:
        click.echo(f"Using existing case '{DEMO_CASE}'.")
    samples = resources.files("casetrack") / "samples"
    paths = sorted(Path(str(p)) for p in samples.iterdir() if p.name.endswith((".txt", ".md")))
    for result in app.ingest(DEMO_CASE, paths):
        status = result.status if result.ok else f"{result.status}: {result.error}"
        click.echo(f"  {result.name}: {status}")
    click.echo(f"\nSearch: {query}\n")
    print_response(app.search(DEMO_CASE, query, top_k=3))
    click.echo(f'\nTry your own: casetrack search --case "{DEMO_CASE}" "your question"')
