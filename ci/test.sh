#!/usr/bin/env bash
# Lint (ruff), type-check (mypy --strict over casetrack and tests) and run the test suite (fast tier by
# default; `-m slow` or `-m ''` for more).
# Tests run in CT_TEST_WORKERS pytest-xdist processes (2 by default, a file per process at a time:
# module fixtures are built once); `-n 0` (or CT_TEST_WORKERS=0) runs them in this process.
# Usage: bash ci/test.sh [pytest args...]     (from any folder)
set -euo pipefail
cd "$(dirname "$0")/.."
source installer/common.sh "[test]"

.venv/bin/ruff check casetrack tests bench
.venv/bin/mypy casetrack tests

set +e
.venv/bin/python -m pytest -n "${CT_TEST_WORKERS:-2}" --dist loadfile "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
