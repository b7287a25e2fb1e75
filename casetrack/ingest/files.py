"""Finding files to ingest and fingerprinting them."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from casetrack.errors import CaseTrackError
from casetrack.parse.detect import SUPPORTED_EXTENSIONS

# Document formats CaseTrack cannot read yet: a folder walk still reports them, one clear
# line each ("save it as .docx"), instead of passing over a client's files in silence.
REPORTED_EXTENSIONS = frozenset({".doc", ".wpd", ".odt", ".pages", ".xls", ".xlsx", ".ppt", ".pptx", ".msg", ".eml"})


def sha256_file(path: Path, block: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            digest.update(chunk)
    return digest.hexdigest()


def discover_files(folder: Path, recursive: bool) -> list[Path]:
    """Supported files in a folder, in a stable order; hidden and Office lock files skipped."""
    if not folder.is_dir():
        raise CaseTrackError(f"{folder} is not a folder.", "Pass the folder that holds the case's documents.")
    found: list[Path] = []
    if recursive:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            found += [Path(dirpath) / f for f in sorted(filenames) if _wanted(f)]
    else:
        found = [p for p in sorted(folder.iterdir()) if p.is_file() and _wanted(p.name)]
    return found


def _wanted(name: str) -> bool:
    if name.startswith((".", "~$")):
        return False
    suffix = Path(name).suffix.lower()
    return suffix in SUPPORTED_EXTENSIONS or suffix in REPORTED_EXTENSIONS
