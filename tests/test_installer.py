"""installer/install.sh (and the installer/common.sh that ci/test.sh sources) run against a fake PATH.

The scripts are copied into a temporary checkout. PATH holds only the few system tools they use
(symlinks) and stand-ins for what a machine may or may not have: `python3`, `python3.11` (small
scripts that report a version, make a fake venv and record every pip call), `tesseract`,
`apt-get`, `id`, `uname`. So each failure path (Python 3.9, a venv whose interpreter was deleted,
an install that stopped half-way...) runs the real script in well under a second, without
installing anything. The slow test runs the same script with the real Python, offline.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(os.name == "nt", reason="install.sh is the Linux and macOS installer")

TOOLS = ("bash", "dirname", "sed", "head", "tr", "grep", "rm", "mv", "ls", "date", "cat", "cp", "chmod")

FAKE_PYTHON = '''#!{python} -S
"""A stand-in Python {version}: `--version`, `-m venv`, `-m pip`, `-c` (import check); records calls."""
import json, os, shutil, sys
from pathlib import Path

VERSION = "{version}"
HERE = Path(sys.argv[0])
args = sys.argv[1:]


def log(**what):
    with open(os.environ["FAKE_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({{"python": str(HERE), "version": VERSION, **what}}) + "\\n")


if args == ["--version"]:
    print("Python " + VERSION)
elif args[:2] == ["-m", "venv"]:
    log(venv=args[2:])
    if os.environ.get("FAKE_NO_VENV"):
        print("Error: ensurepip is not available", file=sys.stderr)
        sys.exit(1)
    target = Path(args[-1])
    (target / "bin").mkdir(parents=True, exist_ok=True)
    (target / "pyvenv.cfg").write_text("version = " + VERSION + "\\n", encoding="utf-8")
    shutil.copy(HERE, target / "bin" / "python")
elif args[:2] == ["-m", "pip"]:
    log(pip=args[2:])
    if "-e" in args:
        if os.environ.get("FAKE_PIP_FAIL"):
            print("ERROR: Could not find a version that satisfies the requirement lancedb", file=sys.stderr)
            sys.exit(1)
        script = HERE.parent / "casetrack"
        script.write_text(os.environ["FAKE_CASETRACK"], encoding="utf-8")
        script.chmod(0o755)
    if args[2:3] == ["--version"]:
        print("pip 24.0")
elif args[:1] == ["-c"]:
    log(check=args[1])
    sys.exit(1 if os.environ.get("FAKE_IMPORT_FAIL") else 0)
else:
    sys.exit(2)
'''

FAKE_CASETRACK = """#!{python} -S
import json, os, sys
with open(os.environ["FAKE_LOG"], "a", encoding="utf-8") as f:
    f.write(json.dumps({{"casetrack": sys.argv[1:]}}) + "\\n")
if sys.argv[1:] == ["demo"]:
    print("demo: 3 cited results")
    sys.exit(int(os.environ.get("FAKE_DEMO_EXIT", "0")))
"""

FAKE_APT = """#!/bin/sh
echo "apt-get $*" >> "$FAKE_APT_LOG"
case "$*" in *install*) cp "$FAKE_TESSERACT_SOURCE" "$FAKE_BIN/tesseract"; chmod +x "$FAKE_BIN/tesseract" ;; esac
"""
FAKE_TESSERACT = """#!/bin/sh
case "$1" in
  --version) echo "tesseract 5.3.0" ;;
  --list-langs) printf 'List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (3):\\n%s\\n' {langs} ;;
