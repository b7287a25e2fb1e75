"""What every command shares: the error rendering group, exit codes and the app of a command."""

from __future__ import annotations

from typing import Any

import click

from casetrack.app import CaseTrack
from casetrack.errors import CaseTrackError

EXIT_ERROR = 1
EXIT_PARTIAL = 3  # a batch finished but some files failed


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
        # Files are parsed in a child process with a time limit and a memory cap, as in the
        # daemon: a hostile file costs one per-file error, not the command (started on first use).
        app = CaseTrack(root.obj, isolate_parsing=True)
        root.meta["casetrack.app"] = app
        root.call_on_close(app.close)
    return app
