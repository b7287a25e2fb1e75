"""Putting model folders into the models directory, checking them, and listing the slots.

Every install is staged in `MODELS_DIR/.casetrack-tmp/` (same filesystem, and not a model folder
that discovery would pick up), checked by loading the ONNX graph and the tokenizer, and only
then renamed into place. A failed or interrupted install therefore never leaves a folder with a
`model.json` whose files are incomplete.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from casetrack import atomic_files
from casetrack.embed.catalog import MODEL_JSON, ModelSpec, discover_models, file_sha256, load_model_spec
from casetrack.embed.production import Catalog, load_catalog, slot_of
from casetrack.embed.session import create_session
from casetrack.embed.tiers import SLOTS, Tier, residency
from casetrack.embed.tokens import load_tokenizer
from casetrack.errors import CaseTrackError

logger = logging.getLogger(__name__)

TMP_DIR = ".casetrack-tmp"
STALE_SECONDS = 6 * 3600  # an import or swap left this long ago was interrupted, not running
IMPORT_HINT = "Nothing was installed. Copy the model files again and rerun `casetrack models import DIR`."


class InstallError(CaseTrackError):
    """A model folder could not be installed; nothing was changed."""


class _Json:
    def to_json(self) -> dict[str, Any]:
        """A dict for `--json` output (tuples serialise as lists)."""
        out: dict[str, Any] = asdict(self)  # type: ignore[call-overload]
        return out


@dataclass(frozen=True)
class InstallResult(_Json):
    """One model put into the models directory (or found already there)."""

    name: str
    folder: str
    slot: str
    catalog_id: str | None = None
    revision: str | None = None
    replaced: bool = False
    already_installed: bool = False
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileCheck:
    path: str
    status: str  # ok | mismatch | missing | unrecorded (no hash in model.json: computed now)
    sha256: str | None
    expected: str | None


@dataclass(frozen=True)
class VerifyResult(_Json):
    name: str
    folder: str
    ok: bool
    files: tuple[FileCheck, ...] = ()
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class SlotRow(_Json):
    """One slot and the model installed for it (or its absence)."""

    slot: str
    purpose: str
    present: bool
    residency: str
    name: str | None = None
    folder: str | None = None
    size_bytes: int | None = None
    fingerprint: str | None = None
    production_model: str | None = None  # the catalog id it is, or stands in for


def file_record(path: Path, expected: str | None = None, source: str = "computed") -> dict[str, Any]:
    """sha256 and size of an installed file, and how its hash was checked."""
    record: dict[str, Any] = {"sha256": file_sha256(path), "size": path.stat().st_size}
    record["sha256_source"] = source
    if expected is not None and expected != record["sha256"]:
        record["catalog_sha256"] = expected
    return record


def staging_dir(models_dir: Path, label: str) -> Path:
    """A folder under MODELS_DIR/.casetrack-tmp (same filesystem, so the final rename is atomic)."""
    clean_stale(models_dir)
    path = models_dir / TMP_DIR / label
    path.mkdir(parents=True, exist_ok=True)
    return path


def clean_stale(models_dir: Path) -> None:
    """Remove old imports and swaps that a crash left behind (downloads stay: they resume)."""
    tmp = models_dir / TMP_DIR
    if not tmp.is_dir():
        return
    for entry in tmp.iterdir():
        if entry.name.startswith(("import-", "old-")) and time.time() - entry.stat().st_mtime > STALE_SECONDS:
            shutil.rmtree(entry, ignore_errors=True)


def verify(models_dir: Path) -> list[VerifyResult]:
    """Check every installed model: files present, sha256 as recorded, ONNX and tokenizer load."""
    models_dir = models_dir.expanduser()
    if not models_dir.is_dir():
        return []
    results = []
    for folder in sorted(models_dir.iterdir()):
        if folder.name.startswith(".") or not (folder / MODEL_JSON).is_file():
            continue
        try:
            spec = load_model_spec(folder)
        except CaseTrackError as e:
            results.append(VerifyResult(folder.name, str(folder), False, problems=(e.message,)))
            continue
        files = spec.extra.get("files")
        recorded: dict[str, Any] = files if isinstance(files, dict) else {}
        checks = tuple(
            _check_file(folder, path, recorded.get(path) or {})
            for path in sorted(set(recorded) | {spec.onnx_file, spec.tokenizer_file})
        )
        problems = [f"{c.path}: {_SAYS[c.status]}" for c in checks if c.status in _SAYS]
        if not problems:
            try:
                check_loads(spec)
            except CaseTrackError as e:
                problems.append(e.message)
        results.append(VerifyResult(spec.name, str(folder), not problems, checks, tuple(problems)))
    return results


def list_models(models_dir: Path, tier: Tier, catalog: Catalog | None = None) -> list[SlotRow]:
    """Each production slot with the installed model(s) serving it, or a row saying it is missing."""
    catalog = catalog or load_catalog()
    specs = discover_models(models_dir)
    rows: list[SlotRow] = []
    for slot, info in SLOTS.items():
        serving = [s for s in specs if slot_of(s, catalog) == slot]
        where = residency(tier, slot).value
        if not serving:
            rows.append(SlotRow(slot, info.purpose, False, where))
        for spec in serving:
            entry = catalog.find_by_hub_repo(spec.hub_repo_for_users)
            size = sum(p.stat().st_size for p in spec.path.rglob("*") if p.is_file())
            rows.append(
                SlotRow(
                    slot,
                    info.purpose,
                    True,
                    where,
                    spec.name,
                    str(spec.path),
                    size,
                    spec.fingerprint,
                    str(spec.extra.get("catalog_id") or (entry.id if entry else "")) or None,
                )
            )
    return rows


def stage_model_folder(folder: Path, models_dir: Path) -> tuple[Path, ModelSpec, Path]:
    staging = staging_dir(models_dir, f"import-{folder.name}-{uuid.uuid4().hex[:8]}")
    try:
        # Files only, no modes: a read-only source (a pack on a share) must give a writable copy,
        # and symlinks are followed so the copy owns its bytes.
        for source in sorted(folder.rglob("*")):
            part = source.relative_to(folder)
            if source.is_file() and not {".cache", ".git"} & set(part.parts):
                (staging / part).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, staging / part)
        meta = json.loads((staging / MODEL_JSON).read_text(encoding="utf-8"))
        load_model_spec(staging)  # names, dims and listed files, before hashing anything
        recorded = meta.get("files") if isinstance(meta.get("files"), dict) else {}
        records = {}
        for path in sorted(p for p in staging.rglob("*") if p.is_file() and p.name != MODEL_JSON):
            rel = path.relative_to(staging).as_posix()
            expected = (recorded.get(rel) or {}).get("sha256")
            records[rel] = file_record(path, expected, "recorded" if expected else "computed")
            if "catalog_sha256" in records[rel]:
                raise InstallError(f"{rel} does not match the sha256 its model.json records.", IMPORT_HINT)
        meta["files"] = records
        write_json(staging / MODEL_JSON, meta)
        spec = load_model_spec(staging)
        check_loads(spec)
    except CaseTrackError as e:
        shutil.rmtree(staging, ignore_errors=True)
        raise InstallError(f"Refused {folder}: {e.message}", IMPORT_HINT) from e
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging, spec, models_dir / folder.name


def check_loads(spec: ModelSpec, session_inputs: list[str] | None = None) -> None:
    """The ONNX graph opens, has the inputs model.json lists, and the tokenizer loads."""
    if session_inputs is None:
        session_inputs = [i.name for i in create_session(spec.onnx_path, threads=1, arena=False).get_inputs()]
    missing = [name for name in spec.inputs if name not in session_inputs]
    if missing:
        raise InstallError(
            f"{spec.onnx_path} has no input {', '.join(missing)} (it has {', '.join(session_inputs)}).",
            IMPORT_HINT,
        )
    load_tokenizer(spec)


_SAYS = {
    "mismatch": "sha256 differs from the one recorded at install (changed or damaged)",
    "missing": "missing",
}


def _check_file(folder: Path, rel: str, record: Mapping[str, Any]) -> FileCheck:
    path, expected = folder / rel, record.get("sha256")
    if not path.is_file():
        return FileCheck(rel, "missing", None, expected)
    actual = file_sha256(path)
    status = "unrecorded" if not expected else "ok" if actual == expected else "mismatch"
    return FileCheck(rel, status, actual, expected)


def swap_in(staging: Path, dest: Path, models_dir: Path) -> bool:
    """Rename `staging` to `dest`; an existing `dest` is moved aside first and deleted after."""
    old = None
    if dest.exists() or dest.is_symlink():
        old = staging_dir(models_dir, f"old-{dest.name}-{uuid.uuid4().hex[:8]}")
        old.rmdir()
        atomic_files.rename_durably(dest, old)
    atomic_files.rename_durably(staging, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    try:
        (models_dir / TMP_DIR).rmdir()  # only if nothing else (a resumable download) is in it
    except OSError:
        pass
    return old is not None


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    atomic_files.write_json(path, data, mode=None, indent=2)
