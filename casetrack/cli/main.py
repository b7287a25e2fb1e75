"""`casetrack` command line: the entry point reads flags and environment, once."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

import click

from casetrack import __version__
from casetrack.cli.common import CaseTrackGroup
from casetrack.privacy import keep_local

__all__ = ["CaseTrackGroup", "cli", "main"]


def _configure_logging(verbose: int) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(stream=sys.stderr, level=level, format="%(levelname)s %(name)s: %(message)s")


# Each command's module is imported only when that command runs (or help lists them all): a
# `casetrack search` through the daemon then imports its own module, not all sixteen (~0.2 s).
_COMMANDS: dict[str, str] = {
    "case": "case_cmds:case",
    "ingest": "ingest_cmds:ingest",
    "ingest-folder": "ingest_cmds:ingest_folder",
    "reocr": "ingest_cmds:reocr",
    "sync": "sync_cmds:sync",
    "watch": "sync_cmds:watch",
    "documents": "document_cmds:documents",
    "search": "search_cmds:search",
    "chunk": "search_cmds:chunk",
    "authorities": "search_cmds:authorities",
    "entity": "search_cmds:entity",
    "find-entity": "search_cmds:find_entity",
    "demo": "search_cmds:demo",
    "verify": "verify_cmds:verify",
    "show": "show_cmds:show",
    "table": "table_cmds:table",
    "eval": "table_cmds:evaluate",
    "chronology": "chronology_cmds:chronology",
    "status": "status_cmds:status",
    "reembed": "status_cmds:reembed",
    "audit": "status_cmds:audit",
    "models": "models_cmds:models",
    "serve": "daemon_cmds:serve",
    "daemon": "daemon_cmds:daemon",
    "jobs": "jobs_cmds:jobs",
    "setup-claude-code": "setup_cmds:setup_claude_code_cmd",
    "setup-claude-desktop": "setup_cmds:setup_claude_desktop_cmd",
    "doctor": "doctor_cmds:doctor",
    "update": "maintenance_cmds:update",
    "uninstall": "maintenance_cmds:uninstall",
}


class LazyCommands(CaseTrackGroup):
    """`casetrack`'s group: its commands are `_COMMANDS`, each imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _COMMANDS:
            import importlib

            module, attr = _COMMANDS[cmd_name].split(":")
            command = getattr(importlib.import_module(f"casetrack.cli.{module}"), attr)
            assert isinstance(command, click.Command) and command.name == cmd_name, cmd_name
            self.add_command(command)
        return self.commands.get(cmd_name)


@click.group(cls=LazyCommands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    envvar="CASETRACK_HOME",
    help="Data directory (default: ~/Documents/CaseTrack; env CASETRACK_HOME).",
)
@click.option(
    "--models-dir",
    type=click.Path(file_okay=False),
    envvar="CASETRACK_MODELS_DIR",
    help="Folder of models, each with a model.json (default: DATA_DIR/models; env CASETRACK_MODELS_DIR).",
)
@click.option(
    "--memory-mode",
    type=click.Choice(["auto", "full", "standard", "constrained"], case_sensitive=False),
    envvar="CASETRACK_MEMORY_MODE",
    help="Which models stay in memory (default auto: chosen from detected RAM; env CASETRACK_MEMORY_MODE).",
)
@click.option(
    "--ocr-languages",
    envvar="CASETRACK_OCR_LANGUAGES",
    help="Tesseract languages for scanned pages: eng, por or eng+por (default: the case's language; "
    "env CASETRACK_OCR_LANGUAGES).",
)
@click.option(
    "--keep-revoked",
    is_flag=True,
    envvar="CASETRACK_KEEP_REVOKED",
    help="Index struck-through (revoked) text of DOCX and HTML, marked [revogado: ...], instead of leaving it out "
    "(env CASETRACK_KEEP_REVOKED=1).",
)
@click.option("-v", "--verbose", count=True, help="Log more to stderr (-v info, -vv debug).")
@click.version_option(__version__, prog_name="casetrack")
@click.pass_context
def cli(
    ctx: click.Context,
    data_dir: str | None,
    models_dir: str | None,
    memory_mode: str | None,
    ocr_languages: str | None,
    keep_revoked: bool,
    verbose: int,
) -> None:
    """CaseTrack: search your case documents locally, with exact citations."""
    _configure_logging(verbose)
    # LanceDB's Rust core logs warnings (e.g. "No existing dataset") straight to stderr.
    os.environ.setdefault("LANCEDB_LOG", "error")
    from casetrack.config import resolve_settings

    ctx.obj = resolve_settings(
        data_dir,
        models_dir,
        environ={},
        memory_mode=memory_mode,
        ocr_languages=ocr_languages,
        allowed_roots=os.environ.get("CASETRACK_ALLOWED_ROOTS"),
        keep_revoked=keep_revoked,
    )


def _downloads_models(args: Sequence[str]) -> bool:
    """Whether the command line runs `models download`, the one command meant to reach the network."""
    return any(a == "models" and b == "download" for a, b in zip(args, args[1:], strict=False))


def _utf8_output() -> None:
    """Citations hold '›', accents and curly quotes: on Windows a redirected stdout uses the system
    code page, where they raise UnicodeEncodeError (`casetrack search ... > out.txt`). UTF-8 there."""
    if sys.platform != "win32":
        return
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if (
            reconfigure is not None
            and (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8"
        ):
            reconfigure(encoding="utf-8", errors="replace")


def main() -> None:
    """The process's entry point (the `casetrack` script, `python -m casetrack`, the daemon).

    Telemetry goes off here, before any command imports onnxruntime or huggingface-hub (they read
    the environment at import), and the daemon and parse child inherit it. Not in `cli()`: that also
    runs in-process under tests, where a forced HF_HUB_OFFLINE would outlive the command.
    """
    from casetrack.privacy_fs import private_umask

    keep_local(os.environ, downloading=_downloads_models(sys.argv[1:]))
    _utf8_output()
    private_umask()  # files and folders CaseTrack creates are the user's alone (0600 / 0700)
    cli(prog_name="casetrack")
