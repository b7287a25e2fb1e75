"""`casetrack documents list|delete`: a case's documents from the terminal."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import click

from casetrack.cli.common import get_app, read
from casetrack.domain.cases import DOCUMENT_SORTS
from casetrack.errors import CaseTrackError


@click.group("documents")
def documents() -> None:
    """List or delete the documents of a case."""


@documents.command("list")
@click.option("--case", "case", required=True, help="Case name or id.")
@click.option("--sort", "sort_by", type=click.Choice(list(DOCUMENT_SORTS)), default="date", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def list_cmd(ctx: click.Context, case: str, sort_by: str, as_json: bool) -> None:
    """The case's documents: name, type, pages, chunks, pages read by OCR; then the legal type,
    the document's date, process numbers, tribunals and tags."""
    docs = read(ctx, "list_documents", {"case": case, "sort_by": sort_by})
    if as_json:
        click.echo(json.dumps(docs))
        return
    if not docs:
        click.echo("No documents in this case yet.")
    for d in docs:
        pages = f"{d['pages']} pp., " if d["pages"] else ""
        ocr = f", {len(d['ocr_pages'])} pages OCR'd" if d["ocr_pages"] else ""
        click.echo(f"  {d['name']}  ({d['file_type']}, {pages}{d['chunks']} chunks{ocr})  id {d['document_id']}")
        legal = legal_line(d)
        if legal:
            click.echo(f"      {legal}")


def legal_line(d: Mapping[str, Any]) -> str:
    """A document's legal metadata in one line: type, date, process, tribunal, tags."""
    parts = [d.get("doc_type") or "", d.get("doc_date") or ""]
    parts += [", ".join(d.get("process_numbers") or [])[:80], ", ".join(d.get("tribunals") or [])[:60]]
    tags = d.get("tags") or []
    parts.append("tags: " + ", ".join(tags) if tags else "")
    return " | ".join(p for p in parts if p)


@documents.command("delete")
@click.option("--case", "case", required=True, help="Case name or id.")
@click.argument("document")
@click.option("--yes", is_flag=True, help="Confirm: remove the document's text, vectors and index entries for good.")
@click.pass_context
def delete(ctx: click.Context, case: str, document: str, yes: bool) -> None:
    """Delete a document from a case: its text, vectors and index entries leave the disk (the
    original file is not touched)."""
    app = get_app(ctx)
    name = app.document_details(case, document)["name"]
    if not yes:
        raise CaseTrackError(
            f"Deleting '{name}' removes its text, vectors and index entries from this computer for good.",
            f'Confirm with: casetrack documents delete --case "{case}" "{name}" --yes',
        )
    deleted = app.delete_document(case, document)
    click.echo(f"Deleted '{deleted}' from the case and from the disk. Your original file was not touched.")
