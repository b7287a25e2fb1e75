"""Build CaseTrack's Claude Desktop bundle (MCPB): `python installer/build_bundle.py --out DIR`.

Writes DIR/casetrack-<version>-any.mcpb, a `uv` bundle (installer/README.md says why): the host
installs Python and the dependencies with uv on the user's machine, from the bundle's pyproject.toml
and the uv.lock this script resolves, so the one file serves macOS (Apple Silicon), Windows and
Linux. Steps, each a check that stops the build with what failed:

1. stage only what the server needs: the package, the model catalog, pyproject.toml (without the
   test extra, with the lock's cut-off date), README.md (the project's readme), the manifest, the
   entry point and .python-version;
2. `uv lock` with `exclude-newer` pinned below, so the same source gives the same versions, and
   check that every locked package has a wheel for each target platform (no compiler on a user's
   machine);
3. `mcpb validate` and `mcpb pack` with the official CLI (ci/mcpb.sh);
4. check the archive: nothing outside the staged list, within the size budget.

uv comes from PATH, `--uv`, or is installed once from the package registry into .ci-cache/uv.
Needs the package registry (the lock and the wheel check) and Node (ci/node.sh) for mcpb.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
UV_VERSION = "0.13.8"  # installed when no uv is on PATH; the lock's format follows it
PYTHON_VERSION = "3.11"  # .python-version: the interpreter the host's uv provides (the one CI tests)
# The lock takes no release uploaded after this instant: rebuilding the same source gives the same
# versions. Move it forward deliberately (and run the slow tests) to take newer dependencies.
EXCLUDE_NEWER = "2026-11-25T00:00:00Z"
# Where every locked package must have a wheel (uv's --python-platform, extra environment). Intel
# Macs are not a target: lancedb 0.40 publishes no macOS x86_64 wheel (installer/README.md).
TARGETS: dict[str, tuple[str, dict[str, str]]] = {
    "macOS 14+ Apple Silicon": ("aarch64-apple-darwin", {"MACOSX_DEPLOYMENT_TARGET": "14.0"}),
    "Windows x86_64": ("x86_64-pc-windows-msvc", {}),
    "Linux x86_64 (glibc 2.28+)": ("x86_64-unknown-linux-gnu", {}),
}
PLATFORM = "any"  # one bundle for every target: the host installs the platform's wheels
# Packed size budget. Measured 2026-11-25: see installer/README.md.
SIZE_BUDGET_BYTES = 1_200_000
ENTRY_POINT = "installer/desktop_server.py"
# Files copied as they are (the package is copied whole, minus bytecode).
FILES = ("models/catalog.json", "README.md", ENTRY_POINT)
PACKAGE = "casetrack"
# Written by the build: the manifest (the repository's), pyproject.toml (trimmed), uv.lock, .python-version.
GENERATED = ("manifest.json", "pyproject.toml", "uv.lock", ".python-version")


class BuildError(Exception):
    """A build step failed; the message says which and what to do."""


def run(cmd: Sequence[str | Path], what: str, env: Mapping[str, str] | None = None,
        cwd: Path | None = None) -> str:
    """Run a build step; its stdout, or BuildError with its output."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          env=None if env is None else dict(env), check=False, timeout=900)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}".rstrip())
    return proc.stdout


def project_version() -> str:
    with (REPO / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def bundle_name(version: str) -> str:
    return f"casetrack-{version}-{PLATFORM}.mcpb"


def ensure_uv(cache: Path) -> Path:
    """A uv command: the one on PATH, else uv==UV_VERSION pip-installed into cache/uv-UV_VERSION."""
    found = shutil.which("uv")
    if found:
        return Path(found)
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / ".gitignore").exists():
        (cache / ".gitignore").write_text("*\n", "utf-8")  # a cache, never committed
    venv = cache / f"uv-{UV_VERSION}"
    uv = venv / ("Scripts/uv.exe" if os.name == "nt" else "bin/uv")
    if not uv.is_file():
        run([sys.executable, "-m", "venv", venv], "Creating a venv for uv")
        pip = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        run([pip, "-m", "pip", "install", "--quiet", f"uv=={UV_VERSION}"],
            f"Installing uv {UV_VERSION} from the package registry (pip install uv=={UV_VERSION})")
    return uv


