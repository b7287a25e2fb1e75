"""The tesseract engine: is it installed, which languages it has, and how to run it.

* `engine_info()` probes the binary once per process (`refresh=True` probes again) and says what is
  wrong and the command that fixes it on this OS, for `casetrack status`.
* `ocr_languages("en" | "pt" | "mixed")` is the tesseract `-l` value for a case language;
  `require_languages("eng+por")` raises `OcrUnavailableError` naming what is missing and the
  install command (apt on Debian/Ubuntu, brew on macOS, winget on Windows).
* `run_tesseract()` is the one place pytesseract is called: it enforces a deadline (tesseract is
  killed past it: `OcrTimeoutError`) and turns tesseract's failures into `ParseError`s.

Tesseract is found on PATH, else at the usual install places (Homebrew's /opt/homebrew/bin is not on
the PATH Claude Desktop gives its servers; the Windows installer does not add itself to PATH); when
found there, pytesseract's `tesseract_cmd` is pointed at it.

Speed: tesseract's OpenMP threads busy-wait, so on a busy 2-core machine a page takes 7.6 s wall
instead of 1.6 s (bench/ocr.py). The entry point should set `RECOMMENDED_ENV` (OMP_THREAD_LIMIT=1)
in os.environ before the first OCR; pages are then read in parallel by running several at once.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytesseract

from casetrack.errors import Fix, OcrFailedError, OcrTimeoutError, OcrUnavailableError

logger = logging.getLogger(__name__)

MIN_VERSION = (4, 0)  # the LSTM engine; 3.x has no TSV word confidences worth the name
RECOMMENDED_ENV = {"OMP_THREAD_LIMIT": "1"}
# Case language -> tesseract traineddata; "mixed" cases read both.
CASE_LANGUAGES = {"en": "eng", "pt": "por"}
LANGUAGE_NAMES = {"eng": "English", "por": "Portuguese", "osd": "orientation detection"}
_CANDIDATES = {
    "darwin": ("/opt/homebrew/bin/tesseract", "/usr/local/bin/tesseract"),
    "win32": (
        r"C:\Program Files\Tesseract-OCR\tesseract.exe",
        r"C:\Program Files (x86)\Tesseract-OCR\tesseract.exe",
    ),
}

System = Literal["apt", "brew", "winget", "other"]


@dataclass(frozen=True)
class EngineInfo:
    """What `casetrack status` says about OCR."""

    available: bool  # tesseract found, runs, and is 4.0 or newer
    version: str | None  # "5.3.0"
    languages: tuple[str, ...]  # installed traineddata, sorted: ("eng", "osd", "por")
    problem: str | None  # what is wrong (also set when tesseract works but lacks osd)
    fix: str | None  # the command that fixes it on this OS
    command: str | None = None  # the tesseract binary used
    tessdata: str | None = None  # where the traineddata files are


def detect_system() -> System:
    """Which package manager's commands to suggest here."""
    if sys.platform == "darwin":
        return "brew"
    if sys.platform == "win32":
        return "winget"
    try:
        release = Path("/etc/os-release").read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return "other"
    ids = " ".join(re.findall(r"^id(?:_like)?=\"?([^\"\n]*)", release, flags=re.MULTILINE))
    return "apt" if re.search(r"\b(debian|ubuntu)\b", ids) else "other"


def install_fix(
    missing: Sequence[str], system: System, *, tesseract: bool = False, tessdata: str | None = None
) -> Fix:
    """The step that installs tesseract (`tesseract=True`) and/or the `missing` traineddata."""
    extra = [lang for lang in missing if lang not in ("eng", "osd")]
    names = ", ".join(LANGUAGE_NAMES.get(lang, lang) for lang in missing)
    lead = "Install Tesseract OCR" + (f" with {names}" if missing else "")
    if system == "apt":
        packages = ["tesseract-ocr"] + [f"tesseract-ocr-{lang.lower().replace('_', '-')}" for lang in missing]
        return Fix(lead, "sudo apt-get install " + " ".join(dict.fromkeys(packages)))
    if system == "brew":
        return Fix(lead, "brew install tesseract" + (" tesseract-lang" if extra else ""))
    if system == "winget":
        if tesseract or not extra:
            return Fix(lead, "winget install UB-Mannheim.TesseractOCR")
        return Fix(
            f"Re-run the Tesseract installer and tick {names} under 'Additional language data'",
            "winget install UB-Mannheim.TesseractOCR --force --interactive",
        )
    where = f" into {tessdata}" if tessdata else ""
    files = ", ".join(f"{lang}.traineddata" for lang in missing)
    if tesseract:
        return Fix(lead + " (4.0 or newer) with your package manager")
    return Fix(f"Add {files} (https://github.com/tesseract-ocr/tessdata_fast){where}")


