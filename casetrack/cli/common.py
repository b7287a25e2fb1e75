"""What every command shares: the error rendering group, exit codes, the app of a command, and
how a read command reaches the daemon.

Nothing heavy is imported here: a read that the daemon answers must not pay for LanceDB,
pyarrow or onnxruntime (`python -X importtime -m casetrack search ...`).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from casetrack.errors import CaseTrackError

if TYPE_CHECKING:
    from casetrack.app import CaseTrack
    from casetrack.config import Settings

EXIT_ERROR = 1
EXIT_PARTIAL = 3  # a batch finished but some files failed

# auto: use the data directory's daemon when it runs; start it when a person runs the command in a
# terminal (stderr is one). always: start it even from scripts. never: always work in this process.
ENV_CLI_DAEMON = "CASETRACK_CLI_DAEMON"
CLI_DAEMON_MODES = ("auto", "always", "never")
# A daemon the CLI starts exits after this long with no client and no job (as one `serve` starts).
CLI_DAEMON_IDLE_EXIT_S = 1800.0

log = logging.getLogger(__name__)


class CaseTrackGroup(click.Group):
    """Turns user-facing errors into one clear message (and its fix) instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CaseTrackError as e:
            click.secho(f"Error: {e.message}", fg="red", err=True)
            if e.hint:
                click.echo(f"  {e.hint}", err=True)
            ctx.exit(EXIT_ERROR)


def get_app(ctx: click.Context) -> CaseTrack:
    """The application core, built on first use and closed when the command ends."""
    root = ctx.find_root()
    app = root.meta.get("casetrack.app")
    if app is None:
        from casetrack.app import CaseTrack

        # Files are parsed in a child process with a time limit and a memory cap, as in the
        # daemon: a hostile file costs one per-file error, not the command (started on first use).
        app = CaseTrack(root.obj, isolate_parsing=True)
        root.meta["casetrack.app"] = app
        root.call_on_close(app.close)
    return app


def cli_daemon_mode(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    mode = (env.get(ENV_CLI_DAEMON) or "auto").strip().lower()
    if mode not in CLI_DAEMON_MODES:
        raise CaseTrackError(f"{ENV_CLI_DAEMON} must be one of {', '.join(CLI_DAEMON_MODES)}, not {mode!r}.",
                             f"Unset it (unset {ENV_CLI_DAEMON}) or set it to auto.")
    return mode


def read(ctx: click.Context, op: str, args: dict[str, Any]) -> Any:
    """Run read command `op` (`daemon/reads.py`) in the data directory's daemon, whose models are
    loaded (~0.2 s), or in this process (~2 s: the models load first). Same JSON either way.

    With no daemon running, one is started when a person runs the command in a terminal: from the
    second search on it answers in a tenth of the time (measured: bench/footprint.py)."""
    settings: Settings = ctx.find_root().obj
    mode = cli_daemon_mode()
    if mode != "never":
        from casetrack.daemon import client

        answer = client.read(settings, op, args)
        if not answer.served and answer.code == "not_running" and _may_start(mode):
            _start_daemon(settings)
            answer = client.read(settings, op, args)
        if answer.served:
            return answer.value
        if answer.code == "dropped":
            click.secho(f"Note: {answer.why} Running it in this process instead.", fg="yellow", err=True)
        else:
            log.info("%s in this process: %s", op, answer.why)
    from casetrack.daemon.reads import run_read

    return run_read(get_app(ctx), op, args)


def _may_start(mode: str) -> bool:
    return mode == "always" or (mode == "auto" and sys.stderr.isatty())


def _start_daemon(settings: Settings) -> None:
    from casetrack.daemon.client import ensure_daemon

    click.echo(f"Starting the CaseTrack daemon for {settings.data_dir}: it keeps the models loaded, so the next "
               f"searches take a fraction of a second (it exits after {CLI_DAEMON_IDLE_EXIT_S / 60:.0f} idle "
               "minutes; stop it: casetrack daemon stop).", err=True)
    try:
        ensure_daemon(settings, idle_exit_s=CLI_DAEMON_IDLE_EXIT_S)
    except CaseTrackError as e:  # the command still works: in this process
        click.secho(f"Note: {e.message} Running it in this process instead.", fg="yellow", err=True)
