"""`casetrack search`, `chunk`, `authorities`, `find-entity` (also `entity`) and `demo`."""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Callable
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from casetrack.cli.common import case_option, get_app, near_duplicates_option, read
from casetrack.errors import CaseExistsError

if TYPE_CHECKING:
    from casetrack.config import Settings
    from casetrack.domain.views import SearchJson

DEMO_CASE = "CaseTrack Demo"


def _print_notes(r: SearchJson) -> None:
    """What qualifies the results: warnings, the fix for missing models, the connectors read."""
    for warning in r["warnings"]:  # on stdout, with the results they qualify
        click.secho(f"Note: {warning}", fg="yellow")
    if r.get("models_missing"):
        click.secho(
            "Fix: casetrack models download --missing (or casetrack models import DIR offline); "
            "`casetrack status` lists what is missing.",
            fg="yellow",
        )
    if r.get("expression"):
        click.secho(
            f"Terms and connectors: {r.get('expression')} ({r.get('total_matches', 0)} matching passages)",
            dim=True,
        )


def print_response(r: SearchJson, snippet_chars: int = 400) -> None:
    """Human output: citation, then the matching sentences of each result (from the `--json`
    shape, so a search the daemon answered prints exactly what one run here prints)."""
    _print_notes(r)
    if not r["results"]:
        click.echo(f"No results for {r['query']!r} in '{r['case']}'.")
        return
    if r.get("documents"):
        click.secho("Best documents:", bold=True)
        for i, d in enumerate(r.get("documents") or [], start=1):
            click.echo(
                f"  {i}. {d['document']} ({d['matching_chunks']} matching passages; best: {d['best']['citation']})"
            )
        click.echo("")
    if r["no_good_match"]:
        click.secho(
            "No good match: nothing in this case clearly answers this; these are only the nearest passages.",
            fg="yellow",
        )
    for i, h in enumerate(r["results"], start=1):
        _print_hit(i, h, snippet_chars)
    click.echo(f"({len(r['results'])} results in {r['timings_ms'].get('total', 0):.0f} ms)")


def _print_hit(i: int, h: Any, snippet_chars: int) -> None:
    """One result: its citation and label, section, context and snippet, connectors' matches."""
    rated = f"  [{h['match']} {h['relevance']:.2f}]" if h["relevance"] is not None else ""
    click.secho(f"{i}. {h['citation']}{rated}", bold=True)
    if h.get("near_duplicates"):
        click.secho(f"   also in its near-duplicates: {', '.join(h.get('near_duplicates') or [])}", dim=True)
    if h["source"]["section"]:
        click.secho(f"   {h['source']['section']}", dim=True)
    context = h.get("context") or {"before": None, "after": None}
    if context["before"]:
        click.secho(textwrap.indent(textwrap.fill("..." + context["before"], 100), "   "), dim=True)
    click.echo(textwrap.indent(textwrap.fill(h["snippet"] or h["text"][:snippet_chars], 100), "   "))
    if h.get("matched"):
        click.secho("   matched: " + " | ".join(h.get("matched") or []), dim=True)
    if context["after"]:
        click.secho(textwrap.indent(textwrap.fill(context["after"] + "...", 100), "   "), dim=True)


