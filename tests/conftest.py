"""Shared fixtures: real data from ../shared, a private environment for every test.

Every test starts from the same environment, whatever the developer's shell, home folder or
install hold: no CASETRACK_* variable of the shell reaches it, HOME is a private folder (Claude's
config files, platformdirs' Documents), and the install's own models folder is an empty one
(install.sh fills the repository's `models/`; a test that wants an install folder makes one).
Subprocesses inherit this environment.

The shared test data and models live in ../shared (CT_TEST_SHARED=DIR names another folder). A
test whose data is missing is skipped with "test data missing"; the run ends with their count,
so a run without ../shared cannot pass silently.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from casetrack.privacy import telemetry_off

# The test process imports onnxruntime without going through the CLI's entry point.
telemetry_off(os.environ)

REPO = Path(__file__).resolve().parents[1]
SHARED = (
    Path(os.environ["CT_TEST_SHARED"]).absolute()
    if os.environ.get("CT_TEST_SHARED")
    else REPO.parent / "shared"
)
DATA = SHARED / "data"
MODELS = SHARED / "models"
MISSING = "test data missing"  # the skip reason of require(), counted at the end of the run

# Knobs of the test run itself, not settings of CaseTrack: where ci/*.sh keep their npm tools, how
# many crash trials and kills the slow tier runs. They may come from the developer's shell.
RUN_KNOBS = frozenset({"CASETRACK_CI_CACHE", "CASETRACK_CRASH_TRIALS", "CASETRACK_FAULT_KILLS"})
# Where the XDG base directories point, read by platformdirs and Claude Desktop's config path.
XDG_VARIABLES = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DOCUMENTS_DIR")


def _tool_configs() -> dict[str, str]:
    """pip's and npm's own user settings (a firm's mirror, local wheels), kept under the private
    HOME: they configure the package tools some tests run, not CaseTrack."""
    home = Path.home()
    found = {
        "PIP_CONFIG_FILE": home / ".config" / "pip" / "pip.conf",
        "NPM_CONFIG_USERCONFIG": home / ".npmrc",
    }
    return {name: str(path) for name, path in found.items() if name not in os.environ and path.is_file()}


TOOL_CONFIGS = _tool_configs()  # read once, before any test moves HOME


def _private_home(patch: pytest.MonkeyPatch, folder: Path) -> None:
    """HOME (Path.home(), platformdirs' Documents, Claude's config files) in `folder`, no XDG dirs."""
    folder.mkdir()
    patch.setenv("HOME", str(folder))
    patch.setenv("USERPROFILE", str(folder))  # Path.home() on Windows
    for name in XDG_VARIABLES:
        patch.delenv(name, raising=False)


@pytest.fixture(autouse=True, scope="session")
def _clean_environment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The whole run's environment, session and module fixtures included: no CASETRACK_* variable
    of the developer's shell, a private HOME and an empty install models folder (never made)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith("CASETRACK_") and name not in RUN_KNOBS:
                patch.delenv(name)
        session = tmp_path_factory.mktemp("session-env")
        _private_home(patch, session / "home")
        for name, value in TOOL_CONFIGS.items():
            patch.setenv(name, value)
        patch.setenv("CASETRACK_INSTALL_MODELS_DIR", str(session / "install-models"))
        patch.setenv("LANCEDB_LOG", "error")
        yield


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test's own HOME (beside tmp_path, which tests list) and data directory, with the
    shared model pack; what a test changes in the environment is undone after it."""
    _private_home(monkeypatch, tmp_path_factory.mktemp("env") / "home")
    home = tmp_path / "casetrack-home"
    monkeypatch.setenv("CASETRACK_HOME", str(home))
    monkeypatch.setenv("CASETRACK_MODELS_DIR", str(MODELS))
    return home


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    return _isolated_home


def require(path: Path) -> Path:
    """`path`, or the test is skipped as one whose shared data is missing."""
    if not path.exists():
        pytest.skip(f"{MISSING}: {path}")
    return path


def missing_data(reason: str) -> bool:
    """Whether a skip's reason is shared data or models that are not there."""
    return MISSING in reason or str(SHARED) in reason


def skipped_for_missing_data(reports: list[pytest.TestReport]) -> int:
    """How many of the skipped reports were skipped for missing shared data."""
    count = 0
    for report in reports:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        count += missing_data(reason)
    return count


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> Generator[None]:
    """After the short summary, just above pytest's last line: the tests skipped for missing data."""
    yield
    count = skipped_for_missing_data(terminalreporter.stats.get("skipped", []))
    absent = [str(folder) for folder in (DATA, MODELS) if not folder.is_dir()]
    if not count and not absent:
        terminalreporter.write_line(f"0 tests skipped for missing test data ({SHARED})")
        return
    terminalreporter.write_sep(
        "!", f"{count} tests skipped: {MISSING} (data/ and models/ of {SHARED})", red=True, bold=True
    )
    if absent:  # tests parametrized over its files are not even collected
        terminalreporter.write_line(f"Not there at all: {', '.join(absent)}.", red=True)
    terminalreporter.write_line(
        f"Place the shared test data and models at {SHARED} (../shared beside the repository, or "
        "CT_TEST_SHARED=DIR), then run the tests again.",
        red=True,
    )
