"""`casetrack doctor`: is everything a search needs in place, and the command that fixes what is not.

Each check is one `Check` (name, ok / warn / fail, what was found, the fix). `fail` means a search
cannot work as it should (no E1 model, a damaged model, a data folder that cannot be written,
Python too old); `warn` means something is missing that costs a feature (OCR, a search stage,
Claude not connected) or will soon (little free disk). The entry layer finds what only it can
see (the daemon's answer, the Claude config files) and hands it in as plain records.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from casetrack import __version__
from casetrack.config import Settings
from casetrack.errors import CaseTrackError

Status = Literal["ok", "warn", "fail"]
MIN_PYTHON = (3, 11)
SUPPORTED = {
    ("linux", "x86_64"),
    ("linux", "aarch64"),
    ("darwin", "arm64"),
    ("darwin", "x86_64"),
    ("win32", "amd64"),
}
MIB = 1 << 20
DISK_FAIL = 200 * MIB  # below this even the registry and the journal cannot be written safely
DISK_WARN = 2048 * MIB  # the production models take ~1 GB; a large case a few GB
DOWNLOAD_FIX = "casetrack models download   (offline: casetrack models import DIR)"
INSTALL_FIX = (
    "bash installer/install.sh   (Windows: powershell -ExecutionPolicy Bypass -File installer\\install.ps1)"
)


@dataclass(frozen=True)
class Check:
    """One line of the report: `fix` is the command (or step) that fixes a warn or a fail."""

    name: str
    status: Status
    detail: str
    fix: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


@dataclass(frozen=True)
class DoctorReport:
    version: str
    data_dir: str
    models_dir: str
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        """Everything a search needs is in place (warnings allowed)."""
        return all(c.status != "fail" for c in self.checks)

    def count(self, status: Status) -> int:
        return sum(1 for c in self.checks if c.status == status)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "version": self.version,
            "data_dir": self.data_dir,
            "models_dir": self.models_dir,
            "checks": [c.to_json() for c in self.checks],
        }


@dataclass(frozen=True)
class Registered:
    """One registration of CaseTrack that a Claude config file holds."""

    where: str  # "user scope (~/.claude.json)"
    command: tuple[str, ...]  # command and arguments


@dataclass(frozen=True)
class ClientState:
    """What the entry layer read of one Claude client's configuration (read-only)."""

    name: str  # the check's name: "claude_code" | "claude_desktop"
    label: str  # "Claude Code"
    setup: str  # the command that registers CaseTrack: "casetrack setup-claude-code"
    found: tuple[Registered, ...] = ()
    unreadable: tuple[str, ...] = ()  # "<file>: why"
    installed: bool = True  # False: the client's config folder does not exist
    expected: tuple[str, ...] = ()  # what this installation would register


# -- the checks -----------------------------------------------------------------------------------


def python_check(version: Sequence[int] | None = None, executable: str = sys.executable) -> Check:
    version = sys.version_info[:3] if version is None else version
    shown = ".".join(str(v) for v in version[:3])
    if tuple(version[:2]) >= MIN_PYTHON:
        return Check("python", "ok", f"Python {shown} ({executable})")
    return Check(
        "python",
        "fail",
        f"Python {shown} ({executable}) is too old: CaseTrack needs 3.11 or newer.",
        f"Install Python 3.11+, then reinstall: {INSTALL_FIX}",
    )


def _system_name(system: str) -> str:
    if system == "darwin":
        return f"macOS {platform.mac_ver()[0]}".strip()
    if system == "win32":
        return f"Windows {platform.release()}"
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME") or f"Linux {platform.release()}"
    except OSError:
        return f"{platform.system()} {platform.release()}"


def platform_check(system: str = sys.platform, machine: str | None = None) -> Check:
    machine = machine or platform.machine()
    key = (system, machine.lower())
    shown = f"{_system_name(system) if system == sys.platform else system} ({machine})"
    if key in SUPPORTED or (system == "win32" and machine.lower() == "x86_64"):
        return Check("platform", "ok", shown)
    return Check(
        "platform",
        "warn",
        f"{shown}: not a platform CaseTrack is tested on (Linux x86_64/arm64, "
        "macOS arm64/x86_64, Windows x86_64); some libraries may have no build for it.",
        "Use a supported platform if installing or searching fails",
    )