def legal_filter_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The legal-metadata filters (issue 15), shared by search and find-entity."""
    options = [
        click.option(
            "--doc-type",
            "doc_types",
            multiple=True,
            metavar="TYPE",
            help="Only documents of this legal type (contract, nda, complaint, answer, motion, brief, order, "
            "judgment, acordao, opinion, deposition, letter, statute ...; acórdão, sentença work too).",
        ),
        click.option(
            "--tribunal",
            "tribunals",
            multiple=True,
            help="Only documents of this tribunal (STJ, TJSP, TRT2 ...).",
        ),
        click.option(
            "--process",
            "processes",
            multiple=True,
            help="Only documents of this process number (CNJ, with or without punctuation).",
        ),
        click.option(
            "--date-from", default=None, metavar="YYYY-MM-DD", help="Only documents dated on or after this."
        ),
        click.option(
            "--date-to", default=None, metavar="YYYY-MM-DD", help="Only documents dated on or before this."
        ),
        click.option("--tag", "tags", multiple=True, help="Only documents with this tag (companion YAML)."),
        click.option(
            "--field",
            "fields",
            multiple=True,
            metavar="KEY=VALUE",
            help="Only documents whose custom field KEY is VALUE (companion YAML).",
        ),
        click.option(
            "--language", "languages", multiple=True, help="Only documents in this language (en, pt)."
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


@click.command("search")
@case_option
@click.argument("query")
@click.option(
    "--top-k", default=10, show_default=True, type=click.IntRange(1, 100), help="Number of results."
)
@click.option("--offset", default=0, type=click.IntRange(0, 1000), help="Skip this many results (paging).")
@click.option(
    "--document", "documents", multiple=True, help="Only search this document (name or id); repeatable."
)
@click.option(
    "--type",
    "file_types",
    multiple=True,
    type=click.Choice(["pdf", "docx", "text", "rtf", "html", "image"]),
    help="Only documents of this type; repeatable.",
)
@click.option(
    "--after", type=click.DateTime(["%Y-%m-%d"]), help="Only documents ingested on or after this date."
)
@click.option("--before", type=click.DateTime(["%Y-%m-%d"]), help="Only documents ingested before this date.")
@click.option(
    "--context",
    "context_chars",
    default=0,
    type=click.IntRange(0, 2000),
    help="Add this many characters of the neighbouring chunks before and after each result.",
)
@click.option("--by-document", is_flag=True, help="Also rank whole documents (which document says X?).")
@click.option(
    "--bates",
    default=None,
    metavar="RANGE",
    help="Only pages whose Bates stamp is in this range (ABC0001200-ABC0001300) or is this number.",
)
@click.option(
    "--keyword",
    "keywords",
    multiple=True,
    metavar="TEXT",
    help="An alternative search in the documents' own words (a term of art, a synonym, the usual clause "
    "heading); repeatable, up to 8.",
)
@click.option(
    "--likely-wording",
    default=None,
    metavar="TEXT",
    help="How the document would probably word the answer (one to three sentences; invented details are "
    "fine): it finds passages worded like it, and is never shown as a finding.",
)
@click.option(
    "--syntax",
    type=click.Choice(["connectors", "plain"]),
    default=None,
    help='Read the query as terms and connectors (Westlaw/Lexis: & or % ! * "phrase" /s /p w/n pre/n ( )) or '
    "as plain words; default: connectors when the query carries their syntax.",
)
@click.option(
    "--rerank",
    is_flag=True,
    help="Rerank the best results with the late-interaction model (E12) for this search, when installed.",
)
@legal_filter_options
@near_duplicates_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def search(
    ctx: click.Context,
    /,
    case: str,
    query: str,
    top_k: int,
    offset: int,
    documents: tuple[str, ...],
    file_types: tuple[str, ...],
    after: datetime | None,
    before: datetime | None,
    context_chars: int,
    by_document: bool,
    bates: str | None,
    keywords: tuple[str, ...],
    likely_wording: str | None,
    syntax: str | None,
    rerank: bool,
    as_json: bool,
    near_duplicates: str = "show",
    **legal: Any,
) -> None:
    """Search a case; every result carries its citation (document, page, paragraph, lines).

    Terms and connectors work as on Westlaw and Lexis, e.g.
    'indemnif! /s "gross negligence"', 'terminat! w/10 notice', 'assign! /p consent & (unreasonabl! /3 withh!)'.
    """
    args = {
        "case": case,
        "query": query,
        "top_k": top_k,
        "offset": offset,
        "documents": list(documents),
        "file_types": list(file_types),
        "ingested_after": after.timestamp() if after else None,
        "ingested_before": before.timestamp() if before else None,
        "bates": bates,
        "legal": {k: list(v) if isinstance(v, tuple) else v for k, v in legal.items()},
        "context_chars": context_chars,
        "per_document": by_document,
        "keywords": list(keywords),
        "likely_wording": likely_wording,
        "syntax": syntax,
        "rerank": True if rerank else None,
        "near_duplicates": near_duplicates,
    }
    response: SearchJson = read(ctx, "search", args)
    if as_json:
        click.echo(json.dumps(response, ensure_ascii=False))
    else:
        print_response(response)


@click.command("chunk")
@case_option
@click.argument("chunk_id")
@click.option(
    "--context",
    "--neighbours",
    "neighbours",
    default=1,
    show_default=True,
    type=click.IntRange(0, 10),
    metavar="N",
    help="Passages to show before and after (--neighbours: the same).",
)
@click.option("--query", default=None, help="Pin the citation to the lines that answer this query.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def chunk(
    ctx: click.Context, case: str, chunk_id: str, neighbours: int, query: str | None, as_json: bool
) -> None:
    """Show a passage (chunk_id from search results) in full, with its neighbours."""
    view = read(
        ctx, "get_chunk", {"case": case, "chunk_id": chunk_id, "neighbours": neighbours, "query": query}
    )
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False))
        return
    for n in view["before"]:
        click.secho(f"[{n['citation']}]", dim=True)
        click.secho(textwrap.indent(textwrap.fill(n["text"], 100), "   "), dim=True)
    click.secho(view["citation"], bold=True)
    if "chunk_citation" in view:
        click.echo(textwrap.indent(textwrap.fill(view.get("snippet", ""), 100), "   "))
        click.secho(f"passage: {view['chunk_citation']}", bold=True)
    click.echo(textwrap.indent(textwrap.fill(view["text"], 100), "   "))
    for n in view["after"]:
        click.secho(f"[{n['citation']}]", dim=True)
        click.secho(textwrap.indent(textwrap.fill(n["text"], 100), "   "), dim=True)


@click.command("demo")
@click.option("--query", default="How much notice is needed to terminate the agreement?", show_default=True)
@click.pass_context
def demo(ctx: click.Context, query: str) -> None:
    """Build a demo case from the bundled sample documents and search it.

    It works in a new folder under the system's temporary folder (named in the output, with the
    command that removes it), so your CaseTrack folder stays as it was; with --data-dir or
    CASETRACK_HOME it uses that folder instead."""
    root = ctx.find_root()
    settings: Settings = root.obj
    explicit = root.params.get("data_dir") is not None
    if explicit:
        app = get_app(ctx)
    else:
        from casetrack.app import CaseTrack

        folder = Path(tempfile.mkdtemp(prefix="casetrack-demo-"))  # 0700, ours alone
        app = CaseTrack(dataclasses.replace(settings, data_dir=folder), isolate_parsing=True)
        root.call_on_close(app.close)
        click.echo(
            f"Demo folder: {folder} (temporary; your CaseTrack folder {settings.data_dir} is not touched)."
        )
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
    from casetrack.search.ranking.output import response_json

    print_response(response_json(app.search(DEMO_CASE, query, top_k=3)))
    if explicit:
        click.echo(f'\nTry your own: casetrack search --case "{DEMO_CASE}" "your question"')
        return
    for line in demo_next_steps(settings, app.settings.data_dir):
        click.echo(line)


def demo_next_steps(settings: Settings, folder: Path) -> list[str]:
    """What to type after a demo in a temporary folder: another question on it, removing it, and
    a case of one's own (in the real CaseTrack folder)."""
    from casetrack.config import resolve_settings

    flags = f"--data-dir {_quote(folder)}"
    if resolve_settings(folder).models_dir != settings.models_dir:  # the command must find these models too
        flags += f" --models-dir {_quote(settings.models_dir)}"
    remove = (
        f"Remove-Item -Recurse -Force {_quote(folder)}"
        if sys.platform == "win32"
        else f"rm -rf {_quote(folder)}"
    )
    return [
        "",
        f'Ask the demo another question: casetrack {flags} search --case "{DEMO_CASE}" "your question"',
        f"Remove the demo folder when done: {remove}",
        'Your own documents: casetrack case create "Smith v. Jones", then '
        'casetrack ingest-folder --case "Smith v. Jones" FOLDER',
    ]


