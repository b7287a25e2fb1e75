"""`casetrack models ...`: list the encoder slots, download, import and verify models."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from casetrack.config import Settings
from casetrack.embed.production import Catalog, ProductionModel, load_catalog
from casetrack.embed.tiers import SLOTS, Tier, choose_tier
from casetrack.errors import CaseTrackError

MEMORY_MODES = [t.value for t in Tier]
FIX_HINT = "Fix: `casetrack models download --slot SLOT`, or `casetrack models import DIR` offline."
SOURCES = {  # config.MODELS_SOURCES, as `models list` says where the folder came from
    "explicit": "--models-dir / CASETRACK_MODELS_DIR",
    "data_dir": "the data folder's models",
    "install": "the install's own models folder",
    "empty": "no models installed yet",
}


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
        payload = {
            "models_dir": str(settings.models_dir),
            "tier": tier.value,
            "tier_reason": why,
            "models_source": settings.models_source,
            "models_install_dir": str(settings.models_target),
        }
        click.echo(json.dumps({**payload, "slots": [r.to_json() for r in rows]}))
        return
    click.echo(
        f"Models in {settings.models_dir} ({SOURCES[settings.models_source]}); memory mode {tier.value} ({why})"
    )
    if settings.models_target != settings.models_dir:
        click.echo(f"Downloads and imports install into {settings.models_target}")
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
    "--model",
    "names",
    multiple=True,
    metavar="ID",
    help="Only this catalog model (id, hub repo or slot); repeat for several.",
)
@click.option(
    "--missing",
    is_flag=True,
    help="What the memory mode uses and is not installed (pinned models; `casetrack status` lists them).",
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
@click.option(
    "--progress-json",
    is_flag=True,
    hidden=True,
    help="One JSON event per line on stdout (the daemon's download job reads them).",
)
@click.option(
    "--catalog",
    "catalog_path",
    type=click.Path(dir_okay=False, path_type=Path),
    hidden=True,
    envvar="CASETRACK_MODEL_CATALOG",
    help="Download from this catalog.json instead of the shipped one.",
)
@click.pass_context
def download_cmd(
    ctx: click.Context,
    slot: str | None,
    role: str | None,
    names: tuple[str, ...],
    missing: bool,
    language: str,
    allow_unpinned: bool,
    as_json: bool,
    progress_json: bool,
    catalog_path: Path | None,
) -> None:
    """Download production models with pinned revisions and checked sha256 (resumable)."""
    from casetrack.embed.hub import download

    settings = _settings(ctx)
    catalog = load_catalog(catalog_path or settings.model_catalog)
    wanted = _Wanted(slot, role, names, missing, language, allow_unpinned)
    entries = wanted.entries(settings, catalog)
    if entries is None:
        click.echo("Every model the memory mode uses is installed (see `casetrack status`).")
        return
    # The entry point reads the environment: HF_ENDPOINT (a mirror) and HF_HUB_OFFLINE.
    endpoint = os.environ.get("HF_ENDPOINT") or None
    offline = True if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on") else None
    events = _Events(entries) if progress_json else None
    bars = None if as_json or events else _Bars()
    results, failures = _carry_over(settings, events), []
    for entry in entries:
        try:
            result = download(
                entry,
                settings.models_target,
                progress=events or bars,
                endpoint=endpoint,
                allow_unpinned=allow_unpinned,
                offline=offline,
            )
            results.append(result)
            if events:
                events.model(entry.id, result=result.to_json())
        except CaseTrackError as e:
            failures.append((entry, e))
            if events:
                events.model(entry.id, error=e)
        finally:
            if bars is not None:
                bars.close()
    _report(results, failures, as_json or progress_json, _shadowed(settings, results))
    if failures:
        ctx.exit(1)


@dataclass(frozen=True)
class _Wanted:
    """The models `download` was asked for: the missing ones, named ones, or by slot / role."""

    slot: str | None
    role: str | None
    names: tuple[str, ...]
    missing: bool
    language: str
    allow_unpinned: bool

    def entries(self, settings: Settings, catalog: Catalog) -> list[ProductionModel] | None:
        """Their catalog entries (None: `--missing` and every model the memory mode uses is installed)."""
        from casetrack.app.models_check import pick_models

        if self.missing:
            return _missing_entries(settings, catalog, self.allow_unpinned) or None
        if self.names:
            try:
                return pick_models(catalog, self.names, self.language)
            except ValueError as e:
                raise click.BadParameter(str(e), param_hint="--model") from e
        slots = [self.slot] if self.slot else [s for s, i in SLOTS.items() if self.role in (None, i.role)]
        return [catalog.for_slot(s, self.language) for s in slots]


@models.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--as", "model_id", help="Catalog id (or hub repo) of hub files the catalog cannot recognise.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def import_cmd(ctx: click.Context, directory: Path, model_id: str | None, as_json: bool) -> None:
    """Install models from DIRECTORY: model folders (like the offline pack) or hub files."""
    from casetrack.embed.importing import import_models

    settings = _settings(ctx)
    results = _carry_over(settings, None)
    results += import_models(directory, settings.models_target, model_id)
    _report(results, [], as_json, _shadowed(settings, results))


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


def _missing_entries(settings: Settings, catalog: Catalog, allow_unpinned: bool) -> list[ProductionModel]:
    """`--missing`: what status reports as missing (unpinned models only with --allow-unpinned)."""
    from casetrack.app.models_check import missing_models
    from casetrack.embed.pool import EncoderPool

    pool = EncoderPool(settings.models_dir, settings.memory_mode)  # looks at folders, loads nothing
    wanted = [m["model"] for m in missing_models(pool, catalog) if m["pinned"] or allow_unpinned]
    return [e for e in catalog.models if e.id in wanted]


class _Events:
    """`--progress-json`: progress and each model's outcome as JSON lines on stdout, flushed at
    once (the daemon's download job follows them; model_jobs.py)."""

    def __init__(self, entries: list[ProductionModel]) -> None:
        self._sizes = {f.path: f.size for e in entries for f in e.files}
        self._entry = {f.path: e for e in entries for f in e.files}
        self._finished: dict[str, int] = {}  # file -> bytes, per model, of the files done

    def __call__(self, label: str, done: int, total: int | None) -> None:
        entry = self._entry.get(label)
        if entry is None:
            return
        if total is not None and done >= total:
            self._finished[label] = total
        sizes = [self._sizes[f.path] or (total if f.path == label else None) for f in entry.files]
        whole = sum(s or 0 for s in sizes)
        got = sum(self._finished.get(f.path, 0) for f in entry.files if f.path != label) + done
        fraction = min(got / whole, 1.0) if whole else 0.0  # files of unknown size not counted yet
        self.emit(
            {
                "event": "progress",
                "model": entry.id,
                "file": label,
                "done": done,
                "total": total,
                "fraction": round(fraction, 4),
            }
        )

    def model(
        self, model_id: str, result: dict[str, Any] | None = None, error: CaseTrackError | None = None
    ) -> None:
        if error is None:
            self.emit({"event": "model", "model": model_id, "result": result})
        else:
            self.emit(
                {
                    "event": "model",
                    "model": model_id,
                    "error": error.message,
                    "hint": error.hint,
                    "tool_hint": error.tool_hint,
                }
            )

    @staticmethod
    def emit(event: dict[str, Any]) -> None:
        click.echo(json.dumps(event))
        sys.stdout.flush()


def _carry_over(settings: Settings, events: _Events | None) -> list[Any]:
    """The models rule's carry-over before an install (embed/importing.py), announced."""
    from casetrack.embed.importing import carry_over

    carried = carry_over(settings.models_location)
    if carried and events is not None:
        events.emit(
            {"event": "carried", "from": str(settings.models_dir), "models": [r.name for r in carried]}
        )
    return carried


def _shadowed(settings: Settings, results: list[Any]) -> str | None:
    from casetrack.embed.importing import shadowed_warning

    fresh = [r for r in results if not r.already_installed]
    return shadowed_warning(settings.models_location) if fresh else None


def _report(
    results: list[Any],
    failures: list[tuple[ProductionModel, CaseTrackError]],
    as_json: bool,
    warning: str | None = None,
) -> None:
    if as_json:
        errors = [{"model": entry.id, "error": e.message, "hint": e.hint} for entry, e in failures]
        payload = {"installed": [r.to_json() for r in results], "failed": errors}
        click.echo(json.dumps({**payload, "warnings": [warning] if warning else []}))
        return
    if warning:
        click.secho(f"Warning: {warning}", fg="yellow", err=True)
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
