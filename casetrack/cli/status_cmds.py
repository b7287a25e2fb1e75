"""`casetrack status` (memory mode, models, what search skips) and `casetrack reembed`."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from casetrack.cli.common import case_option, default_case, get_app, read, resolve_case


@click.command("status")
@click.option(
    "--case",
    "case",
    default=None,
    metavar="NAME",
    help="Also report this case's models and skipped stages (default: the case of `casetrack case use`).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def status(ctx: click.Context, case: str | None, as_json: bool) -> None:
    """Show the memory mode, which models each slot uses, and which search stages are skipped."""
    if case is None and default_case(ctx.find_root().obj) is not None:
        case = resolve_case(ctx, None, quiet=as_json)
    info = read(ctx, "app_status", {"case": case})
    if as_json:
        click.echo(json.dumps(info))
        return
    click.echo(f"CaseTrack {info['version']}  data: {info['data_dir']}  models: {info['models_dir']}")
    app = ctx.find_root().meta.get("casetrack.app")  # run here: the daemon logged its own at start
    rebuilt = app.registry.rebuilt if app is not None else ()  # a damaged registry, folders added back
    for line in rebuilt:
        click.secho(f"Registry: {line}", fg="yellow")
    click.echo(f"Memory mode: {info['memory_mode']} ({info['memory_mode_reason']})")
    _print_models(info)
    _print_ocr(info["ocr"])
    if info.get("case"):
        _print_case(info["case"])


def _print_models(info: dict[str, Any]) -> None:
    """Each language's models by slot, and the one command that installs the missing ones."""
    for language, slots in info["slots"].items():
        click.echo(f"Models for {language} cases:")
        for s in slots:
            model = s["model"] or "MISSING"
            note = f" - {s['problem']}" if s["problem"] else ""
            click.echo(f"  {s['slot']:<4} {s['purpose']:<17} {model:<28} {s['residency']:<9}{note}")
    missing, fix = info.get("models_missing") or [], info.get("models_fix")
    if missing and fix:  # what the memory mode uses and is not installed, and the one command for all
        names = ", ".join(f"{m['model']} ({m['slot']})" for m in missing)
        click.secho(
            f"Missing models: {names}. Fix: {fix['cli']} (offline: {fix['offline_cli']})", fg="yellow"
        )


def _print_ocr(ocr: dict[str, Any]) -> None:
    if ocr["available"]:
        click.echo(f"OCR: tesseract {ocr['version']}, languages: {', '.join(ocr['languages']) or 'none'}")
    if ocr["problem"]:
        click.secho(f"OCR: {ocr['problem']}" + (f" Fix: {ocr['fix']}" if ocr["fix"] else ""), fg="yellow")


def _print_case(c: dict[str, Any]) -> None:
    """The case's missing vectors and the stages its search skips, each with its fix."""
    click.echo(f"Case '{c['name']}' ({c['language']}):")
    for slot, n in c["chunks_missing"].items():
        if n:
            click.echo(f'  {n} chunks have no {slot} vectors (casetrack reembed --case "{c["name"]}")')
    if c.get("windows_missing"):
        click.echo(
            f"  {c['windows_missing']} chunks have no E1 passage windows, so E1 ranks them by the whole "
            f'chunk only (casetrack reembed --case "{c["name"]}")'
        )
    for slot, why in c["search_skips"].items():
        click.secho(f"  search skips {slot}: {why}", fg="yellow")


@click.command("reembed")
@case_option
@click.option("--all", "everything", is_flag=True, help="Recompute every embedding, not only stale ones.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report on stdout.")
@click.pass_context
def reembed(ctx: click.Context, case: str, everything: bool, as_json: bool) -> None:
    """Fill in missing embeddings and replace ones made by other models (text is kept)."""
    app = get_app(ctx)
    bar: Any = None

    def on_document(i: int, total: int, name: str) -> None:
        nonlocal bar
        if not sys.stderr.isatty():
            return
        if bar is None:
            bar = click.progressbar(length=total, label="Re-embedding", file=sys.stderr, show_pos=True)
            bar.__enter__()
        bar.update(1 if i else 0, current_item=name[:40])

    try:
        report = app.reembed(case, everything, on_document=on_document)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    for item in report.reembedded:
        click.echo(f"  OK   {item['document']}: {', '.join(item['slots'])} ({item['chunks']} chunks)")
    click.echo(
        f"{report.documents} documents: {len(report.reembedded)} re-embedded, {report.up_to_date} already up to date."
    )
    for warning in report.still_missing.values():
        click.secho(f"Note: {warning}", fg="yellow", err=True)


@click.command("audit")
@click.option("--case", "case", default=None, help="Only this case (name or id).")
@click.option(
    "--last", default=50, show_default=True, type=click.IntRange(1, 100_000), help="How many entries."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one list).")
@click.pass_context
def audit(ctx: click.Context, case: str | None, last: int, as_json: bool) -> None:
    """Who searched which case, when, with which tool, how many results and how fast (never the
    question or any document text unless CASETRACK_AUDIT_QUERIES=1 was set when it was asked)."""
    import datetime

    app = get_app(ctx)
    name = app.registry.get(case).name if case else None
    entries = app.audit.read(name, last)
    if as_json:
        click.echo(json.dumps(entries, ensure_ascii=False))
        return
    if not entries:
        click.echo("No searches recorded yet." if name is None else f"No searches of '{name}' recorded yet.")
    for e in entries:
        when = datetime.datetime.fromtimestamp(float(e["at"])).isoformat(sep=" ", timespec="seconds")
        query = f'  "{e["query"]}"' if "query" in e else ""
        click.echo(
            f"{when}  {e['client']:<15} {e['case']:<24} {e['tool']:<16} {e['results']:>3} results "
            f"{e['ms']:>7.0f} ms{query}"
        )
