"""`casetrack models import DIR`: CaseTrack model folders (install.py) or hub files (hub.py).

The one place that decides which, so install.py and hub.py do not import each other. Also the
carry-over of the models rule (config.locate_models): the first install into a folder that
comes before the one search reads copies that folder's models along.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from casetrack.config import ModelsLocation, holds_models
from casetrack.embed.catalog import MODEL_JSON, ModelSpec
from casetrack.embed.hub import import_hub_files
from casetrack.embed.install import IMPORT_HINT, InstallError, InstallResult, stage_model_folder, swap_in
from casetrack.embed.production import Catalog, load_catalog, slot_of


def import_models(
    src: Path, models_dir: Path, model_id: str | None = None, catalog: Catalog | None = None
) -> list[InstallResult]:
    """Copy model(s) from `src` into `models_dir`, all or nothing.

    `src` is a folder of CaseTrack model folders (like the offline pack), one such folder, or
    hub files (onnx/model.onnx, model.onnx or vespa_colbert.onnx, tokenizer.json, idf.json): those
    are matched to the catalog by the ONNX file's sha256, or by `model_id` (`--as`).
    """
    src, models_dir = src.expanduser().resolve(), models_dir.expanduser().resolve()
    if not src.is_dir():
        raise InstallError(f"{src} is not a folder.", "Give the folder that holds the model files.")
    if models_dir in (src, src.parent):
        raise InstallError(
            f"{src} is already in the models folder {models_dir}.", "Check it with `casetrack models verify`."
        )
    try:
        if (src / MODEL_JSON).is_file():
            folders = [src]
        else:
            folders = [d for d in sorted(src.iterdir()) if d.is_dir() and (d / MODEL_JSON).is_file()]
        if not folders:
            return [import_hub_files(src, models_dir, model_id, catalog or load_catalog())]
        if model_id is not None:
            raise InstallError(
                f"{src} holds CaseTrack model folders (with model.json); --as only names hub files.",
                f"Run `casetrack models import {src}` without --as.",
            )
        return _install_folders(folders, models_dir, catalog)
    except OSError as e:
        raise InstallError(f"Could not install into {models_dir}: {e}.", IMPORT_HINT) from e


def _install_folders(folders: list[Path], models_dir: Path, catalog: Catalog | None) -> list[InstallResult]:
    """Stage every model folder first (none installed if one fails), then swap each in."""
    staged: list[tuple[Path, ModelSpec, Path]] = []
    try:
        for folder in folders:
            staged.append(stage_model_folder(folder, models_dir))
    except BaseException:
        for staging, _, _ in staged:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    results = []
    for staging, spec, dest in staged:
        replaced = swap_in(staging, dest, models_dir)
        results.append(InstallResult(spec.name, str(dest), slot_of(spec, catalog), replaced=replaced))
    return results


def carry_over(location: ModelsLocation | None) -> list[InstallResult]:
    """Before a download or import into `location.write`: when that folder holds no model yet
    and comes before the folder search reads (the install's own, say), copy the models in use
    into it. Once it holds a model the rule reads it instead, and it must hold the whole set."""
    if location is None or not location.write_comes_first or holds_models(location.write):
        return []
    results = import_models(location.read, location.write)
    return [
        InstallResult(
            r.name,
            r.folder,
            r.slot,
            r.catalog_id,
            r.revision,
            r.replaced,
            warnings=(f"copied from {location.read}, the models folder in use until now",),
        )
        for r in results
    ]


def shadowed_warning(location: ModelsLocation | None) -> str | None:
    """What to say when installs go to a folder the rule looks at after the one search reads
    (an explicit folder that cannot be written): search will not see what is installed."""
    if location is None or location.write == location.read or location.write_comes_first:
        return None
    return (
        f"Installed in {location.write}, but search reads {location.read}, which comes first and cannot be "
        f"written: copy the new model folder into {location.read}, or point --models-dir "
        f"(CASETRACK_MODELS_DIR) at {location.write}."
    )
