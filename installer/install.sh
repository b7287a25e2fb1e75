#!/usr/bin/env bash
# Install CaseTrack into ./.venv and run the demo: a case built from the bundled samples, searched.
# Usage: bash installer/install.sh            (from any folder)
set -euo pipefail
cd "$(dirname "$0")/.."
source installer/common.sh ""
source installer/ocr.sh

echo "CaseTrack installed: $(pwd)/.venv/bin/casetrack"
.venv/bin/casetrack demo
echo
echo "Connect it to Claude: .venv/bin/casetrack setup-claude-code   (or setup-claude-desktop; --dry-run shows the change)"
