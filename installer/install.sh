#!/usr/bin/env bash
# Install CaseTrack into ./.venv and run the demo: a case built from the bundled samples, searched.
# Usage: bash installer/install.sh            (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .

# Models: an offline pack beside the repository (air-gapped installs, CI) is used in place.
# Otherwise CaseTrack looks in DATA_DIR/models (downloads arrive with the model manager).
if [ -z "${CASETRACK_MODELS_DIR:-}" ] && [ -d ../shared/models ]; then
  export CASETRACK_MODELS_DIR="$(cd ../shared/models && pwd)"
fi

echo "CaseTrack installed: $(pwd)/.venv/bin/casetrack"
.venv/bin/casetrack demo