def trimmed_pyproject(text: str) -> str:
    """pyproject.toml for the bundle: no optional extras (tests), the lock's cut-off date added."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.startswith("["):
            skipping = line.strip() == "[project.optional-dependencies]"
        if not skipping:
            kept.append(line)
    out = "\n".join(kept).rstrip() + f'\n\n[tool.uv]\nexclude-newer = "{EXCLUDE_NEWER}"\n'
    original, trimmed = tomllib.loads(text), tomllib.loads(out)
    if "uv" in original.get("tool", {}):
        raise BuildError("pyproject.toml has a [tool.uv] table: merge exclude-newer into it in trimmed_pyproject().")
    original["project"].pop("optional-dependencies", None)
    if trimmed["project"] != original["project"]:
        raise BuildError("Trimming pyproject.toml changed [project] beyond the extras; fix trimmed_pyproject().")
    return out


def stage(dest: Path) -> None:
    """Copy what the server needs into dest (the bundle's root)."""
    shutil.copytree(REPO / PACKAGE, dest / PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.py[co]"))
    for name in FILES:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, dest / name)
    shutil.copy2(REPO / "manifest.json", dest / "manifest.json")
    (dest / "pyproject.toml").write_text(trimmed_pyproject((REPO / "pyproject.toml").read_text("utf-8")), "utf-8")
    (dest / ".python-version").write_text(PYTHON_VERSION + "\n", "utf-8")


def uv_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """uv's environment: never download an interpreter (only the package registry is used)."""
    return {**os.environ, "UV_PYTHON_DOWNLOADS": "never", **(extra or {})}


def lock(uv: Path, root: Path) -> None:
    """Resolve uv.lock for every platform, then check each target has wheels for all of it."""
    run([uv, "lock", "--directory", root, "--python", sys.executable], "uv lock (the bundle's dependencies)", uv_env())
    with tempfile.TemporaryDirectory() as tmp:
        pins = Path(tmp) / "pins.txt"
        run([uv, "export", "--directory", root, "--frozen", "--no-hashes", "--no-emit-project", "--no-header",
             "--no-annotate", "--output-file", pins], "uv export (the locked versions)", uv_env())
        for label, (platform, extra) in TARGETS.items():
            run([uv, "pip", "compile", pins, "--python-platform", platform, "--python-version", PYTHON_VERSION,
                 "--only-binary", ":all:", "--no-deps", "--no-header", "--quiet", "--output-file", os.devnull],
                f"The wheel check for {label}: a locked package has no wheel there", uv_env(extra))


def mcpb(*args: str | Path) -> str:
    return run(["bash", REPO / "ci" / "mcpb.sh", *args], f"mcpb {args[0]}")


def check_archive(path: Path, staged: Sequence[str]) -> list[str]:
    """The archive's file names; BuildError if it holds anything not staged or is over budget."""
    with zipfile.ZipFile(path) as archive:
        names = sorted(n for n in archive.namelist() if not n.endswith("/"))
    unexpected = sorted(set(names) - set(staged))
    missing = sorted(set(staged) - set(names))
    if unexpected or missing:
        raise BuildError(f"{path.name} does not hold exactly the staged files: "
                         f"unexpected {unexpected[:10]}, missing {missing[:10]}.")
    size = path.stat().st_size
    if size > SIZE_BUDGET_BYTES:
        raise BuildError(f"{path.name} is {size:,} bytes, over the budget of {SIZE_BUDGET_BYTES:,} "
                         "(installer/build_bundle.py SIZE_BUDGET_BYTES): see what grew, or raise the budget "
                         "and say why in installer/README.md.")
    return names


def staged_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def build(out: Path, uv: Path) -> Path:
    """Build, validate and pack the bundle into `out`; its path."""
    version = project_version()
    out.mkdir(parents=True, exist_ok=True)
    target = out / bundle_name(version)
    with tempfile.TemporaryDirectory(prefix="casetrack-bundle-") as tmp:
        root = Path(tmp) / "casetrack"
        root.mkdir()
        stage(root)
        lock(uv, root)
        mcpb("validate", root / "manifest.json")
        target.unlink(missing_ok=True)
        mcpb("pack", root, target)
        names = check_archive(target, staged_files(root))
    sys.stderr.write(f"Built {target} ({target.stat().st_size:,} bytes, {len(names)} files, "
                     f"budget {SIZE_BUDGET_BYTES:,}).\n")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build CaseTrack's Claude Desktop bundle (.mcpb).")
    parser.add_argument("--out", type=Path, required=True, help="folder for casetrack-<version>-any.mcpb")
    parser.add_argument("--uv", type=Path, help="the uv command to lock with (default: PATH, else installed)")
    args = parser.parse_args(argv)
    try:
        uv = args.uv or ensure_uv(REPO / os.environ.get("CASETRACK_CI_CACHE", ".ci-cache"))
        path = build(args.out.resolve(), uv)
    except BuildError as e:
        sys.stderr.write(f"build_bundle: {e}\n")
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
