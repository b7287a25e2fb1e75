"""Hub files to installed models: download them pinned and checked, or import a copied snapshot.

Downloads stage each catalog file at the pinned revision, check its hash, and install only once
every file is verified and the model loads. huggingface-hub resolves the file (URL, commit, size,
hash) and reports the hub's errors; the bytes are fetched here, into `<file>.part` in a staging
folder that outlives the process, so a broken connection, a cancelled job or a restart resumes
with an HTTP Range request where it stopped (huggingface-hub >= 1 drops a partial file when its
own call fails). Hand-copied hub files get the same model.json.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import re
import shutil
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx2
from huggingface_hub import constants, get_hf_file_metadata, get_session, hf_hub_url, hf_raise_for_status
from huggingface_hub import errors as hf_errors

from casetrack import atomic_files
from casetrack.embed import install
from casetrack.embed.catalog import MODEL_JSON, file_sha256, load_model_spec
from casetrack.embed.install import IMPORT_HINT, InstallError, InstallResult
from casetrack.embed.production import Catalog, CatalogFile, ProductionModel
from casetrack.embed.session import create_session
from casetrack.errors import CaseTrackError, Fix

logger = logging.getLogger(__name__)

# (repo path of the file, bytes done, total bytes or None): the CLI turns it into a progress bar.
Progress = Callable[[str, int, int | None], None]
ONNX_CANDIDATES = ("onnx/model.onnx", "model.onnx", "vespa_colbert.onnx")
_FALLBACKS = {"tokenizer": ("tokenizer.json", "onnx/tokenizer.json"), "idf": ("idf.json",)}
_SHA256 = re.compile(r"[0-9a-f]{64}")
_COMMIT = _GIT_SHA1 = re.compile(r"[0-9a-f]{40}")
PART = ".part"  # a file being fetched: staging/<path>.part, renamed to <path> when complete
STALLS = 5  # broken transfers in a row that brought no new byte before a download gives up
_REPORT_EVERY = 1 << 20  # progress is reported after each MiB (and at the end of a file)


class HubUnavailableError(CaseTrackError):
    """The hub cannot be reached or refuses the files; the fix is an offline import."""


class ChecksumError(CaseTrackError):
    """A downloaded file is not the pinned one; nothing was installed."""


def download(
    entry: ProductionModel,
    models_dir: Path,
    *,
    progress: Progress | None = None,
    endpoint: str | None = None,
    allow_unpinned: bool = False,
    offline: bool | None = None,
) -> InstallResult:
    """Download `entry` into `models_dir/<entry.folder>/` with a model.json written from the catalog.

    `endpoint` overrides the hub address; `offline` None follows huggingface-hub's HF_HUB_OFFLINE.
    An unpinned entry needs `allow_unpinned` and records the commit it got. Raises
    HubUnavailableError (offline, unreachable, 401/404) and ChecksumError (wrong bytes).
    """
    models_dir = models_dir.expanduser().resolve()
    existing = _already_installed(entry, models_dir)
    if existing is not None:
        return existing
    if constants.is_offline_mode() if offline is None else offline:
        raise _unavailable(entry, models_dir, "offline mode is on (HF_HUB_OFFLINE)")
    if entry.revision is None and not allow_unpinned:
        raise _unpinned(entry)
    try:  # the same folder on every run, so the files an interrupted run finished are reused
        label = f"download-{entry.id}-{(entry.revision or 'unpinned')[:12]}"
        staging = install.staging_dir(models_dir, label)
    except OSError as e:
        raise CaseTrackError(f"Cannot write to the models folder {models_dir}: {e}.", _DIR_HINT) from e
    revision = entry.revision or "main"
    try:
        records, revision = _fetch_files(entry, staging, revision, endpoint, progress)
    except ChecksumError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    except (OSError, httpx2.HTTPError) as e:  # staging is kept: the next run resumes where this one stopped
        if isinstance(e, OSError) and e.errno == errno.ENOSPC:
            raise CaseTrackError(f"Not enough disk space in {models_dir} for {entry.id}.", _DIR_HINT) from e
        raise _unavailable(entry, models_dir, _reason(e, revision)) from e
    return install_catalog_model(staging, entry, records, models_dir, revision)


def _unpinned(entry: ProductionModel) -> CaseTrackError:
    """The refusal of an entry the catalog pins no revision for (without --allow-unpinned)."""
    return CaseTrackError(
        f"The catalog pins no revision for {entry.id} ({entry.hub_repo}), so its files cannot be checked "
        "against known hashes.",
        f"Run `casetrack models download --slot {entry.slot} --allow-unpinned` to take the hub's current "
        "files (the commit is recorded), or `casetrack models import DIR` with files you trust.",
        fix=Fix(
            "Take the hub's current files (the commit is recorded), or import files you trust with "
            "import_models",
            tool="download_models",
            args={"models": [entry.id], "allow_unpinned": True},
        ),
    )


def _fetch_files(
    entry: ProductionModel,
    staging: Path,
    revision: str,
    endpoint: str | None,
    progress: Progress | None,
) -> tuple[dict[str, dict[str, Any]], str]:
    """Each of the entry's files fetched into `staging` and checked: their records and the revision
    they came from (an unpinned entry's: the commit of its first file)."""
    records: dict[str, dict[str, Any]] = {}
    for cf in entry.files:
        url = hf_hub_url(entry.hub_repo, cf.path, revision=revision, endpoint=endpoint)
        meta = get_hf_file_metadata(url, endpoint=endpoint)
        if entry.revision is None and meta.commit_hash:
            revision = meta.commit_hash  # every file from the commit the first one came from
        # The ETag is the LFS sha256 for large files and the git blob sha1 for the others.
        hub_sha = meta.etag if meta.etag and _SHA256.fullmatch(meta.etag) else None
        if cf.sha256 and hub_sha and cf.sha256 != hub_sha:
            raise _mismatch(entry, cf, cf.sha256, hub_sha, "the hub has another file than the pinned one")
        report = (lambda done, total, path=cf.path: progress(path, done, total)) if progress else None
        local = staging / cf.path
        fetch(meta.location, local, meta.size, report)
        records[cf.path] = _checked(entry, cf, local, meta.etag or "")
    return records, revision


def fetch(
    url: str, dest: Path, size: int | None, report: Callable[[int, int | None], None] | None = None
) -> None:
    """Fetch `url` into `dest`, continuing `dest.part` if an earlier try left one (Range request).

    A finished `dest` of the right size is kept as is (its hash is checked by the caller). A
    transfer that breaks is resumed at once, up to STALLS times in a row without progress;
    whatever was received stays in `dest.part` for the next run. `report(done, total)` follows it.
    """
    if dest.is_file() and (size is None or dest.stat().st_size == size):
        if report is not None:
            report(dest.stat().st_size, size)
        return
    part = dest.with_name(dest.name + PART)
    part.parent.mkdir(parents=True, exist_ok=True)
    stalls = 0
    while True:
        have = part.stat().st_size if part.is_file() else 0
        if size is not None and have > size:  # not this file's bytes (the pin moved?): start again
            part.unlink()
            have = 0
        if size is not None and have == size:
            break
        try:
            if _get(url, part, have, size, report):
                break
        except (httpx2.TransportError, ConnectionError) as e:
            if isinstance(e, hf_errors.OfflineModeIsEnabled):
                raise
            now = part.stat().st_size if part.is_file() else 0
            stalls = 0 if now > have else stalls + 1
            if stalls >= STALLS:
                raise
            logger.warning(
                "Transfer of %s broke at %d bytes (%s); resuming", dest.name, now, type(e).__name__
            )
            time.sleep(min(0.5 * stalls, 4.0))
    atomic_files.rename_durably(part, dest)


def _get(
    url: str, part: Path, have: int, size: int | None, report: Callable[[int, int | None], None] | None
) -> bool:
    """One GET from byte `have` on, appended to `part`; True when the body arrived whole."""
    headers = {"Accept-Encoding": "identity"}  # raw bytes: Range offsets are file offsets
    if have:
        headers["Range"] = f"bytes={have}-"
    # huggingface-hub's session: its offline switch (HF_HUB_OFFLINE) still refuses the request.
    with get_session().stream(
        "GET", url, headers=headers, timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT
    ) as response:
        hf_raise_for_status(response)
        if have and response.status_code != 206:  # the server ignored the Range: the body is the whole file
            have = 0
        length = response.headers.get("Content-Length")
        total = size if size is not None else (have + int(length) if length and length.isdigit() else None)
        done, reported = have, have
        with open(part, "ab" if have else "wb") as out:
            for block in response.iter_bytes():
                out.write(block)
                done += len(block)
                if report is not None and (done - reported >= _REPORT_EVERY or done == total):
                    out.flush()  # what is reported is on disk: a cancel here resumes from it
                    report(done, total)
                    reported = done
    return total is None or done == total


def import_hub_files(src: Path, models_dir: Path, model_id: str | None, catalog: Catalog) -> InstallResult:
    """Install hub files copied by hand; the model is the catalog entry whose ONNX sha256 matches,
    or `model_id` (`--as`). Files that differ from the pinned ones are installed with a warning."""
    onnx_found = [c for c in ONNX_CANDIDATES if (src / c).is_file()]
    if not onnx_found:
        raise InstallError(
            f"No model in {src}: expected model.json folders (like the offline pack) or hub files "
            f"({', '.join(ONNX_CANDIDATES)} with tokenizer.json).",
            "Point `casetrack models import DIR` at the folder that holds them.",
        )
    known = ", ".join(m.id for m in catalog.models)
    if model_id is not None:
        entry = catalog.by_id(model_id)
        if entry is None:
            raise InstallError(f"{model_id!r} is not a CaseTrack model.", f"Use --as with one of: {known}.")
    else:
        entry = next(filter(None, (catalog.by_onnx_sha256(file_sha256(src / c)) for c in onnx_found)), None)
        if entry is None:
            raise InstallError(
                f"Could not tell which model {src / onnx_found[0]} is: its sha256 is not in the catalog.",
                f"Name it: `casetrack models import {src} --as ID`, with ID one of: {known}.",
            )
    staging = install.staging_dir(models_dir, f"import-{entry.folder}-{uuid.uuid4().hex[:8]}")
    records: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    try:
        for cf in entry.files:
            candidates = (cf.path, *(onnx_found if cf.kind == "onnx" else _FALLBACKS[cf.kind]))
            found = next((src / p for p in candidates if (src / p).is_file()), None)
            if found is None:
                raise InstallError(f"{src} has no {cf.path} for {entry.id}.", IMPORT_HINT)
            (staging / cf.path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found, staging / cf.path)
            record = install.file_record(staging / cf.path, cf.sha256, "catalog" if cf.sha256 else "computed")
            if "catalog_sha256" in record:
                record["sha256_source"] = "computed"
                warnings.append(f"{found.name} is not the pinned {entry.id} file (sha256 {record['sha256']})")
            records[cf.path] = record
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    for warning in warnings:
        logger.warning("%s", warning)
    # The pinned ONNX bytes are the pinned revision's weights, whatever folder they came in.
    onnx = entry.file("onnx")
    pinned = not warnings and onnx is not None and onnx.sha256 is not None
    revision = entry.revision if pinned else (src.name if _COMMIT.fullmatch(src.name) else None)
    return install_catalog_model(staging, entry, records, models_dir, revision, tuple(warnings))


def install_catalog_model(
    staging: Path,
    entry: ProductionModel,
    files: Mapping[str, Mapping[str, Any]],
    models_dir: Path,
    revision: str | None,
    warnings: tuple[str, ...] = (),
) -> InstallResult:
    """Write model.json for staged catalog files (inputs and output read from the ONNX graph), check
    that the model loads, and move it into place; `staging` is removed if anything fails."""
    try:
        onnx = entry.file("onnx")
        assert onnx is not None  # ProductionModel guarantees one
        session = create_session(staging / onnx.path, threads=1, arena=False)
        inputs = [i.name for i in session.get_inputs()]
        outputs = [o.name for o in session.get_outputs()]
        output = entry.output or outputs[0]
        if output not in outputs:
            raise InstallError(f"{onnx.path} has no output {output!r} ({', '.join(outputs)}).", IMPORT_HINT)
        install.write_json(staging / MODEL_JSON, entry.model_json(files, inputs, output, revision))
        install.check_loads(load_model_spec(staging), session_inputs=inputs)
        replaced = install.swap_in(staging, models_dir / entry.folder, models_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    logger.info("Installed %s in %s", entry.id, models_dir / entry.folder)
    folder = str(models_dir / entry.folder)
    return InstallResult(entry.id, folder, entry.slot, entry.id, revision, replaced, warnings=warnings)


def _checked(entry: ProductionModel, cf: CatalogFile, path: Path, etag: str) -> dict[str, Any]:
    """The file's record for model.json, or ChecksumError if it is not the expected file.

    Checked against the catalog's sha256, else the hub's LFS sha256, else the hub's git sha1.
    """
    actual, size = file_sha256(path), path.stat().st_size
    if cf.sha256 or _SHA256.fullmatch(etag):
        expected, source = (cf.sha256, "catalog") if cf.sha256 else (etag, "hub")
    elif _GIT_SHA1.fullmatch(etag):
        expected, source, actual = etag, "hub-git-sha1", _git_blob_sha1(path, size)
    else:
        expected, source = actual, "computed"
        logger.warning("%s/%s has no known hash; recording its sha256 %s", entry.id, cf.path, actual)
    if actual != expected:
        raise _mismatch(entry, cf, str(expected), actual, f"the file does not match the {source} hash")
    if cf.size is not None and size != cf.size:
        raise _mismatch(entry, cf, f"{cf.size} bytes", f"{size} bytes", "the file has the wrong size")
    return {"sha256": file_sha256(path), "size": size, "sha256_source": source}


def _git_blob_sha1(path: Path, size: int) -> str:
    digest = hashlib.sha1(b"blob %d\0" % size)  # git's object id: header, then the content
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _already_installed(entry: ProductionModel, models_dir: Path) -> InstallResult | None:
    """An installed copy of `entry` at the pinned revision whose files all have their recorded sizes."""
    folder = models_dir / entry.folder
    try:
        meta = json.loads((folder / MODEL_JSON).read_text(encoding="utf-8"))
        same = meta.get("catalog_id") == entry.id and entry.revision in (None, meta.get("revision"))
        sizes = meta["files"]
        ok = same and all((folder / f.path).stat().st_size == sizes[f.path]["size"] for f in entry.files)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    revision = meta.get("revision")
    found = InstallResult(entry.id, str(folder), entry.slot, entry.id, revision, already_installed=True)
    return found if ok else None


_REASONS: tuple[tuple[type[BaseException], str], ...] = (
    (hf_errors.OfflineModeIsEnabled, "offline mode is on (HF_HUB_OFFLINE)"),
    (hf_errors.RevisionNotFoundError, "revision {revision} is not on the hub"),
    (hf_errors.RemoteEntryNotFoundError, "a file is not on the hub (404)"),
    (hf_errors.GatedRepoError, "the repository needs a login (gated)"),
    (hf_errors.RepositoryNotFoundError, "the repository is not found or not accessible (401/404)"),
)


def _reason(error: BaseException, revision: str) -> str:
    for kind, text in _REASONS:
        if isinstance(error, kind):
            return text.format(revision=revision)
    if isinstance(error, hf_errors.HfHubHTTPError) and error.response is not None:
        return f"the hub answered HTTP {error.response.status_code}"
    if isinstance(error, httpx2.HTTPError | ConnectionError):
        return f"cannot reach the hub ({type(error).__name__}: {error})"
    return str(error) or type(error).__name__


def _unavailable(entry: ProductionModel, models_dir: Path, reason: str) -> HubUnavailableError:
    pinned = f"revision {entry.revision}" if entry.revision else "no revision pinned"
    hint = (
        f"Install it offline: copy a folder holding {', '.join(f.path for f in entry.files)} "
        f"of {entry.hub_repo} ({pinned}) to this machine and run "
        f"`casetrack models import DIR --as {entry.id}`; it installs into {models_dir / entry.folder}."
    )
    if entry.pack_folder:
        hint += f" Meanwhile the offline pack's stand-in: `casetrack models import PACK/{entry.pack_folder}`."
    fix = Fix(
        f"Install it offline: copy a folder holding {', '.join(f.path for f in entry.files)} of "
        f"{entry.hub_repo} ({pinned}) to this computer, then import it",
        tool="import_models",
        args={"folder_path": "FOLDER", "model_id": entry.id},
    )
    return HubUnavailableError(f"Could not download {entry.id} from the model hub: {reason}.", hint, fix=fix)


def _mismatch(entry: ProductionModel, cf: CatalogFile, expected: str, actual: str, why: str) -> ChecksumError:
    return ChecksumError(
        f"Refused {cf.path} of {entry.id}: {why} (expected {expected}, got {actual}). Nothing was installed.",
        "Run `casetrack models download` again; if it fails the same way, get the files another way and run "
        "`casetrack models import DIR`.",
        fix=Fix(
            "Download it again; if it fails the same way, copy the files to this computer and use "
            "import_models",
            tool="download_models",
            args={"models": [entry.id]},
        ),
    )


_DIR_HINT = "Free some space or choose another folder with --models-dir (or CASETRACK_MODELS_DIR)."
