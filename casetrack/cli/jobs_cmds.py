"""`casetrack jobs list|show|cancel`: the ingest (and model) jobs of the data directory's daemon.

Jobs exist only in the daemon: an ingest run in the command's own process (no daemon running)
is not a job. The answers are the daemon's job records, as the get_job / cancel_job tools give them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import click

from casetrack.errors import CaseTrackError

JOB_TIMEOUT_S = 60.0


def _call(ctx: click.Context, op: str, args: dict[str, Any]) -> Any:
    from casetrack.daemon import client
    from casetrack.daemon.endpoint import DaemonUnavailable

    settings = ctx.find_root().obj
    try:
        return client.call(settings, op, args, timeout=JOB_TIMEOUT_S)
    except DaemonUnavailable as e:
        if e.code != "not_running":
            raise
        raise CaseTrackError(
            f"No CaseTrack daemon is running for {settings.data_dir}, and jobs live only in the daemon (an ingest "
            "run without it works in the command's own process and is not a job).",
            "Start it: casetrack daemon start (ingests then run in it as jobs, and `casetrack jobs list` shows them)",
        ) from e


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S") if ts else "-"


def _what(j: Mapping[str, Any]) -> str:
    """An ingest job's case, or a models job's kind."""
    return str(j["case_name"]) if j.get("kind", "ingest") == "ingest" else f"models {j.get('kind')}"


@click.group("jobs")
def jobs() -> None:
    """The daemon's ingest jobs: list them, show one, cancel one."""


@jobs.command("list")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Every job the daemon has on record (default: the 10 most recent).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of jobs, newest first.")
@click.pass_context
def list_jobs(ctx: click.Context, show_all: bool, as_json: bool) -> None:
    """The daemon's jobs, newest first: id, status, case, files done."""
    found: list[dict[str, Any]] = _call(ctx, "jobs", {"all": show_all})
    if as_json:
        click.echo(json.dumps(found, ensure_ascii=False))
        return
    if not found:
        click.echo("No jobs yet: ingests started while the daemon runs become jobs.")
        return
    for j in found:
        now = f"  now: {j['current']} ({j['stage']})" if j.get("current") else ""
        click.echo(
            f"{j['id']}  {j['status']:<9}  {_what(j)}  {j['done']}/{j['total']} files  "
            f"{_when(j['created_at'])}  {j['label']}{now}"
        )


@jobs.command("show")
@click.argument("job_id")
@click.option("--json", "as_json", is_flag=True, help="Print the job as one JSON object.")
@click.pass_context
def show(ctx: click.Context, job_id: str, as_json: bool) -> None:
    """One job: its status, what it is doing, and the report of each file done."""
    j: dict[str, Any] = _call(ctx, "job", {"id": job_id, "wait": 0})
    if as_json:
        click.echo(json.dumps(j, ensure_ascii=False))
        return
    for line in job_lines(j):
        click.echo(line)


def job_lines(j: Mapping[str, Any]) -> list[str]:
    """`jobs show` in words."""
    lines = [
        f"Job {j['id']}: {j['status']}  ({_what(j)}: {j['label']})",
        f"  {j['done']} of {j['total']} done; created {_when(j['created_at'])}, started {_when(j['started_at'])}, "
        f"finished {_when(j['finished_at'])}",
    ]
    if j.get("current"):
        lines.append(f"  now: {j['current']} ({j['stage']})")
    if j.get("resumed"):
        lines.append(f"  resumed {j['resumed']} time(s) after a daemon restart")
    if j.get("error"):
        lines.append(f"  error: {j['error']}" + (f" ({j['hint']})" if j.get("hint") else ""))
    for r in j.get("results") or []:
        problem = f": {r.get('error')}" if r.get("error") else ""
        lines.append(f"  {r.get('status', '?'):<10} {r.get('name') or r.get('path')}{problem}")
    return lines


@jobs.command("cancel")
@click.argument("job_id")
@click.option("--json", "as_json", is_flag=True, help="Print the job as one JSON object.")
@click.pass_context
def cancel(ctx: click.Context, job_id: str, as_json: bool) -> None:
    """Stop a job after the file it is on; the files already ingested stay in the case."""
    j: dict[str, Any] = _call(ctx, "cancel_job", {"id": job_id})
    if as_json:
        click.echo(json.dumps(j, ensure_ascii=False))
    elif j["status"] == "cancelled" and not j.get("started_at"):
        click.echo(f"Cancelled job {j['id']} before it started.")
    elif j["status"] in ("done", "failed", "cancelled"):
        click.echo(f"Job {j['id']} had already finished: {j['status']} ({j['done']} of {j['total']} done).")
    else:
        click.echo(
            f"Cancelling job {j['id']} ({j['done']} of {j['total']} done): it stops after the file it is on; "
            f"files already ingested stay. Check: casetrack jobs show {j['id']}"
        )
