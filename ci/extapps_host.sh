#!/usr/bin/env bash
# Build the MCP Apps host bridge for the page view's browser tests (tests/test_page_view_browser.py):
# @modelcontextprotocol/ext-apps (the MCP Apps SDK, SEP-1865) with its peers, bundled by esbuild into
# one browser script that puts `ExtAppsHost = {AppBridge, PostMessageTransport}` on window. Installed
# once into .ci-cache/npm-extapps (ignored by git), like ci/inspector.sh; needs the npm registry the
# first time. Prints the bundle's path. Node comes from the venv or the system (ci/node.sh).
# Usage: bash ci/extapps_host.sh      (from any folder)
set -euo pipefail
cd "$(dirname "$0")/.."

EXT_APPS_VERSION="2.0.4"
CACHE="${CASETRACK_CI_CACHE:-.ci-cache}"
PREFIX="$CACHE/npm-extapps"
BUNDLE="$PREFIX/host-bridge-$EXT_APPS_VERSION.js"

fail() {
  echo "extapps_host: $*" >&2
  exit 1
}

source ci/node.sh

if [ ! -f "$BUNDLE" ]; then
  mkdir -p "$CACHE"
  [ -f "$CACHE/.gitignore" ] || printf '*\n' >"$CACHE/.gitignore"
  STAGING="$PREFIX.partial.$$"
  trap 'rm -rf "$STAGING"' EXIT
  rm -rf "$STAGING"
  mkdir -p "$STAGING"
  echo "Installing @modelcontextprotocol/ext-apps@$EXT_APPS_VERSION and esbuild into $PREFIX ..." >&2
  "${NPM[@]}" install --prefix "$STAGING" --no-save --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/ext-apps@$EXT_APPS_VERSION" "@modelcontextprotocol/client@2" \
    "@modelcontextprotocol/core@2" "zod@4" "esbuild@0.25" >&2 \
    || { echo "extapps_host: npm could not install the MCP Apps SDK" >&2; exit 1; }
  cp tests/browser/host_bridge_entry.js "$STAGING/entry.js"
  "$STAGING/node_modules/.bin/esbuild" "$STAGING/entry.js" --bundle --format=iife \
    --platform=browser --outfile="$STAGING/host-bridge-$EXT_APPS_VERSION.js" --log-level=warning >&2
  rm -rf "$PREFIX"
  mv "$STAGING" "$PREFIX"
  trap - EXIT
fi
echo "$BUNDLE"
