"""Shared fixtures: real data from ../shared, a private data directory for every test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from casetrack.privacy import telemetry_off

# The test process imports onnxruntime without going through the CLI's entry point.
telemetry_off(os.environ)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
MODELS = SHARED / "models"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test ever touches the user's ~/Documents/CaseTrack."""
    home = tmp_path / "casetrack-home"
    monkeypatch.setenv("CASETRACK_HOME", str(home))
    monkeypatch.setenv("CASETRACK_MODELS_DIR", str(MODELS))
    monkeypatch.setenv("LANCEDB_LOG", "error")
    return home


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    return _isolated_home


def require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"test data missing: {path}")
    return path
