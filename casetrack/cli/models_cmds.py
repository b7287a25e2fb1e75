"""`casetrack models ...`: list the encoder slots, download, import and verify models."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from casetrack.config import Settings
from casetrack.embed.production import ProductionModel, load_catalog
from casetrack.embed.tiers import SLOTS, Tier, choose_tier
from casetrack.errors import CaseTrackError

MEMORY_MODES = [t.value for t in Tier]
FIX_HINT = "Fix: `casetrack models download --slot SLOT`, or `casetrack models import DIR` offline."


def _settings(ctx: click.Context) -> Settings:
    settings: Settings = ctx.find_root().obj
    return settings


def _size(n: int | None) -> str:
    return "" if n is None else f"{n / 1e6:.1f} MB"


def _tier(mode: str | None) -> tuple[Tier, str]:
    if mode:
        return Tier(mode), "chosen with --memory-mode"
    import psutil

    memory = psutil.virtual_memory()
    return choose_tier(memory.total, memory.available)


@click.group()
def models() -> None:
    """Install and check the encoder models (E1 dense, E6 sparse, E7 structure, E12 rerank)."""


@models.command("list")
@click.option(
    "--memory-mode", type=click.Choice(MEMORY_MODES), help="Show residency for this tier (default: from RAM)."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def list_cmd(ctx: click.Context, memory_mode: str | None, as_json: bool) -> None:
    """Which slots have a model, its folder, size, fingerprint and whether it stays in memory."""
    from casetrack.embed.install import list_models

    settings = _settings(ctx)
    tier, why = _tier(memory_mode or getattr(settings, "memory_mode", None))
    rows = list_models(settings.models_dir, tier)
    if as_json:
        payload = {"models_dir": str(settings.models_dir), "tier": tier.value, "tier_reason": why}
        click.echo(json.dumps({**payload, "slots": [r.to_json() for r in rows]}))
        return
    click.echo(f"Models in {settings.models_dir}; memory mode {tier.value} ({why})")
    for r in rows:
        what = f"{r.name}  {_size(r.size_bytes)}  {r.fingerprint}" if r.present else "missing"
        click.echo(f"  {r.slot:<4} {r.purpose:<17} {r.residency:<9}  {what}")
    missing = [r.slot for r in rows if not r.present]
    if missing:
        click.echo(f"Missing: {', '.join(missing)}. {FIX_HINT.replace('SLOT', missing[0])}")


@models.command("download")
@click.option("--slot", type=click.Choice(list(SLOTS)), help="Only this slot.")
@click.option(
    "--role",
    type=click.Choice(["dense", "sparse", "late_interaction"]),
    help="Only the slots of this role (dense: E1 and E7).",
)
@click.option(
    "--language",
    type=click.Choice(["en", "pt"]),
    default="en",
    show_default=True,
    help="Case language for E1: en gets bge-small-en-v1.5, pt multilingual-e5-small.",
)
@click.option(
    "--allow-unpinned", is_flag=True, help="Also fetch models with no pinned revision (records the commit)."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (no progress bar).")
@click.pass_context
def download_cmd(
    ctx: click.Context, slot: str | None, role: str | None, language: str, allow_unpinned: bool, as_json: bool
) -> None:
    """Download production models with pinned revisions and checked sha256 (resumable)."""
    from casetrack.embed.hub import download

    catalog = load_catalog()
    slots = [slot] if slot else [s for s, info in SLOTS.items() if role in (None, info.role)]
    entries = [catalog.for_slot(s, language) for s in slots]
    # The entry point reads the environment: HF_ENDPOINT (a mirror) and HF_HUB_OFFLINE.
    endpoint = os.environ.get("HF_ENDPOINT") or None
    offline = True if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on") else None
    bars = None if as_json else _Bars()
    results, failures = [], []
    for entry in entries:
        try:
            results.append(download(
                entry, _settings(ctx).models_dir, progress=bars, endpoint=endpoint,
                allow_unpinned=allow_unpinned, offline=offline,
            ))
        except CaseTrackError as e:
            failures.append((entry, e))
        finally:
            if bars is not None:
                bars.close()
    _report(results, failures, as_json)
    if failures:
        ctx.exit(1)


@models.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--as", "model_id", help="Catalog id (or hub repo) of hub files the catalog cannot recognise.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def import_cmd(ctx: click.Context, directory: Path, model_id: str | None, as_json: bool) -> None:
    """Install models from DIRECTORY: model folders (like the offline pack) or hub files."""
    from casetrack.embed.importing import import_models

    results = import_models(directory, _settings(ctx).models_dir, model_id)
    _report(results, [], as_json)


@models.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def verify_cmd(ctx: click.Context, as_json: bool) -> None:
    """Check installed models: files present, sha256 as recorded, ONNX graph loads. Exit 1 on failure."""
    from casetrack.embed.install import verify

    models_dir = _settings(ctx).models_dir
    results = verify(models_dir)
    if not results:
        raise CaseTrackError(f"No models installed in {models_dir}.", FIX_HINT.replace("SLOT", "E1"))
    ok = all(r.ok for r in results)
    if as_json:
        payload = {"models_dir": str(models_dir), "ok": ok, "models": [r.to_json() for r in results]}
        click.echo(json.dumps(payload))
    else:
        for r in results:
            unrecorded = sum(1 for c in r.files if c.status == "unrecorded")
            note = f" ({unrecorded} file(s) had no recorded sha256: computed now)" if unrecorded else ""
            click.echo(f"{'OK  ' if r.ok else 'FAIL'}  {r.name}  {r.folder}{note}")
            for problem in r.problems:
                click.echo(f"      {problem}")
        if not ok:
            click.echo(f"Reinstall the failed models. {FIX_HINT}", err=True)
    if not ok:
        ctx.exit(1)


class _Bars:
    """Progress callback for hub.download: one click progress bar per file, on stderr."""

    def __init__(self) -> None:
        self._label: str | None = None
        self._bar: Any = None
        self._done = 0

    def __call__(self, label: str, done: int, total: int | None) -> None:
        if label != self._label:
            self.close()
            self._label, self._done = label, 0
            self._bar = click.progressbar(length=total or 1, label=label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
        self._bar, self._label = None, None


def _report(
    results: list[Any], failures: list[tuple[ProductionModel, CaseTrackError]], as_json: bool
) -> None:
    if as_json:
        errors = [{"model": entry.id, "error": e.message, "hint": e.hint} for entry, e in failures]
        click.echo(json.dumps({"installed": [r.to_json() for r in results], "failed": errors}))
        return
    for r in results:
        state = "already installed" if r.already_installed else "replaced" if r.replaced else "installed"
        revision = f", revision {r.revision[:12]}" if r.revision else ""
        click.echo(f"{r.name} ({r.slot}): {state} in {r.folder}{revision}")
        for warning in r.warnings:
            click.echo(f"  warning: {warning}", err=True)
    for _, e in failures:
        click.secho(f"Error: {e.message}", fg="red", err=True)
        if e.hint:
            click.echo(f"  {e.hint}", err=True)
