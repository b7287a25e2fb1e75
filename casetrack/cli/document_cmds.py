"""`casetrack documents list|info|delete`: a case's documents from the terminal."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import click

from casetrack.cli.common import case_option, get_app, near_duplicates_option, read
from casetrack.domain.cases import DOCUMENT_SORTS
from casetrack.errors import CaseTrackError


@click.group("documents")
def documents() -> None:
    """List, describe or delete the documents of a case."""


@documents.command("list")
@case_option
@click.option("--sort", "sort_by", type=click.Choice(list(DOCUMENT_SORTS)), default="date", show_default=True)
@near_duplicates_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def list_cmd(
    ctx: click.Context, case: str, sort_by: str, as_json: bool, near_duplicates: str = "show"
) -> None:
    """The case's documents: name, type, pages, chunks, pages read by OCR; then the legal type,
    the document's date, process numbers, tribunals and tags; a near-duplicate names the
    document it nearly copies."""
    docs = read(ctx, "list_documents", {"case": case, "sort_by": sort_by, "near_duplicates": near_duplicates})
    if as_json:
        click.echo(json.dumps(docs))
        return
    if not docs:
        click.echo("No documents in this case yet.")
    for d in docs:
        pages = f"{d['pages']} pp., " if d["pages"] else ""
        ocr = f", {len(d['ocr_pages'])} pages OCR'd" if d["ocr_pages"] else ""
        needs = f", needs OCR: p. {_pages(d['needs_ocr_pages'])}" if d["needs_ocr_pages"] else ""
        click.echo(
            f"  {d['name']}  ({d['file_type']}, {pages}{d['chunks']} chunks{ocr}{needs})  id {d['document_id']}"
        )
        legal = legal_line(d)
        if legal:
            click.echo(f"      {legal}")
        if d.get("near_duplicate_of"):
            click.echo(f"      {near_line(d['near_duplicate_of'])}")


def near_line(near: Mapping[str, Any]) -> str:
    return (
        f"near-duplicate of {near['name']} ({near['similarity']:.0%} the same; "
        f"{near['words_changed']} words, {near['lines_changed']} lines changed)"
    )


def legal_line(d: Mapping[str, Any]) -> str:
    """A document's legal metadata in one line: type, date, process, tribunal, tags."""
    parts = [d.get("doc_type") or "", d.get("doc_date") or ""]
    parts += [", ".join(d.get("process_numbers") or [])[:80], ", ".join(d.get("tribunals") or [])[:60]]
    tags = d.get("tags") or []
    parts.append("tags: " + ", ".join(tags) if tags else "")
    return " | ".join(p for p in parts if p)


@documents.command("info")
@case_option
@click.argument("document")
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object (as the get_document tool gives it)."
)
@click.pass_context
def info(ctx: click.Context, case: str, document: str, as_json: bool) -> None:
    """One document in full (name, id or a unique part of its name): pages, chunks, how its text
    was read, OCR confidence, Bates range, legal metadata, source file."""
    d = read(ctx, "document_details", {"case": case, "document": document})
    if as_json:
        click.echo(json.dumps(d, ensure_ascii=False))
        return
    for line in detail_lines(d):
        click.echo(line)


def detail_lines(d: Mapping[str, Any]) -> list[str]:
    """`documents info` in words, one fact a line."""
    pages = f"{d['pages']} pages, " if d["pages"] else ""
    lines = [
        f"{d['name']}  (id {d['document_id']}, {d['status']})",
        f"  {d['file_type']}, {pages}{d['chunks']} chunks; text: {d['extraction_method'] or 'none'}"
        f"; ingested {d['ingested_at'] or 'at an unknown time'}",
    ]
    missing = "" if d["source_exists"] else "  (not found there now)"
    lines.append(f"  source: {d['source_path'] or 'unknown'}{missing}")
    if d["ocr_pages"]:
        low = d["low_confidence_pages"]
        lines.append(
            f"  OCR'd pages: {_pages(d['ocr_pages'])}"
            + (f"; low confidence on p. {_pages(low)}: check them against the scan" if low else "")
        )
    if d["needs_ocr_pages"]:
        lines.append(
            f"  pages that need OCR: {_pages(d['needs_ocr_pages'])} "
            f'(casetrack reocr --case "{d["case"]}" --document "{d["name"]}")'
        )
    if d["bates"]:
        lines.append(f"  Bates: {' - '.join(d['bates'])}")
    legal = legal_line(d)
    if legal:
        lines.append(f"  {legal}")
    if d["parties"]:
        lines.append(f"  parties: {', '.join(d['parties'])[:200]}")
    lines += _link_lines(d)
    problems = [c["problem"] for c in d.get("process_checks") or [] if c.get("problem")]
    lines += [f"  warning: {w}" for w in d["warnings"] if w not in problems]
    return lines + [f"  warning: {p}" for p in problems]


def _link_lines(d: Mapping[str, Any]) -> list[str]:
    """The documents linked to this one: its e-mail or attachments, near-duplicates, its thread."""
    lines = []
    if d["attachment_of"]:
        lines.append(f"  attachment of: {d['attachment_of']['name']}")
    if d["attachments"]:
        lines.append(f"  attachments: {', '.join(a['name'] for a in d['attachments'])}")
    if d.get("near_duplicate_of"):
        lines.append(f"  {near_line(d['near_duplicate_of'])}")
    if d.get("near_duplicates"):
        lines.append(f"  nearly copied by: {', '.join(c['name'] for c in d['near_duplicates'])}")
    if d.get("thread"):
        lines.append(f"  thread ({len(d['thread'])} messages, oldest first):")
        lines += [
            f"    {'>' if m['document_id'] == d['document_id'] else ' '} {(m['date'] or '')[:16]}  "
            f"{m['sender'][:40]}  {m['subject'][:60]}  ({m['name']})"
            for m in d["thread"]
        ]
    return lines


def _pages(numbers: list[int], most: int = 15) -> str:
    return ", ".join(map(str, numbers[:most])) + (
        f" and {len(numbers) - most} more" if len(numbers) > most else ""
    )


@documents.command("delete")
@case_option
@click.argument("document")
@click.option(
    "--yes", is_flag=True, help="Confirm: remove the document's text, vectors and index entries for good."
)
@click.option(
    "--json", "as_json", is_flag=True, help='Print JSON: {"deleted": NAME, "id": ID, "case": CASE}.'
)
@click.pass_context
def delete(ctx: click.Context, case: str, document: str, yes: bool, as_json: bool) -> None:
    """Delete a document from a case: its text, vectors and index entries leave the disk (the
    original file is not touched)."""
    app = get_app(ctx)
    details = app.document_details(case, document, exact=True)
    name = details["name"]
    if not yes:
        raise CaseTrackError(
            f"Deleting '{name}' removes its text, vectors and index entries from this computer for good.",
            f'Confirm with: casetrack documents delete --case "{app.registry.get(case).name}" "{name}" --yes',
        )
    deleted = app.delete_document(case, document)
    from casetrack.daemon.jobs import scrub_records

    scrub_records(app.settings.data_dir / "jobs", name, details.get("source_path"))  # its name and path
    if as_json:
        click.echo(
            json.dumps({"deleted": deleted, "id": details.get("id"), "case": app.registry.get(case).name})
        )
        return
    click.echo(f"Deleted '{deleted}' from the case and from the disk. Your original file was not touched.")