def ocr_languages(case_language: str) -> str:
    """The tesseract `-l` value for a case language: "en" -> "eng", "pt" -> "por",
    "mixed" or "en+pt" -> "eng+por"; an unknown language reads as English."""
    key = case_language.strip().lower().replace("_", "-")
    if key in ("mixed", "multi", "all"):
        return "+".join(CASE_LANGUAGES.values())
    found = []
    for part in re.split(r"[+,\s]+", key):
        lang = CASE_LANGUAGES.get(part.split("-")[0]) or (part if part in CASE_LANGUAGES.values() else None)
        if lang and lang not in found:
            found.append(lang)
    return "+".join(found) or "eng"


ENV_TESSERACT = "CASETRACK_TESSERACT"  # the tesseract executable, where PATH does not find it
_DEFAULT_COMMAND = str(pytesseract.pytesseract.tesseract_cmd)
_FROM_ENV: str | None = None  # the command last taken from CASETRACK_TESSERACT


def _find_command() -> str | None:
    """The tesseract to run: CASETRACK_TESSERACT, else pytesseract's (PATH), else the usual
    install folders Claude Desktop's PATH leaves out."""
    global _FROM_ENV
    override = os.environ.get(ENV_TESSERACT)
    if override:
        pytesseract.pytesseract.tesseract_cmd = _FROM_ENV = override
        return shutil.which(override)
    if _FROM_ENV is not None and pytesseract.pytesseract.tesseract_cmd == _FROM_ENV:
        pytesseract.pytesseract.tesseract_cmd = _DEFAULT_COMMAND  # the setting was taken away
    _FROM_ENV = None
    configured = str(pytesseract.pytesseract.tesseract_cmd)
    found = shutil.which(configured)
    if found:
        return found
    for candidate in _CANDIDATES.get(sys.platform, ()):
        if Path(candidate).is_file():
            pytesseract.pytesseract.tesseract_cmd = candidate  # pytesseract reads its module global
            return candidate
    return None


def _run(command: str, *args: str) -> str:
    done = subprocess.run(
        [command, *args], capture_output=True, timeout=30, check=False, stdin=subprocess.DEVNULL
    )
    return (done.stdout + done.stderr).decode("utf-8", errors="replace")


def _parse_languages(listing: str) -> tuple[tuple[str, ...], str | None]:
    where = re.search(r'"([^"]+)"', listing.splitlines()[0]) if listing.strip() else None
    langs = {line.strip() for line in listing.splitlines()[1:] if re.fullmatch(r"[\w.+-]+", line.strip())}
    return tuple(sorted(langs)), where.group(1).rstrip("/\\") if where else None


