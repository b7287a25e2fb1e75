#!/usr/bin/env bash
# Validate manifest.json (the MCPB bundle manifest) with the official CLI, `mcpb validate`.
# ci/mcpb.sh installs the CLI once into .ci-cache/npm and finds Node (the venv's, else the system's).
# Usage: bash ci/validate_manifest.sh [manifest.json]     (from any folder)
set -euo pipefail
cd "$(dirname "$0")/.."

MANIFEST="${1:-manifest.json}"

fail() {
  echo "validate_manifest: $*" >&2
  exit 1
}

[ -f "$MANIFEST" ] || fail "$MANIFEST not found."

# `mcpb validate` prints its verdict; its exit status is what counts.
if ! bash ci/mcpb.sh validate "$MANIFEST"; then
  fail "$MANIFEST is not a valid MCPB manifest (the official mcpb CLI); see the errors above."
fi
