"""`casetrack show`: a cited page with its cited lines highlighted, in the browser or as a PNG.

The browser gets the same view Claude's MCP Apps hosts show (casetrack/view/bundle.py), written
as one private file (0600, in DATA_DIR/view/, a 0700 folder; files older than a day are removed
when the next one is written) with the cited page and the pages either side of it inline: no
server, nothing listening, no request. `--out page.png` writes the highlighted page instead, the
only file written outside the data folder, where the user asked.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
import webbrowser
from pathlib import Path
from typing import Any

import click

from casetrack.cli.common import case_option, get_app

VIEW_FOLDER = "view"
KEEP_SECONDS = 24 * 3600
NEIGHBOURS = 2  # pages embedded each side of the cited one (the view steps through them)


def _clean(folder: Path) -> None:
    """Remove the page files of earlier runs (older than a day)."""
    cutoff = time.time() - KEEP_SECONDS
    for old in folder.glob("page-*.html"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass


def _embedded(app: Any, case: str, cited: Any, width: int) -> dict[str, Any]:
    """The cited page's view and its neighbours' (views and images by page index)."""
    from casetrack.errors import CaseTrackError
    from casetrack.view.targets import ViewRequest

    views: dict[str, Any] = {str(cited["page_index"]): cited}
    images: dict[str, str] = {}
    first = max(0, cited["page_index"] - NEIGHBOURS)
    last = min(cited["page_count"] - 1, cited["page_index"] + NEIGHBOURS)
    for index in range(first, last + 1):
        if index != cited["page_index"]:
            request = ViewRequest(document=cited["document_id"], page_index=index)
            views[str(index)] = app.page_view(case, request).to_json()
        if views[str(index)]["kind"] == "image":
            try:
                png = app.page_image(case, cited["document_id"], index, width)
            except CaseTrackError:
                continue
            images[str(index)] = base64.b64encode(png).decode("ascii")
    return {"case": cited["case"], "result": cited, "views": views, "images": images}


@click.command("show")
@case_option
@click.argument("citation", required=False)
@click.option(
    "--chunk", "chunk_id", default=None, help="A chunk id from a search result (instead of a citation)."
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the page with the cited lines highlighted to this PNG file instead of opening it.",
)
@click.option(
    "--width", type=click.IntRange(400, 2400), default=1200, show_default=True, help="Image width (pixels)."
)
@click.option(
    "--no-open", is_flag=True, help="Write the page file and print its path; do not open a browser."
)
@click.option("--json", "as_json", is_flag=True, help="Print the page view as one JSON object.")
@click.pass_context
def show(
    ctx: click.Context,
    case: str,
    citation: str | None,
    chunk_id: str | None,
    out: Path | None,
    width: int,
    no_open: bool,
    as_json: bool,
) -> None:
    """Show a cited page with the cited lines highlighted.

    \b
    CITATION as CaseTrack prints it:
      casetrack show "Contract.pdf, p. 12, ll. 4-9"
      casetrack show "Smith Dep. 45:3-12 (Smith_depo.pdf, p. 46)"
      casetrack show --chunk 3f2a...:0:17
      casetrack show "Contract.pdf, p. 12, ll. 4-9" --out page.png
    Opens the page in the default browser (a private file in the data folder); PDF and scanned
    pages are drawn as they look, other documents laid out as text with their line numbers.
    """
    from casetrack.privacy_fs import private_dir
    from casetrack.view.bundle import embedded_html
    from casetrack.view.targets import ViewRequest

    if not (citation or chunk_id):
        raise click.UsageError('give a CITATION (e.g. "Contract.pdf, p. 12, ll. 4-9") or --chunk ID')
    app = get_app(ctx)
    request = ViewRequest(citation=citation, chunk_id=chunk_id)
    if out is not None:
        from casetrack.atomic_files import write_bytes

        png = app.highlighted_page(case, request, width)
        write_bytes(out.expanduser(), png)
        click.echo(f"Wrote {out}")
        return
    view = app.page_view(case, request).to_json()
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False))
        return
    for warning in view["warnings"]:
        click.secho(f"Note: {warning}", fg="yellow", err=True)
    folder = Path(ctx.find_root().obj.data_dir) / VIEW_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    private_dir(folder)
    _clean(folder)
    from casetrack.atomic_files import write_text

    page_file = folder / f"page-{secrets.token_hex(8)}.html"
    write_text(page_file, embedded_html(_embedded(app, case, view, width)))
    click.echo(f"{view['citation'] or view['document']}: {page_file}")
    if not no_open:
        webbrowser.open(page_file.as_uri())