@functools.cache
def _probe() -> EngineInfo:
    system = detect_system()
    command = _find_command()
    if command is None:
        fix = install_fix([], system, tesseract=True)
        return EngineInfo(
            False,
            None,
            (),
            "Tesseract OCR is not installed: scanned pages and images cannot be read.",
            fix.cli or fix.lead,
        )
    try:
        version_text = _run(command, "--version")
        listing = _run(command, "--list-langs")
    except (OSError, subprocess.SubprocessError) as e:
        fix = install_fix([], system, tesseract=True)
        return EngineInfo(
            False, None, (), f"Tesseract at {command} does not run ({e}).", fix.cli or fix.lead, command
        )
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", version_text)
    version = ".".join(g for g in match.groups() if g) if match else None
    languages, tessdata = _parse_languages(listing)
    if match is None or (int(match[1]), int(match[2])) < MIN_VERSION:
        fix = install_fix([], system, tesseract=True)
        return EngineInfo(
            False,
            version,
            languages,
            f"Tesseract {version or '(unknown version)'} is too old: 4.0 or newer is needed.",
            fix.cli or fix.lead,
            command,
            tessdata,
        )
    missing = [lang for lang in ("eng", "osd") if lang not in languages]
    problem = fix_text = None
    if missing:
        fix = install_fix(missing, system, tessdata=tessdata)
        what = ", ".join(f"{lang} ({LANGUAGE_NAMES[lang]})" for lang in missing)
        problem = f"Tesseract has no {what} data" + (
            ": rotated scans are not turned upright." if missing == ["osd"] else "."
        )
        fix_text = fix.cli or fix.lead
    return EngineInfo(True, version, languages, problem, fix_text, command, tessdata)


def engine_info(refresh: bool = False) -> EngineInfo:
    """Tesseract's state, probed once per process (`refresh=True` probes again, e.g. after an install)."""
    if refresh:
        _probe.cache_clear()
    return _probe()


def require_languages(languages: str) -> None:
    """Raise `OcrUnavailableError` unless tesseract runs and has every language of `languages` ("eng+por")."""
    info = engine_info()
    wanted = [lang for lang in languages.split("+") if lang]
    system = detect_system()
    if not info.available:
        fix = install_fix(wanted, system, tesseract=True)
        raise OcrUnavailableError(info.problem or "Tesseract OCR is not available.", fix=fix)
    missing = [lang for lang in wanted if lang not in info.languages]
    if missing:
        names = ", ".join(
            f"{lang} ({LANGUAGE_NAMES[lang]})" if lang in LANGUAGE_NAMES else lang for lang in missing
        )
        fix = install_fix(missing, system, tessdata=info.tessdata)
        raise OcrUnavailableError(
            f"Tesseract has no {names} language data, needed to read this scan.", fix=fix
        )


def has_osd() -> bool:
    """Whether tesseract can detect page orientation (the `osd` traineddata is installed)."""
    info = engine_info()
    return info.available and "osd" in info.languages


def remaining(deadline: float) -> float:
    """Seconds left before `deadline` (a time.monotonic() value); raises OcrTimeoutError at none."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise OcrTimeoutError(*_timeout_message())
    return left


def _timeout_message() -> tuple[str, str]:
    return (
        "Reading this page with OCR took too long and was stopped.",
        "Re-scan it at 300 DPI if it is very large or noisy, or retry with a longer OCR timeout.",
    )


def run_tesseract(
    kind: Literal["tsv", "osd"], image: object, languages: str, config: str, deadline: float
) -> str:
    """Tesseract's TSV or OSD output for `image`, killed at `deadline` (time.monotonic())."""
    timeout = remaining(deadline)
    try:
        if kind == "osd":
            return str(pytesseract.image_to_osd(image, config=config, timeout=timeout))
        return str(pytesseract.image_to_data(image, lang=languages, config=config, timeout=timeout))
    except RuntimeError as e:
        if "timeout" in str(e).lower() and not isinstance(e, pytesseract.TesseractError):
            raise OcrTimeoutError(*_timeout_message()) from e
        if isinstance(e, pytesseract.TesseractError) and "load any languages" in str(e.args[-1]):
            require_languages(languages)  # names the missing language and its install command
        raise OcrFailedError(
            f"Tesseract failed on this page: {_short(e)}.",
            "The scan may be damaged; check that it opens in an image viewer.",
        ) from e
    except pytesseract.TesseractNotFoundError as e:
        engine_info(refresh=True)
        require_languages(languages)
        raise OcrUnavailableError("Tesseract OCR is not installed.") from e


def _short(error: Exception) -> str:
    text = str(error.args[-1] if error.args else error)
    return text if len(text) <= 200 else text[:197] + "..."
