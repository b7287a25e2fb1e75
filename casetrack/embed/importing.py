"""`casetrack models import DIR`: CaseTrack model folders (install.py) or hub files (hub.py).

The one place that decides which, so install.py and hub.py do not import each other.
"""

from __future__ import annotations

import shutil
from pathlib import Path

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
    except OSError as e:
        raise InstallError(f"Could not install into {models_dir}: {e}.", IMPORT_HINT) from e


