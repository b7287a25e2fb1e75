"""Model folders and the `model.json` that describes each one.

A CaseTrack models directory holds one folder per model: the ONNX graph, its `tokenizer.json`
and a `model.json` saying what the model is for (role), how to feed it (inputs, prefixes,
max tokens) and how to read it (output, pooling, normalisation). Everything that loads a model
starts from a `ModelSpec`, so the same code serves a bundled pack, an imported folder and,
later, hub downloads (which only have to write a folder with a `model.json`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from casetrack.errors import CaseTrackError, ModelNotFoundError

logger = logging.getLogger(__name__)

MODEL_JSON = "model.json"
ROLES: tuple[str, ...] = ("dense", "sparse", "late_interaction")
MODELS_HINT = (
    "Point CASETRACK_MODELS_DIR at a folder of CaseTrack models (each with a model.json), "
    "or run `casetrack models import DIR`."
)
REIMPORT_HINT = "The model folder may be damaged: re-import it with `casetrack models import DIR`."

# Keys of model.json that map onto ModelSpec fields; anything else is kept in `extra` so that
# later roles (sparse vocab_size, ColBERT markers) can read their settings without a schema change.
_KNOWN_KEYS = frozenset(
    {
        "name",
        "role",
        "family",
        "onnx",
        "tokenizer",
        "inputs",
        "output",
        "pooling",
        "normalize",
        "dim",
        "dim_per_token",
        "max_tokens",
        "query_prefix",
        "passage_prefix",
        "languages",
        "hub_repo_for_users",
        "quantization",
        "license",
    }
)


@dataclass(frozen=True)
class ModelSpec:
    """One model folder, as described by its `model.json`.

    `dim` is the vector size for dense models, the size of each token vector for
    late-interaction models (`dim_per_token` in model.json) and None for sparse models, whose
    width is the vocabulary. `onnx_file` and `tokenizer_file` are relative to `path`.
    """

    name: str
    role: str
    family: str
    path: Path
    onnx_file: str
    tokenizer_file: str
    inputs: tuple[str, ...]
    output: str
    pooling: str | None
    normalize: bool
    dim: int | None
    max_tokens: int
    query_prefix: str = ""
    passage_prefix: str = ""
    languages: tuple[str, ...] = ()
    hub_repo_for_users: str | None = None
    quantization: str | None = None
    license: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        where = f"model folder {self.path}"
        if not self.name:
            raise ModelNotFoundError(f"The {where} has no name in its {MODEL_JSON}.", REIMPORT_HINT)
        if self.role not in ROLES:
            raise ModelNotFoundError(
                f"The {where} has role {self.role!r}; CaseTrack knows {', '.join(ROLES)}.",
                REIMPORT_HINT,
            )
        if self.role != "sparse" and (self.dim is None or self.dim <= 0):
            raise ModelNotFoundError(
                f"The {where} is a {self.role} model but its {MODEL_JSON} gives no positive dim.",
                REIMPORT_HINT,
            )
        if self.max_tokens <= 0:
            raise ModelNotFoundError(
                f"The {where} has max_tokens {self.max_tokens}; it must be positive.", REIMPORT_HINT
            )
        for label, file in (("ONNX model", self.onnx_path), ("tokenizer", self.tokenizer_path)):
            if not file.is_file():
                raise ModelNotFoundError(f"The {label} file {file} is missing.", REIMPORT_HINT)

    @property
    def onnx_path(self) -> Path:
        return self.path / self.onnx_file

    @property
    def tokenizer_path(self) -> Path:
        return self.path / self.tokenizer_file

    @property
    def fingerprint(self) -> str:
        """`name@<12 hex of the ONNX file's sha256>`: identifies which weights made a vector.

        Stored vectors carry it, so a search can refuse to mix vectors from different weights.
        """
        return f"{self.name}@{file_sha256(self.onnx_path)[:12]}"

    def covers(self, language: str) -> bool:
        """True if the model lists `language` (e.g. "pt", "pt-BR") among its languages."""
        return _primary_language(language) in self.languages


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, cached in memory per (path, mtime, size).

    Hashing a 40 MB model takes ~0.1 s; the key makes a replaced file hash again.
    """
    resolved = path.resolve()
    stat = resolved.stat()
    return _sha256_cached(str(resolved), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _sha256_cached(path: str, mtime_ns: int, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_model_spec(folder: Path) -> ModelSpec:
    """Read and validate `folder/model.json`.

    Raises ModelNotFoundError (with a hint) if the file is missing, is not valid JSON, lacks a
    required key, or names files that are not in the folder.
    """
    folder = folder.expanduser().resolve()
    meta_path = folder / MODEL_JSON
    try:
        raw = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise ModelNotFoundError(f"No {MODEL_JSON} in {folder}.", MODELS_HINT) from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelNotFoundError(f"Could not read {meta_path}: {e}.", REIMPORT_HINT) from e
    if not isinstance(raw, dict):
        raise ModelNotFoundError(f"{meta_path} is not a JSON object.", REIMPORT_HINT)

    fields = _Fields(raw, meta_path)
    dim = fields.opt_int("dim")
    if dim is None:
        dim = fields.opt_int("dim_per_token")
    return ModelSpec(
        name=fields.req_str("name"),
        role=fields.req_str("role"),
        family=fields.opt_str("family") or "",
        path=folder,
        onnx_file=fields.opt_str("onnx") or "model.onnx",
        tokenizer_file=fields.opt_str("tokenizer") or "tokenizer.json",
        inputs=fields.str_tuple("inputs"),
        output=fields.req_str("output"),
        pooling=fields.opt_str("pooling"),
        normalize=fields.opt_bool("normalize", default=False),
        dim=dim,
        max_tokens=fields.req_int("max_tokens"),
        query_prefix=fields.opt_str("query_prefix") or "",
        passage_prefix=fields.opt_str("passage_prefix") or "",
        languages=tuple(_primary_language(lang) for lang in fields.str_tuple("languages")),
        hub_repo_for_users=fields.opt_str("hub_repo_for_users"),
        quantization=fields.opt_str("quantization"),
        license=fields.opt_str("license"),
        extra={k: v for k, v in raw.items() if k not in _KNOWN_KEYS},
    )


def discover_models(models_dir: Path) -> list[ModelSpec]:
    """Every valid model in the immediate subfolders of `models_dir`, sorted by folder name.

    Broken folders are logged and skipped so that one bad import does not hide the others.
    A missing `models_dir` gives an empty list.
    """
    models_dir = models_dir.expanduser()
    if not models_dir.is_dir():
        return []
    specs: list[ModelSpec] = []
    for folder in sorted(models_dir.iterdir()):
        if not (folder / MODEL_JSON).is_file():
            continue
        try:
            specs.append(load_model_spec(folder))
        except CaseTrackError as e:
            logger.warning("Skipping model folder %s: %s", folder, e.message)
    return specs


def find_model(models_dir: Path, role: str, language: str = "en", name: str | None = None) -> ModelSpec:
    """The model to use for `role` and `language` (or the one called `name`).

    Among models of the role that list the language, prefers the longest `max_tokens` (chunks
    are ~500 tokens; a 256-token model silently truncates them), then the most languages (one
    index serves a case that mixes English and Portuguese), then the folder order. A model that
    does not list the language is never chosen, so a Portuguese case never gets an
    English-only model; a model asked for by `name` is returned whatever its languages. Raises ModelNotFoundError saying which folder was searched.
    """
    if role not in ROLES:
        raise ValueError(f"unknown model role {role!r}; expected one of {ROLES}")
    models_dir = models_dir.expanduser()
    all_specs = discover_models(models_dir)
    of_role = [s for s in all_specs if s.role == role]
    if name is not None:
        named = [s for s in of_role if name in (s.name, s.path.name)]
        if named:
            return named[0]
        found = ", ".join(s.name for s in of_role) or "none"
        raise ModelNotFoundError(
            f"No {role} model named {name!r} in {models_dir} ({role} models there: {found}).",
            MODELS_HINT,
        )
    covering = [s for s in of_role if s.covers(language)]
    if covering:
        # Stable sort keeps folder order as the last tie-break.
        return sorted(covering, key=lambda s: (-s.max_tokens, -len(s.languages)))[0]
    raise ModelNotFoundError(
        f"No {role} model for language {language!r} in {models_dir} ({_describe(models_dir, all_specs, role)}).",
        MODELS_HINT,
    )


def _describe(models_dir: Path, specs: list[ModelSpec], role: str) -> str:
    if not models_dir.is_dir():
        return "the folder does not exist"
    if not specs:
        return f"no subfolder with a valid {MODEL_JSON}"
    of_role = [s for s in specs if s.role == role]
    if not of_role:
        return f"found only {', '.join(f'{s.name} ({s.role})' for s in specs)}"
    return "found " + ", ".join(f"{s.name} ({'/'.join(s.languages) or 'no languages'})" for s in of_role)


def _primary_language(tag: str) -> str:
    # "pt-BR" and "pt_br" both mean Portuguese for model choice.
    return tag.strip().replace("_", "-").split("-")[0].lower()


class _Fields:
    """Typed access to model.json keys with errors that name the file and the key."""

    def __init__(self, raw: dict[str, Any], source: Path) -> None:
        self._raw = raw
        self._source = source

    def _bad(self, key: str, expected: str) -> ModelNotFoundError:
        return ModelNotFoundError(
            f"{self._source}: {key!r} must be {expected}, got {self._raw.get(key)!r}.", REIMPORT_HINT
        )

    def req_str(self, key: str) -> str:
        value = self._raw.get(key)
        if not isinstance(value, str) or not value:
            raise self._bad(key, "a non-empty string")
        return value

    def opt_str(self, key: str) -> str | None:
        value = self._raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self._bad(key, "a string")
        return value

    def req_int(self, key: str) -> int:
        value = self.opt_int(key)
        if value is None:
            raise self._bad(key, "an integer")
        return value

    def opt_int(self, key: str) -> int | None:
        value = self._raw.get(key)
        if value is None:
            return None
        # bool is an int subclass; `true` is never a valid size.
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._bad(key, "an integer")
        return value

    def opt_bool(self, key: str, default: bool) -> bool:
        value = self._raw.get(key, default)
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def str_tuple(self, key: str) -> tuple[str, ...]:
        value = self._raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._bad(key, "a list of strings")
        return tuple(value)
