#!/usr/bin/env bash
# Creates .venv at the repository root (if missing) and installs Rhumbline into it with the given
# extras. Sourced by scripts/up and scripts/test so both commands work on a fresh clone.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv"
PYTHON="${RHUMBLINE_PYTHON:-python3}"

bootstrap() {
    local extras="$1"
    if [[ ! -x "$VENV/bin/python" ]]; then
        "$PYTHON" -m venv "$VENV"
        "$VENV/bin/python" -m pip install --quiet --upgrade pip
    fi
    # The stamp records what was installed, so a second run costs nothing unless pyproject changed.
    local stamp="$VENV/.rhumbline-installed-$extras"
    if [[ ! -f "$stamp" || "$REPO_ROOT/pyproject.toml" -nt "$stamp" ]]; then
        "$VENV/bin/python" -m pip install --quiet -e "$REPO_ROOT[$extras]"
        touch "$stamp"
    fi
}
