#!/usr/bin/env bash
# Install CaseTrack into ./.venv and run the demo: a case built from the bundled samples, searched.
# Usage: bash installer/install.sh            (from any folder)
set -euo pipefail
cd "$(dirname "$0")/.."
source installer/common.sh ""

echo "CaseTrack installed: $(pwd)/.venv/bin/casetrack"
.venv/bin/casetrack demo
