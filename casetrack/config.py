"""Settings resolved once at the entry point (CLI flags, then environment, then defaults).

Nothing below the entry point reads the environment: layers receive a `Settings`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import platformdirs

from casetrack.privacy_fs import ENV_ALLOWED_ROOTS, parse_roots

ENV_HOME = "CASETRACK_HOME"
ENV_MODELS = "CASETRACK_MODELS_DIR"
ENV_MODEL_CATALOG = "CASETRACK_MODEL_CATALOG"
ENV_MEMORY_MODE = "CASETRACK_MEMORY_MODE"
ENV_OCR_LANGUAGES = "CASETRACK_OCR_LANGUAGES"
ENV_KEEP_REVOKED = "CASETRACK_KEEP_REVOKED"
ENV_MODEL_IDLE = "CASETRACK_MODEL_IDLE_MINUTES"  # the daemon unloads models unused this long (0: never)
# The install's own models folder, in place of the one found from the package (install_models_dir).
ENV_INSTALL_MODELS = "CASETRACK_INSTALL_MODELS_DIR"
MEMORY_MODES = ("full", "standard", "constrained")
AUTO = "auto"  # resolve_settings(install_models=AUTO): the install's own folder, found from the package
MODEL_JSON = "model.json"  # what makes a folder an installed model (embed/catalog.py reads it)
# Where the models folder came from (Settings.models_source): the user's choice, the data
# directory, the install's own folder, or nowhere holds models yet (the folder downloads go to).
MODELS_SOURCES = ("explicit", "data_dir", "install", "empty")


def default_data_dir() -> Path:
    """`~/Documents/CaseTrack` (platformdirs' documents folder on each OS)."""
    return Path(platformdirs.user_documents_dir()) / "CaseTrack"


def install_models_dir() -> Path:
    """The install's own models folder: the folder that holds the shipped `catalog.json`.

    In a source tree, an install.sh checkout or an unpacked bundle (pyproject.toml beside the
    package) that is `models/` of the tree; in a wheel install it is the wheel's data folder
    `<prefix>/share/casetrack/models` (pyproject's data-files), the same place
    embed/production.py reads the catalog from.

    CASETRACK_INSTALL_MODELS_DIR names another folder (a packager's, or the tests': a source tree's
    `models/` that install.sh filled must not decide what a test sees). It is read from the process
    environment, not from `resolve_settings(environ=...)`: where the install keeps its models is a
    fact of the running install, like `sys.prefix`, that its child processes inherit.
    """
    chosen = os.environ.get(ENV_INSTALL_MODELS)
    if chosen:
        return Path(chosen).expanduser()
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file():
        return root / "models"
    return Path(sys.prefix) / "share" / "casetrack" / "models"


def holds_models(folder: Path) -> bool:
    """Whether `folder` has at least one installed model (a sub-folder with a model.json)."""
    try:
        return any((sub / MODEL_JSON).is_file() for sub in folder.iterdir() if not sub.name.startswith("."))
    except OSError:  # missing, not a folder, or unreadable
        return False


def _writable(folder: Path) -> bool:
    """Whether CaseTrack could create or write `folder` (its nearest existing ancestor is writable)."""
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


@dataclass(frozen=True)
class ModelsLocation:
    """Where models are read from and where downloads and imports write (`locate_models`)."""

    read: Path
    write: Path
    source: str  # one of MODELS_SOURCES
    candidates: tuple[Path, ...]  # every folder the rule looks at, in order
    chosen: tuple[Path, ...] = ()  # the explicit choices among them (--models-dir, CASETRACK_MODELS_DIR)

    @property
    def explicit(self) -> Path | None:
        """The user's own choice, as child processes must be given it (None: the rule found it)."""
        return self.chosen[0] if self.chosen else None

    @property
    def write_comes_first(self) -> bool:
        """Installs go to a folder the rule looks at before the one search reads: once it holds a
        model it is read instead, so the models of the folder in use must be copied along."""
        return self.write != self.read and self.candidates.index(self.write) < self.candidates.index(
            self.read
        )

    def rescanned(self) -> ModelsLocation:
        """The rule applied again to the same folders (after a download or an import)."""
        return _pick(self.candidates, self.chosen, self.write)


def locate_models(explicit: Sequence[Path], data_dir: Path, install_dir: Path | None) -> ModelsLocation:
    """The models rule, the one place it is decided (every entry point goes through it).

    Candidates in order: the explicit choices (`--models-dir`, then CASETRACK_MODELS_DIR),
    DATA_DIR/models, then the install's own models folder. Search reads from the first that holds
    installed models. Downloads and imports write to the first writable explicit choice, else
    DATA_DIR/models (never into the install's folder: a bundle's folder is replaced when the host
    updates it). When no candidate holds models yet, search reads where downloads will write.
    """
    chosen = tuple(dict.fromkeys(explicit))
    data_models = data_dir / "models"
    candidates = tuple(dict.fromkeys((*chosen, data_models, *((install_dir,) if install_dir else ()))))
    write = next((p for p in chosen if _writable(p)), data_models)
    return _pick(candidates, chosen, write)


def _pick(candidates: tuple[Path, ...], chosen: tuple[Path, ...], write: Path) -> ModelsLocation:
    for index, folder in enumerate(candidates):
        if holds_models(folder):
            # The folder after the explicit choices is DATA_DIR/models; the last one the install's.
            source = "explicit" if folder in chosen else "data_dir" if index == len(chosen) else "install"
            return ModelsLocation(folder, write, source, candidates, chosen)
    return ModelsLocation(write, write, "empty", candidates, chosen)


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    models_dir: Path  # where search and ingest read models (the models rule: `locate_models`)
    memory_mode: str | None = None  # None: chosen from detected RAM
    # tesseract's languages for scanned pages ("eng+por" for mixed cases); None: each case's own
    # language (en -> eng, pt -> por); "" turns OCR off.
    ocr_languages: str | None = None
    # Struck-through (revoked) text of DOCX and HTML is indexed, marked "[revogado: ...]", instead
    # of left out (parse/revoked.py).
    keep_revoked: bool = False
    # The daemon unloads models no search or ingest has used for this many minutes and gives the
    # memory back to the system (0: keep them loaded); env CASETRACK_MODEL_IDLE_MINUTES.
    model_idle_minutes: float = 10.0
    # The user's home folder (system folders never readable through MCP tools, except inside it).
    home_dir: Path = field(default_factory=Path.home)
    # Where MCP tools may ingest from (privacy_fs.check_allowed); the CLI is not restricted.
    allowed_roots: tuple[Path, ...] = field(default_factory=lambda: (Path.home(),))
    # How models_dir was found and where installs go (None: a Settings built with one folder,
    # which is then read from and written to, like an explicit choice).
    models_location: ModelsLocation | None = None
    # A catalog.json to download from instead of the shipped one (a mirror's own pins; tests).
    model_catalog: Path | None = None

    @property
    def models_target(self) -> Path:
        """Where downloads and imports install models."""
        return self.models_location.write if self.models_location else self.models_dir

    @property
    def models_source(self) -> str:
        """How models_dir was found: one of MODELS_SOURCES."""
        return self.models_location.source if self.models_location else "explicit"

    @property
    def models_choice(self) -> Path | None:
        """The models folder to give a child process as --models-dir: the user's own choice;
        None lets the child apply the models rule itself."""
        return self.models_location.explicit if self.models_location else self.models_dir

    def models_rescanned(self) -> Settings:
        """These settings with the models rule applied again: after a download or an import,
        a folder earlier in the rule may hold models now."""
        if self.models_location is None:
            return self
        found = self.models_location.rescanned()
        return replace(self, models_dir=found.read, models_location=found)

    @property
    def cases_dir(self) -> Path:
        return self.data_dir / "cases"

    @property
    def registry_path(self) -> Path:
        return self.data_dir / "registry.sqlite"

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    def case_dir(self, case_id: str) -> Path:
        return self.cases_dir / case_id


def model_idle_minutes(value: str | None, default: float = 10.0) -> float:
    """CASETRACK_MODEL_IDLE_MINUTES as a number of minutes (>= 0); unset or empty: `default`."""
    if value is None or not value.strip():
        return default
    try:
        minutes = float(value)
    except ValueError:
        minutes = -1.0
    if minutes < 0:
        raise ValueError(f"{ENV_MODEL_IDLE} must be a number of minutes (0 or more), got {value!r}")
    return minutes


def resolve_settings(
    data_dir: str | os.PathLike[str] | None = None,
    models_dir: str | os.PathLike[str] | None = None,
    environ: dict[str, str] | None = None,
    memory_mode: str | None = None,
    ocr_languages: str | None = None,
    allowed_roots: str | Sequence[str | os.PathLike[str]] | None = None,
    home_dir: str | os.PathLike[str] | None = None,
    keep_revoked: bool | None = None,
    install_models: str | os.PathLike[str] | None = AUTO,
    model_catalog: str | os.PathLike[str] | None = None,
) -> Settings:
    """Explicit arguments win, then CASETRACK_HOME / CASETRACK_MODELS_DIR / CASETRACK_MEMORY_MODE /
    CASETRACK_OCR_LANGUAGES / CASETRACK_ALLOWED_ROOTS / CASETRACK_KEEP_REVOKED, then defaults. `allowed_roots`: a list of
    folders or one os.pathsep-separated string, as in the environment (default: the home folder).
    The models folder follows `locate_models`; `install_models` is the install's own models folder
    (default `install_models_dir()`, None: none), `model_catalog` a catalog.json for downloads
    (else CASETRACK_MODEL_CATALOG, else the shipped one)."""
    env = dict(os.environ) if environ is None else environ
    home = Path(data_dir or env.get(ENV_HOME) or default_data_dir()).expanduser().resolve()
    chosen = [Path(m).expanduser().resolve() for m in (models_dir, env.get(ENV_MODELS)) if m]
    install = (
        install_models_dir() if install_models == AUTO else Path(install_models) if install_models else None
    )
    location = locate_models(chosen, home, install.expanduser().resolve() if install else None)
    catalog = model_catalog or env.get(ENV_MODEL_CATALOG)
    # Empty or "auto" (the Desktop bundle's default setting) means: chosen from detected RAM.
    mode = (memory_mode or env.get(ENV_MEMORY_MODE) or "").strip().lower() or None
    mode = None if mode == "auto" else mode
    if mode is not None and mode not in MEMORY_MODES:
        raise ValueError(f"memory mode must be one of {', '.join(MEMORY_MODES)}, got {mode!r}")
    ocr = ocr_languages if ocr_languages is not None else env.get(ENV_OCR_LANGUAGES)
    user_home = Path(home_dir) if home_dir is not None else Path.home()
    roots = allowed_roots if allowed_roots is not None else env.get(ENV_ALLOWED_ROOTS) or ""
    text = roots if isinstance(roots, str) else os.pathsep.join(os.fspath(r) for r in roots)
    keep = (
        keep_revoked
        if keep_revoked is not None
        else env.get(ENV_KEEP_REVOKED, "").lower() in ("1", "true", "yes")
    )
    return Settings(
        data_dir=home,
        models_dir=location.read,
        models_location=location,
        model_catalog=Path(catalog).expanduser().resolve() if catalog else None,
        memory_mode=mode,
        keep_revoked=keep,
        ocr_languages=ocr.strip() if ocr is not None else None,
        home_dir=user_home,
        allowed_roots=parse_roots(text, user_home) or (user_home,),
    )
