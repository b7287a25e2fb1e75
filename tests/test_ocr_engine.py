"""casetrack.ocr.engine against the real tesseract 5 installed here (eng, osd, por)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytesseract
import pytest
from PIL import Image

from casetrack.errors import ParseError
from casetrack.ocr import (
    EngineInfo,
    OcrTimeoutError,
    OcrUnavailableError,
    engine_info,
    ocr_image,
    ocr_languages,
    require_languages,
)
from casetrack.ocr.engine import detect_system, install_fix, run_tesseract
from tests.conftest import DATA, require

PHOTOTEST = DATA / "ocr" / "tesseract_test" / "phototest.tif"


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")  # what the entry point sets (engine docstring)


@pytest.fixture
def no_tesseract(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine without tesseract: the binary pytesseract runs does not exist."""
    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
    monkeypatch.setattr("casetrack.ocr.engine._CANDIDATES", {})
    engine_info(refresh=True)
    yield
    monkeypatch.undo()
    engine_info(refresh=True)


def test_engine_info_reports_version_and_languages() -> None:
    info = engine_info()
    assert isinstance(info, EngineInfo)
    assert info.available, info.problem
    assert info.version is not None and re.fullmatch(r"[45]\.\d+(\.\d+)?", info.version)
    assert {"eng", "osd", "por"} <= set(info.languages)
    assert list(info.languages) == sorted(info.languages)
    assert info.problem is None and info.fix is None
    assert info.tessdata and info.command


def test_engine_info_is_cached_until_refreshed() -> None:
    assert engine_info() is engine_info()
    assert engine_info(refresh=True) == engine_info()


def test_a_missing_tesseract_is_reported_with_the_install_command(no_tesseract: None) -> None:
    info = engine_info()
    assert not info.available and info.version is None and info.languages == ()
    assert info.problem is not None and "not installed" in info.problem
    if detect_system() == "apt":
        assert info.fix == "sudo apt-get install tesseract-ocr"
    with pytest.raises(OcrUnavailableError) as caught:
        ocr_image(Image.new("L", (200, 100), 255), "eng")
    assert isinstance(caught.value, ParseError) and caught.value.hint


@pytest.mark.parametrize(
    ("case_language", "expected"),
    [
        ("en", "eng"),
        ("pt", "por"),
        ("PT-BR", "por"),
        ("pt_br", "por"),
        ("mixed", "eng+por"),
        ("en+pt", "eng+por"),
        ("pt+en", "por+eng"),
        ("en,pt", "eng+por"),
        ("eng", "eng"),
        ("por", "por"),
        ("fr", "eng"),
        ("", "eng"),
        ("klingon", "eng"),
    ],
)
def test_ocr_languages(case_language: str, expected: str) -> None:
    assert ocr_languages(case_language) == expected


def test_require_languages_passes_for_installed_languages() -> None:
    require_languages("eng")
    require_languages("eng+por")
    require_languages(ocr_languages("mixed"))


def test_require_languages_names_the_missing_one_and_the_install_command() -> None:
    with pytest.raises(OcrUnavailableError) as caught:
        require_languages("eng+xyz")
    error = caught.value
    assert isinstance(error, ParseError) and error.code == "ocr_unavailable"
    assert "xyz" in error.message and "eng" not in error.message
    assert error.hint is not None
    if detect_system() == "apt":
        assert error.hint.endswith("sudo apt-get install tesseract-ocr tesseract-ocr-xyz")
        assert "sudo apt-get install tesseract-ocr tesseract-ocr-xyz" in str(error)


@pytest.mark.parametrize(
    ("missing", "system", "tesseract", "command"),
    [
        ((), "apt", True, "sudo apt-get install tesseract-ocr"),
        (("por",), "apt", False, "sudo apt-get install tesseract-ocr tesseract-ocr-por"),
        (("chi_sim",), "apt", False, "sudo apt-get install tesseract-ocr tesseract-ocr-chi-sim"),
        (("osd",), "apt", False, "sudo apt-get install tesseract-ocr tesseract-ocr-osd"),
        ((), "brew", True, "brew install tesseract"),
        (("por",), "brew", False, "brew install tesseract tesseract-lang"),
        (("osd",), "brew", False, "brew install tesseract"),
        ((), "winget", True, "winget install UB-Mannheim.TesseractOCR"),
        (("por",), "winget", False, "winget install UB-Mannheim.TesseractOCR --force --interactive"),
        ((), "other", True, None),
    ],
)
def test_install_fix_per_system(
    missing: tuple[str, ...], system: str, tesseract: bool, command: str | None
) -> None:
    fix = install_fix(missing, system, tesseract=tesseract)  # type: ignore[arg-type]
    assert fix.cli == command
    assert fix.lead
    if system == "winget" and missing:
        assert "Portuguese" in fix.lead


def test_other_systems_are_told_where_the_traineddata_goes() -> None:
    fix = install_fix(["por"], "other", tessdata="/opt/tessdata")
    assert fix.cli is None and "por.traineddata" in fix.lead and "/opt/tessdata" in fix.lead


def test_an_unknown_language_at_run_time_raises_the_install_hint() -> None:
    image = Image.open(require(PHOTOTEST))
    with pytest.raises(OcrUnavailableError, match="xyz"):
        ocr_image(image, "eng+xyz", dpi=200)


def test_a_deadline_in_the_past_raises_a_timeout() -> None:
    with pytest.raises(OcrTimeoutError) as caught:
        run_tesseract("tsv", Image.new("L", (100, 100), 255), "eng", "", time.monotonic() - 1)
    assert caught.value.code == "ocr_timeout" and caught.value.hint