esac
"""


@dataclass
class Sandbox:
    root: Path  # the checkout: installer/ copied in
    bin: Path  # PATH's stand-ins (first)
    tools: Path  # PATH's real tools (symlinks)
    log: Path
    python: str = sys.executable

    def fake_python(self, name: str, version: str, folder: Path | None = None) -> Path:
        path = (folder or self.bin) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FAKE_PYTHON.format(python=self.python, version=version), encoding="utf-8")
        path.chmod(0o755)
        return path

    def script(self, name: str, text: str) -> Path:
        path = self.bin / name
        path.write_text(text, encoding="utf-8")
        path.chmod(0o755)
        return path

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": f"{self.bin}{os.pathsep}{self.tools}",
            "HOME": str(self.root.parent / "home"),
            "FAKE_LOG": str(self.log),
            "FAKE_CASETRACK": FAKE_CASETRACK.format(python=self.python),
            "LANG": "C.UTF-8",
        }
        env.update(extra)
        return env

    def run(self, *command: str, **extra: str) -> subprocess.CompletedProcess[str]:
        argv = (
            [shutil.which("bash") or "/bin/bash", *command]
            if command
            else [shutil.which("bash") or "/bin/bash", "installer/install.sh"]
        )
        return subprocess.run(
            argv,
            cwd=self.root,
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def calls(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def pip_installs(self) -> list[list[str]]:
        return [c["pip"] for c in self.calls() if "pip" in c and "-e" in c["pip"]]

    def venvs_made(self) -> list[dict[str, Any]]:
        return [c for c in self.calls() if "venv" in c]

    @property
    def marker(self) -> Path:
        return self.root / ".venv" / ".casetrack-install"


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    root = tmp_path / "casetrack"
    (root / "installer").mkdir(parents=True)
    for name in ("install.sh", "common.sh", "ocr.sh"):
        shutil.copy(REPO / "installer" / name, root / "installer" / name)
    (root / "pyproject.toml").write_text("[project]\nname = 'casetrack'\n", encoding="utf-8")
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, f"{tool} is needed by the installer tests"
        (tools / tool).symlink_to(found)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    box = Sandbox(root, bin_dir, tools, tmp_path / "calls.jsonl")
    # A machine whose tesseract is ready and who is not root: install.sh touches no package manager.
    box.script("tesseract", FAKE_TESSERACT.format(langs="eng por osd"))
    box.script("id", "#!/bin/sh\necho 1000\n")
    box.script("uname", "#!/bin/sh\necho Linux\n")
    return box


def last_line(text: str) -> str:
    return [line for line in text.splitlines() if line.strip()][-1]


# -- Python ---------------------------------------------------------------------------------------


def test_python_too_old_stops_first_and_says_how_to_get_311(box: Sandbox) -> None:
    box.fake_python("python3", "3.9.18")
    done = box.run()
    assert done.returncode == 1
    assert "CaseTrack needs Python 3.11 or newer; found only: python3=3.9.18" in done.stderr
    assert "uv python install 3.11" in done.stderr and "PYTHON=" in done.stderr
    assert not (box.root / ".venv").exists() and box.calls() == []  # nothing ran before the check


@pytest.mark.parametrize(
    ("system", "os_release", "hint"),
    [
        ("Darwin", "", "brew install python@3.11"),
        (
            "Linux",
            'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\n',
            "sudo add-apt-repository ppa:deadsnakes/ppa",
        ),
        ("Linux", 'ID="debian"\nVERSION_ID="12"\n', "sudo apt-get install python3.11 python3.11-venv"),
        ("Linux", "ID=fedora\n", "sudo dnf install python3.11"),
    ],
)
def test_the_python_hint_fits_the_system(box: Sandbox, system: str, os_release: str, hint: str) -> None:
    box.script("uname", f"#!/bin/sh\necho {system}\n")
    release = box.root.parent / "os-release"
    release.write_text(os_release, encoding="utf-8")
    done = box.run(CT_OS_RELEASE=str(release))
    assert done.returncode == 1 and "no python3 was found on PATH" in done.stderr
    assert hint in done.stderr and "uv python install 3.11" in done.stderr


def test_an_explicit_python_that_is_too_old_is_refused(box: Sandbox) -> None:
    old = box.fake_python("python3.10", "3.10.12", box.root.parent / "elsewhere")
    box.fake_python("python3.11", "3.11.9")
    done = box.run(PYTHON=str(old))
    assert done.returncode == 1
    assert f"PYTHON={old} is Python 3.10.12" in done.stderr and box.calls() == []


def test_fresh_install_picks_python311_installs_runs_the_demo_and_ends_with_the_claude_command(
    box: Sandbox,
) -> None:
    box.fake_python("python3", "3.9.18")
    box.fake_python("python3.11", "3.11.9")
    done = box.run()
    assert done.returncode == 0, done.stderr
    [made] = box.venvs_made()
    assert made["version"] == "3.11.9" and made["venv"] == [".venv"]
    assert box.pip_installs() == [["install", "--quiet", "--disable-pip-version-check", "-e", "."]]
    assert {"casetrack": ["demo"]} in box.calls()
    marker = box.marker.read_text(encoding="utf-8")
    assert f"root={box.root.resolve()}" in marker and "python=3.11.9" in marker
    ct = box.root.resolve() / ".venv" / "bin" / "casetrack"
    assert last_line(done.stdout) == (
        f"Connect it to Claude: {ct} setup-claude-code   (Claude Desktop: {ct} setup-claude-desktop)"
    )
    assert f"{ct} doctor" in done.stdout and "OCR: tesseract 5.3.0 with eng, por and osd" in done.stdout


def test_running_it_again_reuses_the_venv(box: Sandbox) -> None:
    box.fake_python("python3.12", "3.12.3")
    assert box.run().returncode == 0
    again = box.run()
    assert again.returncode == 0, again.stderr
    assert len(box.venvs_made()) == 1 and len(box.pip_installs()) == 2
    assert "Repairing" not in again.stdout and "Recreating" not in again.stdout
    failed = box.run(FAKE_PIP_FAIL="1")  # an update that fails half-way: the next run must finish it
    assert failed.returncode == 1 and not box.marker.exists()


# -- a broken .venv -------------------------------------------------------------------------------


def _venv(box: Sandbox, version: str) -> Path:
    venv = box.root / ".venv"
    box.fake_python("python", version, venv / "bin")
    (venv / "pyvenv.cfg").write_text(f"version = {version}\n", encoding="utf-8")
    (venv / "bin" / "leftover").write_text("from the old venv", encoding="utf-8")
    return venv


def test_a_venv_whose_interpreter_was_deleted_is_recreated(box: Sandbox) -> None:
    venv = _venv(box, "3.11.4")
    (venv / "bin" / "python").unlink()
    (venv / "bin" / "python").symlink_to("/nonexistent/Cellar/python@3.11/3.11.4/bin/python3.11")
    box.fake_python("python3.11", "3.11.9")
    done = box.run()
    assert done.returncode == 0, done.stderr
    assert "Recreating .venv: its Python is missing" in done.stdout
    assert not (venv / "bin" / "leftover").exists() and box.marker.is_file()
    assert [v["version"] for v in box.venvs_made()] == ["3.11.9"]


def test_a_venv_of_an_older_python_is_recreated(box: Sandbox) -> None:
    venv = _venv(box, "3.10.12")
    box.fake_python("python3.11", "3.11.9")
    done = box.run()
    assert done.returncode == 0, done.stderr
    assert "Recreating .venv: it has Python 3.10.12, older than 3.11" in done.stdout
    assert not (venv / "bin" / "leftover").exists()


def test_an_unfinished_install_is_finished_in_the_same_venv(box: Sandbox) -> None:
    venv = _venv(box, "3.11.9")  # no marker: the last install stopped half-way
    box.fake_python("python3.11", "3.11.9")
    done = box.run()
    assert done.returncode == 0, done.stderr
    assert "Repairing .venv: its last install did not finish" in done.stdout
    assert (venv / "bin" / "leftover").exists() and box.venvs_made() == []  # repaired, not rebuilt
    assert box.marker.is_file() and len(box.pip_installs()) == 1


def test_a_failed_install_leaves_no_marker_then_the_venv_is_rebuilt_then_finished(box: Sandbox) -> None:
    box.fake_python("python3.11", "3.11.9")
    first = box.run(FAKE_PIP_FAIL="1")
    assert first.returncode == 1
    assert "pip could not install CaseTrack" in first.stderr and "run this" in first.stderr
    assert (box.root / ".venv").is_dir() and not box.marker.exists()
    assert {"casetrack": ["demo"]} not in box.calls()
    second = box.run(FAKE_PIP_FAIL="1")  # unfinished twice: start again from nothing, once
    assert second.returncode == 1
    assert (
        "Repairing .venv" in second.stdout
        and "Recreating .venv: installing into it failed again" in second.stdout
    )
    assert len(box.venvs_made()) == 2 and not box.marker.exists()
    third = box.run()
    assert third.returncode == 0, third.stderr
    assert box.marker.is_file() and len(box.venvs_made()) == 2


def test_a_half_written_package_counts_as_a_failed_install(box: Sandbox) -> None:
    box.fake_python("python3.11", "3.11.9")
    done = box.run(FAKE_IMPORT_FAIL="1")
    assert done.returncode == 1 and not box.marker.exists()
    assert any(c.get("check") == "import casetrack.cli.main" for c in box.calls())


def test_a_dot_venv_that_is_not_a_venv_is_left_alone(box: Sandbox) -> None:
    (box.root / ".venv").mkdir()
    (box.root / ".venv" / "notes.txt").write_text("mine", encoding="utf-8")
    box.fake_python("python3.11", "3.11.9")
    done = box.run()
    assert done.returncode == 1 and "is not a Python virtual environment" in done.stderr
    assert (box.root / ".venv" / "notes.txt").read_text(encoding="utf-8") == "mine" and box.venvs_made() == []


def test_a_python_without_venv_says_which_package_adds_it(box: Sandbox) -> None:
    box.fake_python("python3", "3.11.2")
    done = box.run(FAKE_NO_VENV="1")
    assert done.returncode == 1 and "sudo apt-get install python3.11-venv" in done.stderr
    assert not (box.root / ".venv").exists()


# -- what ci/test.sh and .ci/run rely on ------------------------------------------------------------


def test_ci_sources_common_sh_with_test_extras_and_the_offline_pack(box: Sandbox) -> None:
    pack = box.root.parent / "shared" / "models"
    pack.mkdir(parents=True)
    box.fake_python("python3", "3.11.7")
    done = box.run(
        "-c", 'set -euo pipefail; source installer/common.sh "[test]"; echo "models=$CASETRACK_MODELS_DIR"'
    )
    assert done.returncode == 0, done.stderr
    assert box.pip_installs() == [["install", "--quiet", "--disable-pip-version-check", "-e", ".[test]"]]
    assert last_line(done.stdout) == f"models={pack.resolve()}"
    assert "extras=[test]" in box.marker.read_text(encoding="utf-8")


# -- models, OCR, the demo ------------------------------------------------------------------------


def test_models_come_from_the_offline_pack_else_are_downloaded(box: Sandbox) -> None:
    box.fake_python("python3.11", "3.11.9")
    assert box.run().returncode == 0
    target = str(box.root.resolve() / "models")
    assert {"casetrack": ["--models-dir", target, "models", "download"]} in box.calls()
    pack = box.root.parent / "shared" / "models"
    pack.mkdir(parents=True)
    assert box.run().returncode == 0
    assert {"casetrack": ["--models-dir", target, "models", "import", str(pack.resolve())]} in box.calls()


def test_missing_tesseract_is_installed_with_apt_as_root(box: Sandbox) -> None:
    box.fake_python("python3.11", "3.11.9")
    (box.bin / "tesseract").rename(box.root.parent / "tesseract-to-install")
    box.script("apt-get", FAKE_APT)
    box.script("id", "#!/bin/sh\necho 0\n")
    apt_log = box.root.parent / "apt.log"
    done = box.run(
        FAKE_APT_LOG=str(apt_log),
        FAKE_BIN=str(box.bin),
        FAKE_TESSERACT_SOURCE=str(box.root.parent / "tesseract-to-install"),
    )
    assert done.returncode == 0, done.stderr
    assert "tesseract-ocr-por" in apt_log.read_text(encoding="utf-8")
    assert "OCR: tesseract 5.3.0 with eng, por and osd" in done.stdout


def test_without_a_way_to_install_tesseract_the_exact_command_is_printed(box: Sandbox) -> None:
    box.fake_python("python3.11", "3.11.9")
    box.script("tesseract", FAKE_TESSERACT.format(langs="eng osd"))  # no Portuguese
    box.script("apt-get", '#!/bin/sh\necho "apt-get $*" >> "$FAKE_LOG.apt"\n')  # not root, no sudo
    done = box.run()
    assert done.returncode == 0, done.stderr
    assert (
        "sudo apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-por tesseract-ocr-osd"
        in done.stderr
    )
    assert not Path(f"{box.log}.apt").exists()  # nothing was run as another user


def test_a_failing_demo_points_to_doctor(box: Sandbox) -> None:
    box.fake_python("python3.11", "3.11.9")
    done = box.run(FAKE_DEMO_EXIT="1")
    assert done.returncode == 1
    assert f"{box.root.resolve() / '.venv' / 'bin' / 'casetrack'} doctor" in done.stderr
    assert "setup-claude-code" not in done.stdout


# -- slow: the real Python, offline -----------------------------------------------------------------

# A one-module stand-in for CaseTrack with its own PEP 517/660 build backend (no setuptools or
# wheel to fetch): its editable wheel is a .pth file and the `casetrack` console script.
TINY_BACKEND = """
import base64, hashlib, os, zipfile

