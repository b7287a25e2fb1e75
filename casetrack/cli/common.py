"""What every command shares: the error rendering group, exit codes, the app of a command, how a
read command reaches the daemon, and the default case (`--case` when it is left out).

Nothing heavy is imported here: a read that the daemon answers must not pay for LanceDB,
pyarrow or onnxruntime (`python -X importtime -m casetrack search ...`).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from casetrack import atomic_files
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

# The CLI's own settings in the data directory (0600): the default case of `casetrack case use`.
CLI_STATE_FILE = "cli.json"
NO_CASE = "No case given: pass --case NAME or set a default with `casetrack case use NAME`"
F = TypeVar("F", bound=Callable[..., Any])


class CaseTrackGroup(click.Group):
    """Turns user-facing errors into one clear message (and its fix) instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        from casetrack.cli.safe_output import escaped_output

        with escaped_output():  # a file name's control characters never reach the terminal raw
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
        raise CaseTrackError(
            f"{ENV_CLI_DAEMON} must be one of {', '.join(CLI_DAEMON_MODES)}, not {mode!r}.",
            f"Unset it (unset {ENV_CLI_DAEMON}) or set it to auto.",
        )
    return mode


def read(ctx: click.Context, op: str, args: dict[str, Any]) -> Any:
    """Run read command `op` (`daemon/reads.py`) in the data directory's daemon, whose models are
    loaded (~0.2 s), or in this process (3.5-4.7 s: LanceDB imports, the models load). Same JSON either way.

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
    app = get_app(ctx)
    if isinstance(args.get("case"), str):
        app.registry.get(args["case"])  # a wrong case name said now, not after ~2 s of imports
    from casetrack.daemon.reads import run_read

    return run_read(app, op, args)


def _may_start(mode: str) -> bool:
    return mode == "always" or (mode == "auto" and sys.stderr.isatty())


def _start_daemon(settings: Settings) -> None:
    from casetrack.daemon.client import ensure_daemon

    click.echo(
        f"Starting the CaseTrack daemon for {settings.data_dir}: it keeps the models loaded, so the next "
        f"searches take a fraction of a second (it exits after {CLI_DAEMON_IDLE_EXIT_S / 60:.0f} idle "
        "minutes; stop it: casetrack daemon stop).",
        err=True,
    )
    try:
        ensure_daemon(settings, idle_exit_s=CLI_DAEMON_IDLE_EXIT_S)
    except CaseTrackError as e:  # the command still works: in this process
        click.secho(f"Note: {e.message} Running it in this process instead.", fg="yellow", err=True)


# -- the default case -----------------------------------------------------------------------------


def cli_state_path(settings: Settings) -> Path:
    return settings.data_dir / CLI_STATE_FILE


def default_case(settings: Settings) -> dict[str, str] | None:
    """The default case ({"id", "name"}) set with `casetrack case use`, or None."""
    try:
        state = json.loads(cli_state_path(settings).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise CaseTrackError(
            f"The CLI's settings file {cli_state_path(settings)} cannot be read ({e}).",
            "Set the default case again: casetrack case use NAME (or pass --case NAME)",
        ) from e
    case = state.get("default_case") if isinstance(state, dict) else None
    if isinstance(case, dict) and isinstance(case.get("id"), str) and isinstance(case.get("name"), str):
        return {"id": case["id"], "name": case["name"]}
    return None


def set_default_case(settings: Settings, case: dict[str, str] | None) -> None:
    """Store (or, with None, forget) the default case: a new file written whole, private (0600)."""
    path = cli_state_path(settings)
    if case is None and not path.exists():
        return  # nothing to forget (a data folder that may not exist yet)
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state = {}
    state = state if isinstance(state, dict) else {}
    state["default_case"] = case
    atomic_files.write_json(path, state, indent=1)


def resolve_case(ctx: click.Context, case: str | None, quiet: bool = False) -> str:
    """`--case` as given, else the default case (named on stderr unless `quiet`: --json)."""
    if case is not None and case.strip():
        return case
    settings: Settings = ctx.find_root().obj
    default = default_case(settings)
    if default is None:
        raise CaseTrackError(NO_CASE + ".", "List the cases: casetrack case list")
    if not settings.case_dir(default["id"]).is_dir():  # deleted (by Claude, or its folder by hand)
        raise CaseTrackError(
            f"The default case '{default['name']}' no longer exists.",
            "Pick another: casetrack case use NAME (casetrack case list shows them), or pass --case NAME; "
            "forget it: casetrack case use --clear",
        )
    if not quiet:
        click.echo(f"Case: {default['name']} (the default; change it: casetrack case use NAME)", err=True)
    return default["name"]  # names are unique; the id check above caught a deleted (or re-created) case


def case_option(fn: F) -> F:
    """`--case NAME`, optional: left out, the default case of `casetrack case use` is used (named on
    stderr unless the command prints --json); with neither, a clear error."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["case"] = resolve_case(
            click.get_current_context(), kwargs.get("case"), bool(kwargs.get("as_json"))
        )
        return fn(*args, **kwargs)

    option = click.option(
        "--case",
        "case",
        default=None,
        metavar="NAME",
        help="Case name or id (default: the one set with `casetrack case use NAME`).",
    )
    return cast(F, option(wrapper))


def near_duplicates_option(fn: F) -> F:
    """`--near-duplicates show|group|hide` and its short form `--hide-near-duplicates`; the command
    gets `near_duplicates` (the mode)."""
    from casetrack.domain.cases import NEAR_DUPLICATE_MODES

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if kwargs.pop("hide_near_duplicates", False):
            kwargs["near_duplicates"] = "hide"
        return fn(*args, **kwargs)

    hide = click.option(
        "--hide-near-duplicates",
        is_flag=True,
        help="Leave out documents that nearly copy another one of the case (= --near-duplicates hide).",
    )
    mode = click.option(
        "--near-duplicates",
        type=click.Choice(list(NEAR_DUPLICATE_MODES)),
        default="show",
        show_default=True,
        help="Documents that nearly copy another: show them as any other, group each with the one it "
        "copies (search: one result per group, the copies named on it), or hide them.",
    )
    return cast(F, mode(hide(wrapper)))
