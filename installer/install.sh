#!/usr/bin/env bash
# Install CaseTrack (Linux, macOS) into ./.venv, fill the install's models folder, run the demo
# (a case built from the bundled samples, searched) and print the command that connects Claude.
# Usage: bash installer/install.sh            (from any folder; PYTHON=/path/to/python3.11 to choose)
# Safe to run again: it finishes an interrupted install and repairs a broken .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
source installer/common.sh ""   # Python 3.11+ first, then .venv made or repaired, CaseTrack installed
source installer/ocr.sh

ROOT="$(pwd -P)"
CT="$ROOT/.venv/bin/casetrack"
echo "CaseTrack installed: $CT"

# The install's own models folder ($ROOT/models), which every entry point finds (see models/README.md):
# from the offline pack beside the repository when there is one, else downloaded once.
_ct_models() {
  local target="$ROOT/models"
  if [ -n "${CASETRACK_MODELS_DIR:-}" ] && [ -z "${CT_MODELS_FROM_PACK:-}" ]; then
    echo "Models: $CASETRACK_MODELS_DIR (CASETRACK_MODELS_DIR: keep it set where CaseTrack runs)"
    return 0
  fi
  if ls "$target"/*/model.json >/dev/null 2>&1; then
    echo "Models: $target"
    return 0
  fi
  if [ -n "${CT_MODELS_FROM_PACK:-}" ]; then
    echo "Installing the models from the offline pack $CASETRACK_MODELS_DIR into $target ..."
    "$CT" --models-dir "$target" models import "$CASETRACK_MODELS_DIR" >/dev/null && return 0
  else
    echo "Downloading the models into $target (once) ..."
    "$CT" --models-dir "$target" models download && return 0
  fi
  echo "Models: not installed, so search is keyword-only until you run: $CT models download" >&2
  echo "  (offline: $CT models import DIR)" >&2
}
_ct_models

if ! "$CT" demo; then
  echo >&2
  echo "The demo did not finish (its messages are above). See what is missing and how to fix it:" >&2
  echo "  $CT doctor" >&2
  exit 1
fi

echo
echo "Check this install any time: $CT doctor"
echo "Connect it to Claude: $CT setup-claude-code   (Claude Desktop: $CT setup-claude-desktop)"
