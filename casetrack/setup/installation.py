"""Which installation of CaseTrack is running: a virtual environment that `installer/install.sh` (or
`install.ps1`) made, or anything else (pip into some environment, a bundle).

The installers write `INSTALL_MARKER` into the venv (`<checkout>/.venv`) after a successful
install, with the checkout's folder (`root=`), so `update` can name the upgrade command and
`uninstall` may remove the venv: only a venv that carries the marker and sits at `<root>/.venv`
counts as one the installer made. Paths are passed in by the entry point (`sys.prefix`...).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

INSTALL_MARKER = ".casetrack-install"


def read_marker(prefix: Path) -> dict[str, str]:
    """The marker's `key=value` lines; {} when there is none (or it cannot be read)."""
    try:
        text = (prefix / INSTALL_MARKER).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    pairs = (line.partition("=") for line in text.splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, _, value in pairs}


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


@dataclass(frozen=True)
class Installation:
    prefix: Path  # sys.prefix: the venv (or the Python) CaseTrack runs from
    python: Path  # sys.executable
    in_venv: bool
    windows: bool = os.name == "nt"
    marker: dict[str, str] = field(default_factory=dict)

    @property
    def source(self) -> Path | None:
        """The checkout the installer ran from, when this is an installer's venv."""
        root = self.marker.get("root")
        return Path(root) if root else None

    @property
    def by_installer(self) -> bool:
        """A venv install.sh / install.ps1 made (and finished): `<root>/.venv` with the marker."""
        source = self.source
        return (
            self.in_venv
            and source is not None
            and (self.prefix / "pyvenv.cfg").is_file()
            and _same(self.prefix, source / ".venv")
        )

    def installer_command(self) -> str:
        source = self.source or Path(".")
        if self.windows:
            return f'powershell -ExecutionPolicy Bypass -File "{source / "installer" / "install.ps1"}"'
        return f'bash "{source / "installer" / "install.sh"}"'

    def upgrade_commands(self) -> tuple[str, ...]:
        """The commands that upgrade this installation (never run by CaseTrack itself)."""
        if not self.by_installer:
            return (f'"{self.python}" -m pip install --upgrade casetrack',)
        source = self.source
        assert source is not None
        if (source / ".git").exists():
            return (f'git -C "{source}" pull', self.installer_command())
        return (f"Put the new release's files in {source}, then run: {self.installer_command()}",)

    def pip_uninstall_command(self) -> str:
        return f'"{self.python}" -m pip uninstall casetrack'


def current_installation(
    prefix: str | None = None,
    base_prefix: str | None = None,
    executable: str | None = None,
    windows: bool | None = None,
) -> Installation:
    """The running installation (arguments: for tests; by default the running interpreter's)."""
    here = Path(prefix or sys.prefix)
    in_venv = (prefix or sys.prefix) != (base_prefix or sys.base_prefix)
    return Installation(
        here,
        Path(executable or sys.executable),
        in_venv,
        os.name == "nt" if windows is None else windows,
        read_marker(here),
    )
