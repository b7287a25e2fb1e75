# Sourced by installer/install.sh and ci/test.sh: a ./.venv with CaseTrack installed, and the
# offline model pack beside the repository (air-gapped installs, CI) used in place.
# Usage: source installer/common.sh "EXTRAS"   (EXTRAS: "" or "[test]")
set -euo pipefail
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".${1:-}"

if [ -z "${CASETRACK_MODELS_DIR:-}" ] && [ -d ../shared/models ]; then
  CASETRACK_MODELS_DIR="$(cd ../shared/models && pwd)"
  export CASETRACK_MODELS_DIR
fi
