#!/usr/bin/env bash
# Deploy (or tear down) the stack of one git branch: rhumbline-br-<sanitized branch>.
#
#   scripts/deploy-branch.sh [BRANCH]             build and deploy BRANCH's stack
#   scripts/deploy-branch.sh --delete [BRANCH]    delete BRANCH's stack (and its database)
#   scripts/deploy-branch.sh --name-only [BRANCH] print the stack name and exit (no AWS calls)
#
# BRANCH defaults to CI's branch (GITHUB_HEAD_REF for pull requests, else GITHUB_REF_NAME), else
# the checked-out branch. Deploying needs AWS credentials and, in the environment:
#   RHUMBLINE_VPC_ID, RHUMBLINE_SUBNET_IDS (comma-separated private subnets with NAT),
#   RHUMBLINE_NEO4J_SECRET_ARN (full ARN; branch stacks may share one Neo4j secret).
# Branch stacks use Stage=branch: no deletion protection, no final snapshot.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="rhumbline-br-"
MAX_STACK_NAME=128

action=deploy
case "${1:-}" in
    --delete) action=delete; shift ;;
    --name-only) action=name; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
esac
branch="${1:-${GITHUB_HEAD_REF:-${GITHUB_REF_NAME:-}}}"
if [[ -z "$branch" ]]; then
    # symbolic-ref also works before the first commit; it fails on a detached HEAD (CI sets the
    # GITHUB_* variables there).
    branch="$(git -C "$ROOT" symbolic-ref --short HEAD)"
fi

# CloudFormation stack names: [A-Za-z][-A-Za-z0-9]*, at most 128 characters. Lower-case (RDS and
# other generated names are lower-case anyway), anything else becomes "-", runs collapse.
stack_name_for() {
    local raw="$1" slug name hash
    slug="$(printf '%s' "$raw" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9-]+/-/g; s/-+/-/g; s/^-+//; s/-+$//')"
    if [[ -z "$slug" ]]; then
        echo "branch name '$raw' has no usable characters" >&2
        return 1
    fi
    name="$PREFIX$slug"
    if (( ${#name} > MAX_STACK_NAME )); then
        # Keep long names distinct: cut, then add a hash of the full branch name.
        hash="$(printf '%s' "$raw" | sha256sum | cut -c1-8)"
        name="${name:0:$((MAX_STACK_NAME - 9))}"
        name="${name%-}-$hash"
    fi
    printf '%s\n' "$name"
}

stack="$(stack_name_for "$branch")"
if [[ "$action" == name ]]; then
    echo "$stack"
    exit 0
fi

cd "$ROOT"
export SAM_CLI_TELEMETRY=0
SAM="$ROOT/.venv-sam/bin/sam"

if [[ "$action" == delete ]]; then
    bash scripts/sam.sh setup
    echo "deleting stack $stack (branch $branch)"
    "$SAM" delete --stack-name "$stack" --no-prompts
    exit 0
fi

: "${RHUMBLINE_VPC_ID:?set RHUMBLINE_VPC_ID}"
: "${RHUMBLINE_SUBNET_IDS:?set RHUMBLINE_SUBNET_IDS (comma-separated)}"
: "${RHUMBLINE_NEO4J_SECRET_ARN:?set RHUMBLINE_NEO4J_SECRET_ARN}"

bash scripts/sam.sh all
echo "deploying stack $stack (branch $branch)"
# The dev profile of samconfig.toml (capabilities, S3 bucket), with this branch's stack name.
"$SAM" deploy --config-env dev \
    --stack-name "$stack" \
    --s3-prefix "$stack" \
    --no-confirm-changeset --no-fail-on-empty-changeset \
    --parameter-overrides \
        "Stage=branch" \
        "VpcId=$RHUMBLINE_VPC_ID" \
        "SubnetIds=$RHUMBLINE_SUBNET_IDS" \
        "Neo4jSecretArn=$RHUMBLINE_NEO4J_SECRET_ARN" \
    --tags "project=rhumbline" "stage=branch" "rhumbline:stack=$stack"
"$SAM" list stack-outputs --stack-name "$stack" --output table
