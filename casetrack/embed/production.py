"""The production model catalog (`models/catalog.json`): which hub files serve each slot.

The catalog is data: hub repo, pinned revision, file paths with sizes and sha256, and the
settings a `model.json` needs (pooling, prefixes, dims, ColBERT markers). Downloads and
imports write a model folder from it; `slot_of` tells which slot an installed model serves.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from casetrack.embed.catalog import ROLES, ModelSpec
from casetrack.embed.tiers import SLOTS
from casetrack.errors import CaseTrackError

CATALOG_NAME = "catalog.json"
# Where a wheel puts the catalog (pyproject data-files); an editable install reads models/ instead.
WHEEL_DATA_PATH = "share/casetrack/models/catalog.json"
FILE_KINDS = ("onnx", "tokenizer", "idf")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_FOLDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_REINSTALL_HINT = "The catalog ships with CaseTrack: reinstall CaseTrack (`pip install --force-reinstall`)."
ROLE_SLOTS = {"dense": "E1", "sparse": "E6", "late_interaction": "E12"}


class CatalogError(CaseTrackError):
    """catalog.json is missing or does not describe a usable model."""


def _bad(what: str) -> CatalogError:
    return CatalogError(f"The model catalog is invalid: {what}.", _REINSTALL_HINT)


@dataclass(frozen=True)
class CatalogFile:
    """One file of a hub repo: `path` is relative to the repo root, as the hub serves it."""

    kind: str
    path: str
    size: int | None = None
    sha256: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FILE_KINDS:
            raise _bad(f"file kind {self.kind!r} (expected one of {', '.join(FILE_KINDS)})")
        pure = PurePosixPath(self.path)
        # A catalog path becomes a path under the models folder: it must stay inside it.
        if not self.path or pure.is_absolute() or ".." in pure.parts or "\\" in self.path:
            raise _bad(f"file path {self.path!r} must be relative and stay inside the model folder")
        if self.size is not None and (isinstance(self.size, bool) or self.size <= 0):
            raise _bad(f"{self.path}: size {self.size!r} must be a positive integer or null")
        if self.sha256 is not None and not _SHA256.fullmatch(self.sha256):
            raise _bad(f"{self.path}: sha256 {self.sha256!r} must be 64 lowercase hex digits or null")


@dataclass(frozen=True)
class ProductionModel:
    """One production encoder of the catalog, checked when built."""

    id: str
    slot: str
    role: str
    family: str
    hub_repo: str
    upstream_repo: str
    revision: str | None  # a 40-hex commit; None: not pinned yet (download needs --allow-unpinned)
    folder: str
    files: tuple[CatalogFile, ...]
    output: str | None
    pooling: str | None
    normalize: bool
    dim: int | None
    max_tokens: int
    query_prefix: str = ""
    passage_prefix: str = ""
    languages: tuple[str, ...] = ()
    license: str | None = None
    quantization: str | None = None
    pack_folder: str | None = None
    aliases: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        who = f"model {self.id!r}"
        if not self.id or not _FOLDER.fullmatch(self.folder):
            raise _bad(f"{who} needs an id and a plain folder name, got folder {self.folder!r}")
        if self.slot not in SLOTS:
            raise _bad(f"{who} has slot {self.slot!r} (expected one of {', '.join(SLOTS)})")
        if self.role not in ROLES or SLOTS[self.slot].role != self.role:
            raise _bad(f"{who} has role {self.role!r} but slot {self.slot} needs {SLOTS[self.slot].role!r}")
        if self.revision is not None and not _COMMIT.fullmatch(self.revision):
            raise _bad(f"{who} revision {self.revision!r} is not a 40-hex commit (use null if unknown)")
        kinds = [f.kind for f in self.files]
        if kinds.count("onnx") != 1 or kinds.count("tokenizer") != 1:
            raise _bad(f"{who} needs exactly one onnx and one tokenizer file")
        if self.role == "sparse" and self.dim is not None:
            raise _bad(f"{who} is sparse: its width is the vocabulary, dim must be null")
        if self.role != "sparse" and (self.dim is None or self.dim <= 0):
            raise _bad(f"{who} needs a positive dim")
        if self.max_tokens <= 0:
            raise _bad(f"{who} needs a positive max_tokens")
        if "/" not in self.hub_repo or "/" not in self.upstream_repo:
            raise _bad(f"{who} hub repos must look like owner/name")

    def file(self, kind: str) -> CatalogFile | None:
        """The catalog file of `kind` ("onnx", "tokenizer", "idf"), if the model has one."""
        return next((f for f in self.files if f.kind == kind), None)

    @property
    def repos(self) -> tuple[str, ...]:
        """Every repo name that means this model: download repo, upstream repo, aliases."""
        return (self.hub_repo, self.upstream_repo, *self.aliases)

    def covers(self, language: str) -> bool:
        return _primary(language) in self.languages

    def model_json(
        self, files: Mapping[str, Mapping[str, Any]], inputs: list[str], output: str, revision: str | None
    ) -> dict[str, Any]:
        """The `model.json` of an installed copy: the pack's format plus slot, revision and files.

        `files` maps each repo path to its record (sha256, size, where the hash was checked);
        `inputs` and `output` come from the ONNX graph itself, read at install time.
        """
        onnx, tokenizer = self.file("onnx"), self.file("tokenizer")
        assert onnx is not None and tokenizer is not None  # __post_init__ guarantees both
        meta: dict[str, Any] = {
            "name": self.id,
            "role": self.role,
            "family": self.family,
            "slot": self.slot,
            "catalog_id": self.id,
            "hub_repo_for_users": self.upstream_repo,
            "hub_repo": self.hub_repo,
            "revision": revision,
            "onnx": onnx.path,
            "tokenizer": tokenizer.path,
            "inputs": inputs,
            "output": output,
            "pooling": self.pooling,
            "normalize": self.normalize,
            "max_tokens": self.max_tokens,
            "query_prefix": self.query_prefix,
            "passage_prefix": self.passage_prefix,
            "languages": list(self.languages),
            "quantization": self.quantization,
            "license": self.license,
        }
        if self.role == "late_interaction":
            meta["dim_per_token"] = self.dim
        elif self.dim is not None:
            meta["dim"] = self.dim
        meta.update(self.settings)
        meta["files"] = {path: dict(record) for path, record in files.items()}
        return meta


@dataclass(frozen=True)
class Catalog:
    """All production models, in catalog order."""

    models: tuple[ProductionModel, ...]
    path: Path | None = None

    def __post_init__(self) -> None:
        ids = [m.id for m in self.models]
        folders = [m.folder for m in self.models]
        if len(set(ids)) != len(ids) or len(set(folders)) != len(folders):
            raise _bad("model ids and folders must be unique")

    def by_id(self, model_id: str) -> ProductionModel | None:
        """The model with this catalog id or hub repo (any of its repo names), if any."""
        return next((m for m in self.models if m.id == model_id), None) or self.find_by_hub_repo(model_id)

    def find_by_hub_repo(self, repo: str | None) -> ProductionModel | None:
        """The model whose download repo, upstream repo or alias is `repo` (case-insensitive)."""
        if not repo:
            return None
        wanted = repo.strip().lower()
        return next((m for m in self.models if wanted in (r.lower() for r in m.repos)), None)

    def by_onnx_sha256(self, sha256: str) -> ProductionModel | None:
        """The model whose pinned ONNX file has this sha256 (None if no catalog hash matches)."""
        return next((m for m in self.models if (f := m.file("onnx")) and f.sha256 == sha256), None)

    def for_slot(self, slot: str, language: str = "en") -> ProductionModel:
        """The production model for `slot`; for E1 the one that fits the case language.

        English gets the English specialist (bge); Portuguese, "mixed" and any other language
        get the multilingual model, because a model that does not know the language is useless
        and one that knows more languages is only slightly weaker on English.
        """
        if slot not in SLOTS:
            raise ValueError(f"unknown slot {slot!r}; expected one of {', '.join(SLOTS)}")
        options = [m for m in self.models if m.slot == slot]
        if not options:
            raise _bad(f"no model for slot {slot}")
        lang = _primary(language)
        needed = {"en", "pt"} if lang == "mixed" else {lang}
        fitting = [m for m in options if needed <= set(m.languages)]
        if fitting:
            return min(fitting, key=lambda m: len(m.languages))  # the specialist
        return max(options, key=lambda m: len(m.languages))


def slot_of(spec: ModelSpec, catalog: Catalog | None = None) -> str:
    """The slot an installed model serves.

    model.json's "slot" wins (downloads and imports write it); then the catalog entry whose hub
    repo is the model's `hub_repo_for_users` (the offline pack names the production repo it
    stands in for); then the role: sparse E6, late interaction E12, dense E1.
    """
    declared = spec.extra.get("slot")
    if isinstance(declared, str) and declared in SLOTS and SLOTS[declared].role == spec.role:
        return declared
    entry = (catalog or load_catalog()).find_by_hub_repo(spec.hub_repo_for_users)
    if entry is not None and entry.role == spec.role:
        return entry.slot
    return ROLE_SLOTS[spec.role]


def find_by_hub_repo(repo: str | None) -> ProductionModel | None:
    """The production model known by hub repo `repo` in the shipped catalog, if any."""
    return load_catalog().find_by_hub_repo(repo)


def for_slot(slot: str, language: str = "en") -> ProductionModel:
    """The shipped catalog's production model for `slot` and case `language`."""
    return load_catalog().for_slot(slot, language)


