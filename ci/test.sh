#!/usr/bin/env bash
# Run the test suite (fast tier by default; pass `-m slow` or `-m ''` for more).
# Usage: bash ci/test.sh [pytest args...]     (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'

# Tests use the offline model pack in ../shared/models through the normal models-dir path.
if [ -z "${CASETRACK_MODELS_DIR:-}" ] && [ -d ../shared/models ]; then
  export CASETRACK_MODELS_DIR="$(cd ../shared/models && pwd)"
fi

.venv/bin/ruff check casetrack tests bench
.venv/bin/mypy casetrack

set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
