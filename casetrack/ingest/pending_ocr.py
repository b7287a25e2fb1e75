"""Files a case could not take because they needed OCR that could not run (tesseract or a
language missing, or an ingest from before OCR existed), kept so `casetrack reocr` can take them
once it can. One small JSON file in the case folder (0600): path -> when and why."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from casetrack import atomic_files

FILE = "pending_ocr.json"


def load(case_dir: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((case_dir / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def _save(case_dir: Path, pending: dict[str, dict[str, Any]]) -> None:
    target = case_dir / FILE
    if not pending:
        target.unlink(missing_ok=True)
        return
    atomic_files.write_json(target, pending, indent=1)


def add(case_dir: Path, path: Path, reason: str) -> None:
    pending = load(case_dir)
    pending[str(path)] = {"at": time.time(), "reason": reason}
    _save(case_dir, pending)


def remove(case_dir: Path, path: Path) -> None:
    pending = load(case_dir)
    if pending.pop(str(path), None) is not None:
        _save(case_dir, pending)