def _existing_parent(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(path.anchor or ".")


def data_dir_check(data_dir: Path, posix: bool = os.name == "posix") -> Check:
    """Writable (a file is really created and removed), and private (0700) where modes mean something."""
    choose = "or choose another: casetrack --data-dir DIR ... (or set CASETRACK_HOME)"
    if data_dir.exists() and not data_dir.is_dir():
        return Check("data_dir", "fail", f"{data_dir} is a file, not a folder.", f"Move it aside, {choose}")
    if not data_dir.exists():
        return _creatable(data_dir, choose)
    unwritable = _unwritable(data_dir, choose, posix)
    if unwritable is not None:
        return unwritable
    if not posix:
        return Check("data_dir", "ok", f"{data_dir}: writable")
    return _privacy(data_dir)


def _creatable(data_dir: Path, choose: str) -> Check:
    """A data folder that does not exist yet: can it be made?"""
    parent = _existing_parent(data_dir)
    if parent.is_dir() and os.access(parent, os.W_OK | os.X_OK):
        return Check(
            "data_dir", "ok", f"{data_dir} does not exist yet; it is created (private) on first use."
        )
    return Check(
        "data_dir",
        "fail",
        f"{data_dir} cannot be created: {parent} is not a writable folder.",
        f"Make {parent} writable, {choose}",
    )


def _unwritable(data_dir: Path, choose: str, posix: bool) -> Check | None:
    """A failing check when a file cannot really be created in the folder; None when it can."""
    try:
        fd, name = tempfile.mkstemp(prefix=".doctor-", dir=data_dir)
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        return Check(
            "data_dir",
            "fail",
            f"{data_dir} is not writable: {e.strerror or e}.",
            f'chmod u+rwx "{data_dir}"   ({choose})' if posix else f"Make it writable, {choose}",
        )
    return None


def _privacy(data_dir: Path) -> Check:
    mode = data_dir.stat().st_mode & 0o777
    if mode & 0o077:
        return Check(
            "data_dir",
            "warn",
            f"{data_dir} is writable but readable by other accounts on this "
            f"computer (mode {mode:04o}); case files should be private (0700).",
            f'chmod -R go-rwx "{data_dir}"',
        )
    return Check("data_dir", "ok", f"{data_dir}: writable, private ({mode:04o})")


def models_checks(models_dir: Path, tier: Any) -> list[Check]:
    """`models`: a model for each slot (E1 is required); `model_files`: each installed model's files
    match the sha256 recorded at install and its ONNX graph and tokenizer load."""
    from casetrack.embed.install import list_models, verify

    rows = list_models(models_dir, tier)
    present = [r for r in rows if r.present]
    missing = [r for r in rows if not r.present]
    names = ", ".join(f"{r.slot} {r.name}" for r in present)
    if not any(r.slot == "E1" for r in present):
        where = (
            f"{models_dir} does not exist"
            if not models_dir.is_dir()
            else f"no E1 (dense) model in {models_dir}"
        )
        presence = Check(
            "models",
            "fail",
            f"{where}: ingest cannot run and search is keyword-only."
            + (f" Installed: {names}." if names else ""),
            DOWNLOAD_FIX,
        )
    elif missing:
        slots = ", ".join(f"{r.slot} ({r.purpose})" for r in missing)
        presence = Check(
            "models",
            "warn",
            f"{names} in {models_dir}; missing {slots}: search skips those stages.",
            DOWNLOAD_FIX,
        )
    else:
        presence = Check("models", "ok", f"{names} in {models_dir}")
    results = verify(models_dir)
    bad = [r for r in results if not r.ok]
    e1_folders = {r.folder for r in present if r.slot == "E1"}
    if not results:
        files = Check(
            "model_files", "warn", f"nothing to verify: no model is installed in {models_dir}", DOWNLOAD_FIX
        )
    elif bad:
        problems = "; ".join(f"{r.name}: {', '.join(r.problems)}" for r in bad)
        status: Status = (
            "fail" if any(r.folder in e1_folders for r in bad) or len(bad) == len(results) else "warn"
        )
        files = Check(
            "model_files",
            status,
            f"{len(bad)} of {len(results)} models failed verification: {problems}",
            f"Install them again: {DOWNLOAD_FIX}; details: casetrack models verify",
        )
    else:
        files = Check(
            "model_files",
            "ok",
            f"{len(results)} models verified (sha256 as recorded, ONNX and tokenizer load)",
        )
    return [presence, files]


def ocr_check(info: Any, system: str) -> Check:
    """Tesseract (4.0+) with English and Portuguese; without it scans stay `needs_ocr`."""
    from casetrack.ocr.engine import install_fix

    if not info.available:
        return Check(
            "ocr", "warn", f"{info.problem} Everything else works; scans are listed as needing OCR.", info.fix
        )
    missing = [lang for lang in ("eng", "por") if lang not in info.languages]
    shown = f"Tesseract {info.version} with {', '.join(info.languages) or 'no languages'}"
    if missing:
        fix = install_fix(missing, system, tessdata=info.tessdata)  # type: ignore[arg-type]
        names = " and ".join({"eng": "English", "por": "Portuguese"}[m] for m in missing)
        return Check(
            "ocr", "warn", f"{shown}: no {names} data, so scans in {names} cannot be read.", fix.for_cli()
        )
    if info.problem:
        return Check("ocr", "warn", f"{shown}: {info.problem}", info.fix)
    return Check("ocr", "ok", shown)


def daemon_check(answer: Mapping[str, Any] | None, version: str = __version__) -> Check:
    if answer is None:
        return Check(
            "daemon",
            "ok",
            "not running; Claude starts it when it connects (casetrack daemon start starts it now)",
        )
    pid, running = answer.get("pid"), answer.get("version")
    if running != version:
        return Check(
            "daemon",
            "warn",
            f"running (pid {pid}) at version {running}, but this is {version}: "
            "Claude restarts it on its next connection.",
            "casetrack daemon stop",
        )
    return Check("daemon", "ok", f"running (pid {pid}, version {running})")


def _runs(command: Sequence[str]) -> bool:
    if not command:
        return False
    path = Path(command[0])
    if not path.is_absolute():
        return shutil.which(command[0]) is not None
    return path.is_file() and os.access(path, os.X_OK)


def client_check(state: ClientState) -> Check:
    """Registered, with a command that exists; a warning (never a failure: search works without it)."""
    if state.unreadable:
        return Check(
            state.name,
            "warn",
            f"cannot read {'; '.join(state.unreadable)}",
            f"Fix or move that file aside, then: {state.setup}",
        )
    if not state.found:
        if not state.installed:
            return Check(
                state.name,
                "warn",
                f"{state.label} is not set up on this computer (no config folder).",
                f"Install {state.label}, then: {state.setup}",
            )
        return Check(state.name, "warn", f"CaseTrack is not registered with {state.label}.", state.setup)
    broken = [r for r in state.found if not _runs(r.command)]
    if broken:
        where = "; ".join(f"{r.where} runs {r.command[0] if r.command else '(nothing)'}" for r in broken)
        return Check(
            state.name,
            "warn",
            f"registered, but its command is missing (moved or uninstalled): {where}",
            state.setup,
        )
    shown = "; ".join(f"{r.where}: {' '.join(r.command)}" for r in state.found)
    other = [r for r in state.found if state.expected and r.command != state.expected]
    if other:
        return Check(
            state.name,
            "warn",
            f"registered with another installation or data folder ({shown}); "
            f"this one would register: {' '.join(state.expected)}",
            state.setup,
        )
    return Check(state.name, "ok", f"registered ({shown})")


def disk_check(data_dir: Path, free: int | None = None) -> Check:
    """Free space on the data folder's disk (`free`: bytes, measured when not given)."""
    if free is None:
        free = shutil.disk_usage(_existing_parent(data_dir)).free
    shown = f"{free / (1 << 30):.1f} GiB free on the disk of {data_dir}"
    fix = "Free disk space, or move the data folder to a larger disk (casetrack --data-dir DIR / CASETRACK_HOME)"
    if free < DISK_FAIL:
        return Check("disk", "fail", f"{shown}: too little to write cases safely.", fix)
    if free < DISK_WARN:
        return Check("disk", "warn", f"{shown}: models take about 1 GB and a large case a few GB.", fix)
    return Check("disk", "ok", shown)


def memory_check(memory_mode: str | None, total: int, available: int) -> Check:
    from casetrack.embed.tiers import Tier, choose_tier

    tier, why = (
        (Tier(memory_mode), "set by --memory-mode / CASETRACK_MEMORY_MODE")
        if memory_mode
        else choose_tier(total, available)
    )
    shown = (
        f"memory mode {tier.value} ({why})"
        if not memory_mode
        else f"memory mode {tier.value} ({why}; {total / (1 << 30):.1f} GiB RAM, {available / (1 << 30):.1f} GiB free)"
    )
    if tier == Tier.CONSTRAINED:
        return Check(
            "memory",
            "warn",
            f"{shown}: search skips the E6, E7 and E12 stages.",
            "Close other programs and run casetrack doctor again (8 GiB RAM with 2 GiB free gives "
            "standard mode)"
            if not memory_mode
            else "CASETRACK_MEMORY_MODE=standard (if RAM allows)",
        )
    return Check("memory", "ok", shown)


# -- the report -----------------------------------------------------------------------------------


def _guarded(name: str, run: Callable[[], Check | list[Check]], on_error: Status = "warn") -> list[Check]:
    """A check that itself fails says so instead of stopping the report."""
    try:
        result = run()
    except CaseTrackError as e:
        return [Check(name, on_error, f"could not check: {e.message}", e.hint)]
    except Exception as e:  # noqa: BLE001 - the report must go on; the error is the detail
        return [Check(name, on_error, f"could not check: {type(e).__name__}: {e}", "casetrack -vv doctor")]
    return result if isinstance(result, list) else [result]


def run_checks(
    settings: Settings,
    daemon: Mapping[str, Any] | None,
    clients: Sequence[ClientState],
    memory: tuple[int, int] | None = None,
) -> DoctorReport:
    """Every check, in the order a user fixes them. `daemon`: the daemon's ping answer (None: none
    runs); `clients`: the Claude config files as the entry layer read them; `memory`: (total,
    available) bytes of RAM (default: measured now)."""
    import psutil

    from casetrack.embed.tiers import Tier, choose_tier
    from casetrack.ocr.engine import detect_system, engine_info

    if memory is None:
        mem = psutil.virtual_memory()
        memory = (int(mem.total), int(mem.available))
    total, available = memory
    mode = (
        settings.memory_mode if settings.memory_mode in {t.value for t in Tier} else None
    )  # "auto": measured
    tier = Tier(mode) if mode else choose_tier(total, available)[0]
    checks: list[Check] = []
    checks += _guarded("python", python_check, "fail")
    checks += _guarded("platform", platform_check)
    checks += _guarded("data_dir", lambda: data_dir_check(settings.data_dir), "fail")
    checks += _guarded("models", lambda: models_checks(settings.models_dir, tier), "fail")
    checks += _guarded("ocr", lambda: ocr_check(engine_info(refresh=True), detect_system()))
    checks += _guarded("daemon", lambda: daemon_check(daemon))
    for state in clients:
        checks += _guarded(state.name, lambda state=state: client_check(state))  # type: ignore[misc]
    checks += _guarded("disk", lambda: disk_check(settings.data_dir))
    checks += _guarded("memory", lambda: memory_check(mode, total, available))
    return DoctorReport(__version__, str(settings.data_dir), str(settings.models_dir), tuple(checks))
