"""Settings resolved once at the entry point (CLI flags, then environment, then defaults).

Nothing below the entry point reads the environment: layers receive a `Settings`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from casetrack.privacy_fs import ENV_ALLOWED_ROOTS, parse_roots

ENV_HOME = "CASETRACK_HOME"
ENV_MODELS = "CASETRACK_MODELS_DIR"
ENV_MEMORY_MODE = "CASETRACK_MEMORY_MODE"
ENV_OCR_LANGUAGES = "CASETRACK_OCR_LANGUAGES"
ENV_KEEP_REVOKED = "CASETRACK_KEEP_REVOKED"
MEMORY_MODES = ("full", "standard", "constrained")


def default_data_dir() -> Path:
    """`~/Documents/CaseTrack` (platformdirs' documents folder on each OS)."""
    return Path(platformdirs.user_documents_dir()) / "CaseTrack"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    models_dir: Path
    memory_mode: str | None = None  # None: chosen from detected RAM
    # tesseract's languages for scanned pages ("eng+por" for mixed cases); None: each case's own
    # language (en -> eng, pt -> por); "" turns OCR off.
    ocr_languages: str | None = None
    # Struck-through (revoked) text of DOCX and HTML is indexed, marked "[revogado: ...]", instead
    # of left out (parse/revoked.py).
    keep_revoked: bool = False
    # The user's home folder (system folders never readable through MCP tools, except inside it).
    home_dir: Path = field(default_factory=Path.home)
    # Where MCP tools may ingest from (privacy_fs.check_allowed); the CLI is not restricted.
    allowed_roots: tuple[Path, ...] = field(default_factory=lambda: (Path.home(),))

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


def resolve_settings(
    data_dir: str | os.PathLike[str] | None = None,
    models_dir: str | os.PathLike[str] | None = None,
    environ: dict[str, str] | None = None,
    memory_mode: str | None = None,
    ocr_languages: str | None = None,
    allowed_roots: str | Sequence[str | os.PathLike[str]] | None = None,
    home_dir: str | os.PathLike[str] | None = None,
    keep_revoked: bool | None = None,
) -> Settings:
    """Explicit arguments win, then CASETRACK_HOME / CASETRACK_MODELS_DIR / CASETRACK_MEMORY_MODE /
    CASETRACK_OCR_LANGUAGES / CASETRACK_ALLOWED_ROOTS / CASETRACK_KEEP_REVOKED, then defaults. `allowed_roots`: a list of
    folders or one os.pathsep-separated string, as in the environment (default: the home folder)."""
    env = dict(os.environ) if environ is None else environ
    home = Path(data_dir or env.get(ENV_HOME) or default_data_dir()).expanduser().resolve()
    models = models_dir or env.get(ENV_MODELS)
    models_path = Path(models).expanduser().resolve() if models else home / "models"
    mode = memory_mode or env.get(ENV_MEMORY_MODE) or None
    if mode is not None and mode not in MEMORY_MODES:
        raise ValueError(f"memory mode must be one of {', '.join(MEMORY_MODES)}, got {mode!r}")
    ocr = ocr_languages if ocr_languages is not None else env.get(ENV_OCR_LANGUAGES)
    user_home = Path(home_dir) if home_dir is not None else Path.home()
    roots = allowed_roots if allowed_roots is not None else env.get(ENV_ALLOWED_ROOTS) or ""
    text = roots if isinstance(roots, str) else os.pathsep.join(os.fspath(r) for r in roots)
    keep = keep_revoked if keep_revoked is not None else env.get(ENV_KEEP_REVOKED, "").lower() in ("1", "true", "yes")
    return Settings(data_dir=home, models_dir=models_path, memory_mode=mode, keep_revoked=keep,
                    ocr_languages=ocr.strip() if ocr is not None else None, home_dir=user_home,
                    allowed_roots=parse_roots(text, user_home) or (user_home,))
