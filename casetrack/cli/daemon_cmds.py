"""`casetrack serve` (Claude's stdio entry point) and `casetrack daemon start|stop|status|run`."""

from __future__ import annotations

import json
import sys

import click

from casetrack.config import Settings

DEFAULT_IDLE_EXIT_S = 1800.0  # a daemon started by `serve` exits after 30 idle minutes


@click.command("serve")
@click.option(
    "--idle-exit",
    "idle_exit",
    default=DEFAULT_IDLE_EXIT_S,
    show_default=True,
    type=float,
    help="If this starts the daemon: seconds it may stay idle (no clients, no jobs) before exiting; 0 = never.",
)
@click.pass_obj
def serve(settings: Settings, idle_exit: float) -> None:
    """Stdio MCP server for Claude: relays to this data directory's daemon (starting it if needed)."""
    from casetrack.daemon.relay import serve_stdio

    sys.exit(serve_stdio(settings, idle_exit_s=idle_exit))


@click.group("daemon")
def daemon() -> None:
    """The background process that owns the cases and the models (one per data directory)."""


@daemon.command("start")
@click.option(
    "--idle-exit",
    "idle_exit",
    default=0.0,
    show_default=True,
    type=float,
    help="Exit after this many idle seconds (no clients, no jobs); 0 = never.",
)
@click.pass_obj
def start(settings: Settings, idle_exit: float) -> None:
    """Start the daemon in the background (does nothing if it already runs)."""
    from casetrack.daemon.client import ensure_daemon

    answer = ensure_daemon(settings, idle_exit_s=idle_exit)
    click.echo(
        f"CaseTrack daemon running (pid {answer['pid']}, version {answer['version']}) for {settings.data_dir}"
    )


@daemon.command("stop")
@click.pass_obj
def stop(settings: Settings) -> None:
    """Stop the daemon; running ingest jobs resume when it starts again."""
    from casetrack.daemon.client import stop_daemon

    pid = stop_daemon(settings)
    click.echo(
        f"Stopped the CaseTrack daemon (pid {pid})." if pid else "The CaseTrack daemon is not running."
    )


@daemon.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def status(settings: Settings, as_json: bool) -> None:
    """Whether the daemon runs, its pid, RAM, clients, models loaded and jobs."""
    from casetrack.daemon import client
    from casetrack.daemon.endpoint import DaemonUnavailable, RuntimePaths

    try:
        info = client.call(settings, "status", {})
    except DaemonUnavailable:
        info = None
    log = str(RuntimePaths.of(settings).log)
    if as_json:
        click.echo(json.dumps({"running": info is not None, "log": log, **(info or {})}))
        return
    if info is None:
        click.echo(
            f"The CaseTrack daemon is not running for {settings.data_dir}.\n"
            "Start it with: casetrack daemon start (casetrack serve starts it for Claude)."
        )
        return
    click.echo(
        f"CaseTrack daemon {info['version']}: pid {info['pid']}, up {info['uptime_s']:.0f} s, "
        f"{info['rss_mb']:.0f} MB RAM"
    )
    click.echo(
        f"  clients: {info['connections'] - 1} connected, {info['sessions_total']} MCP sessions so far"
    )
    click.echo(
        f"  models loaded: {', '.join(info['loaded_models']) or 'none yet'} ({info['model_loads']} loads)"
    )
    for job in info["jobs_active"]:
        click.echo(
            f"  job {job['id']}: {job['case_name']} {job['status']} {job['done']}/{job['total']} files"
        )
    click.echo(f"  log: {log}")


@daemon.command("run")
@click.option(
    "--idle-exit",
    "idle_exit",
    default=0.0,
    show_default=True,
    type=float,
    help="Exit after this many idle seconds (no clients, no jobs); 0 = never.",
)
@click.option(
    "--detached", is_flag=True, hidden=True, help="Started in the background: log to the file only."
)
@click.pass_obj
def run(settings: Settings, idle_exit: float, detached: bool) -> None:
    """Run the daemon in the foreground (logs to stderr and the data directory's logs/)."""
    from casetrack.daemon.server import AlreadyRunning, run_daemon

    try:
        run_daemon(settings, foreground=not detached, idle_exit_s=idle_exit)
    except AlreadyRunning as e:
        # Two clients may start a daemon at once: the loser exits quietly, the winner serves both.
        click.echo(f"{e.message} {e.hint}", err=True)
        sys.exit(0)
