# Sourced by installer/install.sh and ci/test.sh (so by .ci/run too), from the repository root:
#   1. a Python 3.11 or newer, checked before anything else (PYTHON=/path/to/python to choose one);
#   2. ./.venv made, or repaired when its Python is gone or too old or its last install did not finish;
#   3. CaseTrack installed into it (`pip install -e .EXTRAS`), then the marker .venv/.casetrack-install
#      written: its absence tells the next run that this install did not finish;
#   4. the offline model pack beside the repository (air-gapped installs, CI) used in place.
# Usage: source installer/common.sh "EXTRAS"   (EXTRAS: "" or "[test]")
# Plain POSIX tools and bash 3.2 (macOS's) only.
set -euo pipefail

CT_MIN_MINOR=11
CT_MARKER=".casetrack-install"   # casetrack/setup/installation.py reads it (update, uninstall)

# The "3.11.7" of interpreter $1; nothing when it does not run.
_ct_version() {
  "$1" --version 2>&1 | sed -n 's/^Python \([0-9][0-9]*\.[0-9][0-9]*\)\([.0-9]*\).*/\1\2/p' | head -n 1 || true
}

# Whether version $1 is 3.11 or newer (and a Python 3).
_ct_supported() {
  local major="${1%%.*}" rest="${1#*.}"
  local minor="${rest%%.*}"
  case "$major$minor" in *[!0-9]*|"") return 1 ;; esac
  [ "$major" -eq 3 ] && [ "$minor" -ge "$CT_MIN_MINOR" ]
}

_ct_major_minor() { printf '%s\n' "$1" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/'; }

# How to get Python 3.11 on this system (printed when none is found).
_ct_python_help() {
  local os_id=""
  echo "How to get Python 3.11:" >&2
  case "$(uname -s 2>/dev/null || echo unknown)" in
    Darwin)
      echo "  brew install python@3.11                  (Homebrew), or the macOS installer from python.org/downloads" >&2 ;;
    Linux)
      local release="${CT_OS_RELEASE:-/etc/os-release}"   # another file: tests
      if [ -r "$release" ]; then
        os_id="$(sed -n 's/^ID=//p' "$release" | tr -d '"' | head -n 1)"
      fi
      case "$os_id" in
        ubuntu|linuxmint|pop)
          echo "  sudo add-apt-repository ppa:deadsnakes/ppa && sudo apt-get update && sudo apt-get install python3.11 python3.11-venv" >&2 ;;
        debian)
          echo "  sudo apt-get install python3.11 python3.11-venv        (Debian 12 and newer)" >&2 ;;
        fedora|rhel|centos|rocky|almalinux)
          echo "  sudo dnf install python3.11" >&2 ;;
        *)
          echo "  install python3.11 with your system's package manager" >&2 ;;
      esac ;;
  esac
  echo "  or, on any system, with uv:  uv python install 3.11   then  PYTHON=\"\$(uv python find 3.11)\" bash installer/install.sh" >&2
}

# Sets CT_PY (command) and CT_PY_VERSION: $PYTHON if given, else the first of python3.11,
# python3.12, python3.13, python3 on PATH that is 3.11 or newer. Exits with the way to get one.
_ct_pick_python() {
  local candidate version found=""
  CT_PY="" CT_PY_VERSION=""
  if [ -n "${PYTHON:-}" ]; then
    version="$(_ct_version "$PYTHON")"
    if [ -n "$version" ] && _ct_supported "$version"; then
      CT_PY="$PYTHON" CT_PY_VERSION="$version"
      return 0
    fi
    echo "Error: PYTHON=$PYTHON is ${version:+Python $version}${version:-not a Python that runs}: CaseTrack needs Python 3.11 or newer." >&2
    _ct_python_help
    exit 1
  fi
  for candidate in python3.11 python3.12 python3.13 python3; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    version="$(_ct_version "$candidate")"
    if [ -n "$version" ] && _ct_supported "$version"; then
      CT_PY="$candidate" CT_PY_VERSION="$version"
      return 0
    fi
    found="$found ${candidate}=${version:-does-not-run}"
  done
  echo "Error: CaseTrack needs Python 3.11 or newer; ${found:+found only:$found}${found:-no python3 was found on PATH}." >&2
  _ct_python_help
  echo "Then run this again (or choose one: PYTHON=/path/to/python3.11 bash installer/install.sh)." >&2
  exit 1
}