NAME, VERSION = "casetrack", "0.0.1"
INFO = f"{NAME}-{VERSION}.dist-info"


def _wheel(directory, files):
    path = os.path.join(directory, f"{NAME}-{VERSION}-py3-none-any.whl")
    files = {**files, f"{INFO}/METADATA": f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n",
             f"{INFO}/WHEEL": "Wheel-Version: 1.0\\nGenerator: tiny\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
             f"{INFO}/entry_points.txt": "[console_scripts]\\ncasetrack = casetrack.cli.main:main\\n"}
    record = []
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            data = text.encode()
            zf.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        zf.writestr(f"{INFO}/RECORD", "\\n".join(record + [f"{INFO}/RECORD,,"]) + "\\n")
    return os.path.basename(path)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {"casetrack_tiny.pth": os.path.abspath(".") + "\\n"})


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {})
"""
TINY_PROJECT = {
    "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "tiny_backend"\nbackend-path = ["."]\n'
    '[project]\nname = "casetrack"\nversion = "0.0.1"\n',
    "tiny_backend.py": TINY_BACKEND,
    "casetrack/__init__.py": "",
    "casetrack/cli/__init__.py": "",
    "casetrack/cli/main.py": "import sys\n\ndef main():\n    print('casetrack', *sys.argv[1:])\n",
}


@pytest.mark.slow
def test_real_python_builds_the_venv_offline_and_repairs_a_deleted_interpreter(box: Sandbox) -> None:
    """A real `python -m venv` and pip install (of a one-module stand-in project, from the wheels
    that ship with Python: no network), then the venv's interpreter link is broken, as a
    Homebrew upgrade does, and the next run rebuilds it."""
    import ensurepip

    for name, text in TINY_PROJECT.items():
        (box.root / name).parent.mkdir(parents=True, exist_ok=True)
        (box.root / name).write_text(text, encoding="utf-8")
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    (box.bin / base.name).symlink_to(base)
    wheels = Path(ensurepip.__file__).parent / "_bundled"
    env = {
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_CACHE_DIR": str(box.root.parent / "pip-cache"),
    }
    done = box.run(**env)
    assert done.returncode == 0, done.stdout + done.stderr
    venv_python = box.root / ".venv" / "bin" / "python"
    assert "casetrack demo" in done.stdout and box.marker.is_file()
    assert "setup-claude-code" in last_line(done.stdout)
    venv_python.unlink()
    venv_python.symlink_to(box.root.parent / "removed-by-an-upgrade" / "python3.11")
    again = box.run(**env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Recreating .venv: its Python is missing" in again.stdout
    check = subprocess.run(
        [str(venv_python), "-c", "import casetrack.cli.main"],
        cwd=box.root.parent,
        capture_output=True,
        timeout=60,
    )
    assert check.returncode == 0 and box.marker.is_file()
