#!/usr/bin/env bash
# Validate and build the SAM application without Docker or AWS credentials.
#
#   scripts/sam.sh validate   sam validate --lint (cfn-lint) + sam validate (SAM translator)
#   scripts/sam.sh build      sam build (the layer through layers/shared/Makefile)
#   scripts/sam.sh all        both
#   scripts/sam.sh setup      only install SAM CLI into .venv-sam
#
# SAM CLI lives in its own venv (.venv-sam): it pins an older boto3 than the project's.
set -euo pipefail

SAM_VERSION="1.170.0"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# find_python and LAMBDA_PYTHON (the runtime's Python, layers/shared/Makefile).
source "$ROOT/scripts/bootstrap.sh"
VENV="$ROOT/.venv-sam"
SAM="$VENV/bin/sam"
# Lambda's layer limit: function + layers <= 250 MB unzipped. Fail the build well before it.
LAYER_LIMIT_MB=200

cd "$ROOT"
export SAM_CLI_TELEMETRY=0
# Neither validate nor build calls AWS, but both want a region.
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}"

# The Lambda runtime's Python, which the layer's .pyc and SAM's function builds need on PATH.
runtime_python() {
    local found
    found="$(find_python "$LAMBDA_PYTHON")"
    if [[ -z "$found" ]]; then
        echo "sam.sh: Python $LAMBDA_PYTHON (the Lambda runtime's) was not found: install it (e.g. \`pyenv install $LAMBDA_PYTHON\`)" >&2
        exit 1
    fi
    echo "$found"
}

ensure_sam() {
    # Re-runs are cheap: only a missing or different SAM CLI triggers an install.
    if [[ -x "$SAM" ]] && "$SAM" --version 2>/dev/null | grep -q "$SAM_VERSION"; then
        return
    fi
    echo "installing aws-sam-cli==$SAM_VERSION into $VENV" >&2
    "$(runtime_python)" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "aws-sam-cli==$SAM_VERSION"
}

validate() {
    "$SAM" validate --lint --template-file template.yaml
    # Without --lint: the SAM translator's own checks (it needs the region, no credentials).
    "$SAM" validate --template-file template.yaml
}

build() {
    local started=$SECONDS python
    python="$(runtime_python)"
    PATH="$(dirname "$python"):$PATH"
    "$SAM" build --template-file template.yaml --config-env default
    local layer="$ROOT/.aws-sam/build/SharedLayer"
    local size_mb
    size_mb=$(du -sm --apparent-size "$layer" | cut -f1)
    echo "sam build: $((SECONDS - started)) s; SharedLayer ${size_mb} MB unzipped"
    if (( size_mb > LAYER_LIMIT_MB )); then
        echo "SharedLayer is ${size_mb} MB: over the ${LAYER_LIMIT_MB} MB budget (Lambda limit 250 MB)" >&2
        exit 1
    fi
    # The point of the makefile build: the layer must carry .pyc for the runtime's Python.
    local tag
    tag="cpython-$(sed -n 's/^LAMBDA_PYTHON := \([0-9]*\)\.\([0-9]*\)$/\1\2/p' layers/shared/Makefile)"
    if ! find "$layer/python/rhumbline" -name "*.$tag.pyc" -print -quit | grep -q .; then
        echo "SharedLayer has no compiled rhumbline .pyc files ($tag)" >&2
        exit 1
    fi
    # Not fatal (the build must work offline), but a verify-full deploy needs it: say so.
    if [[ ! -f "$layer/rhumbline-certs/rds-global-bundle.pem" ]]; then
        echo "note: SharedLayer has no RDS CA bundle; run scripts/fetch-rds-ca.sh before a DbSsl=verify-full deploy" >&2
    fi
}

case "${1:-all}" in
    validate) ensure_sam; validate ;;
    build) ensure_sam; build ;;
    all) ensure_sam; validate; build ;;
    setup) ensure_sam ;;
    *) echo "usage: $0 validate|build|all|setup" >&2; exit 2 ;;
esac
