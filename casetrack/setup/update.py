"""`casetrack update --check`: is a newer CaseTrack on the package registry? Asked only when the user
asks (never automatically), and through the installation's own pip (`pip index versions`), so
the user's pip configuration (index, proxy, certificates) applies and CaseTrack names no server.
Nothing is upgraded here: the commands that upgrade are printed for the user to run.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from casetrack.errors import CaseTrackError
from casetrack.setup.installation import Installation

PACKAGE = "casetrack"
PIP_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class UpdateCheck:
    installed: str
    latest: str | None
    available: tuple[str, ...]  # newest first, as pip lists them
    update_available: bool
    commands: tuple[str, ...]  # what upgrades this installation

    def to_json(self) -> dict[str, Any]:
        return {
            "installed": self.installed,
            "latest": self.latest,
            "available": list(self.available),
            "update_available": self.update_available,
            "commands": list(self.commands),
        }


def version_key(version: str) -> tuple[tuple[int, ...], int, str]:
    """Order of release versions: numbers first (1.10 > 1.9; 1.0 == 1.0.0), then a final release
    above its pre-releases and dev builds (1.0 > 1.0rc1), post-releases above it."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)(.*)", version)
    if not match:
        return ((), 0, version)
    numbers = [int(n) for n in match[1].split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    rest = match[2].strip().lower().lstrip(".-_")
    rank = 1 if not rest or rest.startswith(("+", "post")) else 0
    if rest.startswith("post"):
        rank = 2
    return (tuple(numbers), rank, rest)


def parse_index_versions(output: str) -> tuple[str, ...]:
    """The versions of `pip index versions` output ("Available versions: 0.3.0, 0.2.0")."""
    for line in output.splitlines():
        head, _, tail = line.partition(":")
        if head.strip().lower() == "available versions":
            return tuple(v.strip() for v in tail.split(",") if v.strip())
    return ()


def _pip_failure(output: str, code: int, python: str) -> CaseTrackError:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.upper().startswith("ERROR")]
    said = (errors or lines or [f"exit {code}"])[-1]
    if "no module named pip" in output.lower():
        return CaseTrackError(
            f"pip is not installed in this CaseTrack's Python ({python}), so it cannot ask the "
            "package registry.",
            f'Add it: "{python}" -m ensurepip --upgrade, then run this again.',
        )
    if "no matching distribution" in output.lower():
        return CaseTrackError(
            f"The package index pip uses did not list {PACKAGE} ({said}): it is unreachable "
            "from here, or it does not carry CaseTrack.",
            "Check your connection and pip's index setting (pip config list), then run "
            "casetrack update --check again.",
        )
    return CaseTrackError(
        f"pip could not ask the package registry for {PACKAGE}'s versions: {said}",
        "Check your connection and pip's settings (pip config list), then run "
        "casetrack update --check again.",
    )


def index_versions(python: str, timeout: float = PIP_TIMEOUT_S) -> tuple[str, ...]:
    """The versions of CaseTrack the package index that `python`'s pip is configured with offers."""
    argv = [python, "-m", "pip", "index", "versions", PACKAGE, "--disable-pip-version-check", "--no-input"]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired as e:
        raise CaseTrackError(
            f"pip did not answer within {timeout:.0f} s.",
            "Check your connection, then run casetrack update --check again.",
        ) from e
    except OSError as e:
        raise CaseTrackError(
            f"Cannot run pip ({python}): {e.strerror or e}.",
            f'Reinstall CaseTrack, or run: "{python}" -m ensurepip --upgrade',
        ) from e
    output = f"{done.stdout}\n{done.stderr}"
    versions = parse_index_versions(done.stdout)
    if done.returncode != 0 or not versions:
        raise _pip_failure(output, done.returncode, python)
    return versions


def newest(versions: Sequence[str]) -> str | None:
    return max(versions, key=version_key) if versions else None


def check_for_update(installation: Installation, installed: str) -> UpdateCheck:
    """Ask the package index (network) and compare with `installed`."""
    available = index_versions(str(installation.python))
    latest = newest(available)
    newer = latest is not None and version_key(latest) > version_key(installed)
    return UpdateCheck(installed, latest, available, newer, installation.upgrade_commands())