@functools.lru_cache(maxsize=1)
def catalog_path() -> Path:
    """Where the shipped catalog.json is: the source tree's models/ or the wheel's data files.

    Looked up once per process (searches ask for it dozens of times; the lookup stats files)."""
    root = Path(__file__).resolve().parents[2]
    # pyproject.toml beside models/ means a source tree (editable install), not site-packages.
    if (root / "pyproject.toml").is_file() and (root / "models" / CATALOG_NAME).is_file():
        return root / "models" / CATALOG_NAME
    try:
        for entry in importlib.metadata.files("casetrack") or []:
            if str(entry).replace("\\", "/").endswith(WHEEL_DATA_PATH):
                located = Path(str(entry.locate()))
                if located.is_file():
                    return located.resolve()
    except importlib.metadata.PackageNotFoundError:
        pass
    raise CatalogError(f"CaseTrack's model catalog ({CATALOG_NAME}) is not installed.", _REINSTALL_HINT)


def load_catalog(path: Path | None = None) -> Catalog:
    """Read and check a catalog.json (default: the one shipped with CaseTrack, read once)."""
    return _load(str(path.resolve()) if path is not None else str(catalog_path()))


@functools.lru_cache(maxsize=8)
def _load(path: str) -> Catalog:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CatalogError(f"Could not read the model catalog {path}: {e}.", _REINSTALL_HINT) from e
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), list):
        raise _bad(f"{path} has no list of models")
    return Catalog(tuple(_entry(item) for item in raw["models"]), Path(path))


def _entry(item: Any) -> ProductionModel:
    if not isinstance(item, dict) or not isinstance(item.get("files"), list):
        raise _bad(f"entry {item!r} is not an object with a list of files")
    data = dict(item)
    try:
        data["files"] = tuple(CatalogFile(**f) for f in item["files"])
        data["aliases"] = tuple(item.get("aliases", []))
        data["languages"] = tuple(_primary(lang) for lang in item.get("languages", []))
        data.setdefault("upstream_repo", item.get("hub_repo"))
        data.setdefault("folder", item.get("id"))
        entry = ProductionModel(**data)
    except TypeError as e:  # a missing or unknown key
        raise _bad(f"entry {item.get('id', '?')!r}: {e}") from e
    if not isinstance(entry.normalize, bool) or not isinstance(entry.settings, dict):
        raise _bad(f"entry {entry.id!r}: normalize must be true/false and settings an object")
    return entry


def _primary(tag: str) -> str:
    # "pt-BR" and "pt_br" both mean Portuguese, as in catalog.py.
    return tag.strip().replace("_", "-").split("-")[0].lower()