# The state of ./.venv: "missing", "ok", "foreign" (not a virtual environment: never touched) or
# "broken:<why>" (to be made again).
_ct_venv_state() {
  local version
  if [ ! -e .venv ] && [ ! -L .venv ]; then echo missing; return; fi
  if [ -d .venv ] && [ -z "$(ls -A .venv 2>/dev/null)" ]; then echo "broken:it is empty"; return; fi
  if [ ! -f .venv/pyvenv.cfg ]; then echo foreign; return; fi
  if [ ! -x .venv/bin/python ]; then echo "broken:its Python is missing (removed or moved since)"; return; fi
  version="$(_ct_version .venv/bin/python)"
  if [ -z "$version" ]; then echo "broken:its Python does not run"; return; fi
  if ! _ct_supported "$version"; then echo "broken:it has Python $version, older than 3.11"; return; fi
  if [ -n "${PYTHON:-}" ] && [ "$(_ct_major_minor "$version")" != "$(_ct_major_minor "$CT_PY_VERSION")" ]; then
    echo "broken:it has Python $version, not the $CT_PY_VERSION of PYTHON=$PYTHON"; return
  fi
  if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then echo "broken:it has no pip"; return; fi
  echo ok
}

_ct_create_venv() {
  echo "Creating .venv with $CT_PY (Python $CT_PY_VERSION) ..."
  if ! "$CT_PY" -m venv .venv; then
    rm -rf .venv
    echo "Error: $CT_PY could not create a virtual environment (its venv module or ensurepip is missing)." >&2
    echo "  Debian/Ubuntu: sudo apt-get install python$(_ct_major_minor "$CT_PY_VERSION")-venv   then run this again." >&2
    exit 1
  fi
}

# pip install into .venv, then check that the package imports (a half-written package does not).
_ct_pip_install() {
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip &&
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".$1" &&
    .venv/bin/python -c "import casetrack.cli.main"
}

_ct_write_marker() {
  {
    echo "root=$(pwd -P)"
    echo "python=$CT_PY_VERSION"
    echo "extras=$1"
    echo "installed=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >".venv/$CT_MARKER.tmp"
  mv ".venv/$CT_MARKER.tmp" ".venv/$CT_MARKER"
}

_ct_install_failed() {
  echo "Error: pip could not install CaseTrack into .venv (its messages are above)." >&2
  echo "  Check the connection to the package registry (pip config list shows pip's settings), then run this" >&2
  echo "  again: the next run finishes or repairs .venv." >&2
  case "$(_ct_major_minor "$CT_PY_VERSION")" in
    3.11|3.12) ;;
    *) echo "  Python $CT_PY_VERSION may be too new for a library's builds: try PYTHON=python3.11." >&2 ;;
  esac
  exit 1
}

_ct_setup_venv() {
  local extras="$1" state unfinished=0 created=0
  state="$(_ct_venv_state)"
  case "$state" in
    foreign)
      echo "Error: .venv exists but is not a Python virtual environment; it was left untouched." >&2
      echo "  Move it aside (mv .venv .venv.old), then run this again." >&2
      exit 1 ;;
    missing)
      _ct_create_venv; created=1 ;;
    broken:*)
      echo "Recreating .venv: ${state#broken:}."
      rm -rf .venv
      _ct_create_venv; created=1 ;;
    ok)
      if [ ! -f ".venv/$CT_MARKER" ]; then
        unfinished=1
        echo "Repairing .venv: its last install did not finish (or predates this installer)."
      fi ;;
  esac
  rm -f ".venv/$CT_MARKER"
  if ! _ct_pip_install "$extras"; then
    # Twice unfinished in a row: the venv itself may be damaged. Start again from nothing, once.
    [ "$created" -eq 0 ] && [ "$unfinished" -eq 1 ] || _ct_install_failed
    echo "Recreating .venv: installing into it failed again."
    rm -rf .venv
    _ct_create_venv
    _ct_pip_install "$extras" || _ct_install_failed
  fi
  _ct_write_marker "$extras"
}

_ct_pick_python
_ct_setup_venv "${1:-}"

if [ -z "${CASETRACK_MODELS_DIR:-}" ] && [ -d ../shared/models ]; then
  CASETRACK_MODELS_DIR="$(cd ../shared/models && pwd)"
  CT_MODELS_FROM_PACK=1
  export CASETRACK_MODELS_DIR
fi
