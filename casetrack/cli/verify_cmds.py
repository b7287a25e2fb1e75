"""`casetrack verify`: is a quote really at the place it cites?"""

from __future__ import annotations

import json
import re
import sys
import textwrap

import click

from casetrack.cli.common import case_option, read
from casetrack.domain.views import VerifyJson

# Exit codes: a script can tell a verified quote (0) from each kind of problem; 1 stays "error"
# (unknown case or document, bad input) and 2 "usage" (click), as for every command.
EXIT_BY_VERDICT = {"exact": 0, "close": 4, "elsewhere": 5, "not_found": 6}
_COLOUR = {"exact": "green", "close": "yellow", "elsewhere": "yellow", "not_found": "red"}
_LINES = re.compile(r"^\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*$")


def _lines(value: str | None) -> tuple[int | None, int | None]:
    if value is None:
        return None, None
    m = _LINES.match(value)
    if m is None or int(m[1]) < 1:
        raise click.BadParameter("give a line or a range of lines, e.g. 7 or 30-34", param_hint="--lines")
    return int(m[1]), int(m[2]) if m[2] else None


def print_verdict(v: VerifyJson) -> None:
    """Human output: verdict, differences, the right cite, the text at the cited place."""
    click.secho(
        f"{v['verdict'].upper().replace('_', ' ')}: ", fg=_COLOUR.get(v["verdict"]), bold=True, nl=False
    )
    click.echo(v["message"].split(": ", 1)[-1])
    if v["differences"]:
        click.echo("Differences (quote -> document):")
        for d in v["differences"]:
            flag = "  <- changes the meaning" if d["kind"] in v["meaning_changes"] else ""
            quote, text = d["quote"] or "(nothing)", d["text"] or "(nothing)"
            click.echo(f"  {d['kind']:<9} {quote!r} -> {text!r}{flag}")
    if v["found_at"] and v["verdict"] != "exact":
        click.secho(f"Cite it as: {v['found_at']}", bold=True)
    for other in v["also_found_at"]:
        click.echo(f"Also at:    {other}")
    where = v["cite_resolved"] or v["citation"]
    trimmed = " (the lines that best match)" if v["text_at_cite_trimmed"] else ""
    click.echo(f"Text at {where}{trimmed}:")
    body = v["text_at_cite"] or "(no text at that place)"
    for paragraph in body.split("\n\n"):
        click.echo(textwrap.indent(textwrap.fill(" ".join(paragraph.split()), 100), "   "))


@click.command("verify")
@case_option
@click.option("--quote", required=True, help="The quoted words ('-' reads them from stdin).")
@click.option(
    "--cite",
    "citation",
    default=None,
    help="The citation as CaseTrack prints it: 'Contract.pdf, p. 12, para. 8, ll. 1-4', "
    "'Opinion.docx, para. 14', 'notes.txt, ll. 30-34', 'Contract.pdf, pp. 12-13'.",
)
@click.option("--document", default=None, help="Document name or id (instead of, or overriding, the cite's).")
@click.option("--page", type=click.IntRange(1), default=None, help="Page (overrides the cite's).")
@click.option("--paragraph", type=click.IntRange(1), default=None, help="Paragraph (overrides the cite's).")
@click.option("--lines", "lines", default=None, help="Line or lines, e.g. 7 or 30-34 (override the cite's).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def verify(
    ctx: click.Context,
    case: str,
    quote: str,
    citation: str | None,
    document: str | None,
    page: int | None,
    paragraph: int | None,
    lines: str | None,
    as_json: bool,
) -> None:
    """Check that a quote is at the place it cites.

    \b
    Verdicts:
      exact      the quote is at the cited place (case, accents, punctuation, quote marks,
                 spacing and line-break hyphens aside)
      close      it is there with small differences, listed word by word; a changed number,
                 negation (not, never, não...) or modal verb (shall/may, deverá/poderá...) is
                 flagged as changing the meaning
      elsewhere  it is in the case at another place: "Cite it as" gives the right citation
      not_found  it is nowhere in the case
    The text actually at the cited place is always shown.

    \b
    Exit codes: 0 exact, 4 close, 5 elsewhere, 6 not_found;
                1 error (unknown case or document), 2 bad usage.
    """
    if quote == "-":
        quote = sys.stdin.read()
    first, last = _lines(lines)
    if not (citation or document):
        raise click.UsageError("give --cite (or --document with --page/--paragraph/--lines)")
    result: VerifyJson = read(
        ctx,
        "verify_citation",
        {
            "case": case,
            "quote": quote,
            "citation": citation,
            "document": document,
            "page": page,
            "paragraph": paragraph,
            "line_start": first,
            "line_end": last,
        },
    )
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False))
    else:
        print_verdict(result)
    ctx.exit(EXIT_BY_VERDICT.get(result["verdict"], 1))