def _quote(path: Path) -> str:
    text = str(path)
    if sys.platform == "win32":
        return f'"{text}"' if " " in text else text
    return shlex.quote(text)


@click.command("authorities")
@case_option
@click.option(
    "--top",
    "top_k",
    default=50,
    show_default=True,
    type=click.IntRange(1, 1000),
    help="How many authorities to list (most cited first).",
)
@click.option(
    "--kind",
    type=click.Choice(["legislation", "jurisprudence", "us_case", "us_statute", "us_rule"]),
    help="Only authorities of this kind.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def authorities(ctx: click.Context, case: str, top_k: int, kind: str | None, as_json: bool) -> None:
    """The case's table of authorities: every case, statute and súmula its documents cite, most
    cited first, with the pin-cites that cite each."""
    out = read(ctx, "authorities", {"case": case, "top_k": top_k, "kind": kind})
    if as_json:
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    if not out["authorities"]:
        click.echo("No cited authorities found in this case's documents.")
        return
    click.echo(f"{out['total']} authorities cited in {out['case']}; the {out['shown']} most cited:")
    for i, a in enumerate(out["authorities"], start=1):
        click.secho(
            f"{i}. {a.get('title') or a['text']}  [{a['kind']}; {a['documents']} documents, {a['mentions']} mentions]",
            bold=True,
        )
        for place in a["cited_in"]:
            click.echo(f"     {place['citation']}")


@click.command("entity")
@case_option
@click.argument("entity")
@click.option(
    "--type",
    "entity_type",
    default="any",
    show_default=True,
    type=click.Choice(["any", "person", "organization", "court", "statute", "case_citation"]),
    help="What kind of entity it is.",
)
@click.option(
    "--top-k", default=20, show_default=True, type=click.IntRange(1, 100), help="Most mentions to show."
)
@legal_filter_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def entity(
    ctx: click.Context, /, case: str, entity: str, entity_type: str, top_k: int, as_json: bool, **legal: Any
) -> None:
    """Every mention of a name, court, statute, citation or process number, however it is written
    (exact, accent-folded, citation-normalised, close OCR variants), cited to its lines."""
    found = read(
        ctx,
        "find_entity",
        {
            "case": case,
            "entity": entity,
            "entity_type": entity_type,
            "top_k": top_k,
            "legal": {k: list(v) if isinstance(v, tuple) else v for k, v in legal.items()},
        },
    )
    if as_json:
        click.echo(json.dumps(found, ensure_ascii=False))
        return
    if not found["documents"]:
        click.echo(f"No mention of {entity!r} in {found['case']}.")
    for warning in found["warnings"]:
        click.secho(f"Note: {warning}", fg="yellow")
    for doc in found["documents"]:
        click.secho(f"{doc['document']}: {doc['exact_count']} exact, {doc['fuzzy_count']} close", bold=True)
        for m in doc["mentions"]:
            click.echo(f"   {m['citation']}  [{m['kind']}] {m['snippet']}")


# The name the MCP tool and issue 17 use; `entity` stays (scripts use it).
find_entity = click.Command(
    "find-entity",
    callback=entity.callback,
    params=entity.params,
    help=entity.help,
    short_help="Every mention of a name, court, statute or citation.",
)
