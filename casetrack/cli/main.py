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


@click.group(cls=CaseTrackGroup, context_settings={"help_option_names": ["-h", "--help"]})
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

    ctx.obj = resolve_settings(data_dir, models_dir, environ={}, memory_mode=memory_mode, ocr_languages=ocr_languages,
                               allowed_roots=os.environ.get("CASETRACK_ALLOWED_ROOTS"), keep_revoked=keep_revoked)


def _register() -> None:
    from casetrack.cli import (
        case_cmds,
        daemon_cmds,
        doctor_cmds,
        document_cmds,
        ingest_cmds,
        jobs_cmds,
        maintenance_cmds,
        models_cmds,
        search_cmds,
        setup_cmds,
        status_cmds,
        table_cmds,
        verify_cmds,
    )

    cli.add_command(case_cmds.case)
    cli.add_command(ingest_cmds.ingest)
    cli.add_command(ingest_cmds.ingest_folder)
    cli.add_command(ingest_cmds.reocr)
    from casetrack.cli import sync_cmds

    cli.add_command(sync_cmds.sync)
    cli.add_command(sync_cmds.watch)
    cli.add_command(document_cmds.documents)
    cli.add_command(search_cmds.search)
    cli.add_command(search_cmds.chunk)
    cli.add_command(search_cmds.authorities)
    cli.add_command(search_cmds.entity)
    cli.add_command(search_cmds.find_entity)
    cli.add_command(search_cmds.demo)
    cli.add_command(verify_cmds.verify)
    cli.add_command(table_cmds.table)
    cli.add_command(table_cmds.evaluate)
    cli.add_command(status_cmds.status)
    cli.add_command(status_cmds.reembed)
    cli.add_command(status_cmds.audit)
    cli.add_command(models_cmds.models)
    cli.add_command(daemon_cmds.serve)
    cli.add_command(daemon_cmds.daemon)
    cli.add_command(jobs_cmds.jobs)
    cli.add_command(setup_cmds.setup_claude_code_cmd)
    cli.add_command(setup_cmds.setup_claude_desktop_cmd)
    cli.add_command(doctor_cmds.doctor)
    cli.add_command(maintenance_cmds.update)
    cli.add_command(maintenance_cmds.uninstall)


_register()


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
        if reconfigure is not None and (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8":
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
