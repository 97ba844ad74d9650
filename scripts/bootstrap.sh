#!/usr/bin/env bash
# Creates .venv at the repository root (if missing) and installs Rhumbline into it with the given
# extras. Sourced by scripts/up and scripts/test so both commands work on a fresh clone.
#
# The interpreter is the Lambda runtime's Python (layers/shared/Makefile LAMBDA_PYTHON), so the
# suite runs on what production runs: python3.X on PATH, else pyenv's newest 3.X. RHUMBLINE_PYTHON
# names another one (CI's second job runs the suite on 3.11 so).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv"
LAMBDA_PYTHON="$(sed -n 's/^LAMBDA_PYTHON := \(3\.[0-9]*\)$/\1/p' "$REPO_ROOT/layers/shared/Makefile")"

# Prints the path of a Python $1 (3.X), or nothing. A pyenv shim of a version that is not enabled
# exists but fails, hence the trial run.
find_python() {
    local version="$1" candidate
    if candidate="$(command -v "python$version")" && "$candidate" -c "" 2>/dev/null; then
        echo "$candidate"
        return
    fi
    if command -v pyenv >/dev/null 2>&1; then
        candidate="$(ls -d "$(pyenv root)/versions/$version".*/bin/"python$version" 2>/dev/null | sort -V | tail -n 1)"
        if [[ -n "$candidate" ]] && "$candidate" -c "" 2>/dev/null; then
            echo "$candidate"
        fi
    fi
}

# Sets PYTHON: RHUMBLINE_PYTHON, else the Lambda runtime's Python, else a clear error.
choose_python() {
    if [[ -n "${RHUMBLINE_PYTHON:-}" ]]; then
        PYTHON="$RHUMBLINE_PYTHON"
        return
    fi
    PYTHON="$(find_python "$LAMBDA_PYTHON")"
    if [[ -z "$PYTHON" ]]; then
        echo "Python $LAMBDA_PYTHON (the Lambda runtime's) was not found: neither python$LAMBDA_PYTHON on PATH" \
            "nor a pyenv version $LAMBDA_PYTHON.x. Install it (e.g. \`pyenv install $LAMBDA_PYTHON\`)," \
            "or set RHUMBLINE_PYTHON to the interpreter to use." >&2
        exit 1
    fi
}

bootstrap() {
    local extras="$1" wanted found
    choose_python
    wanted="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    if [[ -x "$VENV/bin/python" ]]; then
        found="$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
        if [[ "$found" != "$wanted" ]]; then
            echo "$VENV is Python $found, and the suite runs on $wanted ($PYTHON): remove $VENV to" \
                "have it made again, or set RHUMBLINE_PYTHON=python$found to keep it." >&2
            exit 1
        fi
    else
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
