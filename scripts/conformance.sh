#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios against a real `rhumbline serve`, as
# scripts/test runs it (scripts/conformance.py says which scenarios apply and why).
#
# The suite comes from npm into .tools/conformance-<version>/ (0.1.14+ needs Node 22; 0.1.13 runs
# on Node 20).
set -euo pipefail

VERSION=0.1.13
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.tools/conformance-$VERSION"
BIN="$PREFIX/node_modules/.bin/conformance"

if [[ ! -x "$BIN" ]]; then
    command -v npm >/dev/null || { echo "conformance.sh: npm not found (needed for @modelcontextprotocol/conformance)" >&2; exit 1; }
    echo "installing @modelcontextprotocol/conformance@$VERSION into .tools/" >&2
    mkdir -p "$PREFIX"
    npm install --prefix "$PREFIX" --no-audit --no-fund --silent "@modelcontextprotocol/conformance@$VERSION" >&2
fi
"$ROOT/.venv/bin/python" "$ROOT/scripts/conformance.py" --suite-bin "$BIN" "$@"
