#!/usr/bin/env bash
# Deploy (or tear down) the stack of one git branch: rhumbline-br-<sanitized branch>.
#
#   scripts/deploy-branch.sh [BRANCH]              build and deploy BRANCH's stack
#   scripts/deploy-branch.sh --delete [BRANCH]     delete BRANCH's stack (its database and graphs too)
#   scripts/deploy-branch.sh --delete-stack STACK  delete a branch stack by name (the scheduled sweep)
#   scripts/deploy-branch.sh --name-only [BRANCH]  print the stack name and exit (no AWS calls)
#   scripts/deploy-branch.sh --stage STAGE         build and deploy the long-lived rhumbline-STAGE
#                                                  (its own Aurora cluster and Neo4j database)
#
# BRANCH defaults to CI's branch (GITHUB_HEAD_REF for pull requests, else GITHUB_REF_NAME; given
# under workflow_run), else the checked-out branch. Deploying needs AWS credentials and, in the
# environment:
#   RHUMBLINE_VPC_ID, RHUMBLINE_SUBNET_IDS (comma-separated private subnets with NAT),
#   RHUMBLINE_NEO4J_SECRET_ARN (full ARN of the Neo4j secret),
#   RHUMBLINE_SHARED_STACK (branch stacks: the long-lived stack whose Aurora cluster they share,
#     default rhumbline-dev; "none" gives a branch its own cluster),
#   RHUMBLINE_SOURCE_BUCKET (optional: the bucket `rhumbline publish` uploads to).
# Branch stacks use Stage=branch: no deletion protection, no final snapshot, no reserved
# concurrency, their graphs under the Neo4j namespace <stack name>.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="rhumbline-br-"
# Tool functions are named <stack>-tool-<tool>, and a Lambda function name has at most 64
# characters (tests/functional/infra/test_template.py checks the longest tool still fits).
MAX_STACK_NAME=37

action=deploy
stage=branch
while [[ "${1:-}" == -* ]]; do
    case "$1" in
        --delete) action=delete; shift ;;
        --delete-stack) action=delete-stack; shift ;;
        --name-only) action=name; shift ;;
        --stage) stage="${2:?--stage needs a stage name, e.g. dev}"; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (--help)" >&2; exit 2 ;;
    esac
done
if [[ -z "${1:-}" && "$stage" == branch && "${GITHUB_EVENT_NAME:-}" == workflow_run ]]; then
    # A workflow_run's GITHUB_REF_NAME is the default branch, not the branch ci.yml tested.
    echo "under workflow_run, pass the branch (github.event.workflow_run.head_branch)" >&2
    exit 2
fi
branch="${1:-${GITHUB_HEAD_REF:-${GITHUB_REF_NAME:-}}}"
if [[ -z "$branch" ]]; then
    # symbolic-ref also works before the first commit; it fails on a detached HEAD (CI sets the
    # GITHUB_* variables there).
    branch="$(git -C "$ROOT" symbolic-ref --short HEAD)"
fi

# Stack names: [A-Za-z][-A-Za-z0-9]*, at most MAX_STACK_NAME characters. Lower-case (RDS and other
# generated names are lower-case anyway), anything else becomes "-", runs collapse.
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

if [[ "$action" == delete-stack ]]; then
    stack="${1:?--delete-stack needs a stack name}"
    # Only ever a branch stack: the sweep must not be able to delete a long-lived stage.
    [[ "$stack" =~ ^${PREFIX}[a-z0-9-]+$ ]] || { echo "'$stack' is not a branch stack ($PREFIX...)" >&2; exit 2; }
    action=delete
elif [[ "$stage" != branch ]]; then
    [[ "$stage" =~ ^[a-z][a-z0-9-]{0,31}$ && "$stage" != branch ]] || { echo "invalid stage '$stage'" >&2; exit 2; }
    stack="rhumbline-$stage"
else
    stack="$(stack_name_for "$branch")"
fi
if [[ "$action" == name ]]; then
    echo "$stack"
    exit 0
fi

cd "$ROOT"
export SAM_CLI_TELEMETRY=0
SAM="$ROOT/.venv-sam/bin/sam"

if [[ "$action" == delete ]]; then
    [[ "$stack" == "$PREFIX"* ]] || { echo "refusing to delete $stack: only branch stacks are deleted here" >&2; exit 2; }
    bash scripts/sam.sh setup
    # The stack's database and graphs go with it (BranchDatabase, GraphNamespace), its logs too
    # (FunctionLogs), and sam delete removes the artifacts it uploaded. CloudFormation deletes
    # only an empty bucket: the stored files' contents go first.
    echo "deleting stack $stack"
    "$ROOT/.venv-sam/bin/python" - "$stack" <<'PY'
import sys

import boto3
from botocore.config import Config

config = Config(connect_timeout=10, read_timeout=60, retries={"max_attempts": 5, "mode": "standard"})
try:
    resource = boto3.client("cloudformation", config=config).describe_stack_resource(
        StackName=sys.argv[1], LogicalResourceId="FileContentsBucket"
    )["StackResourceDetail"]
except boto3.exceptions.botocore.exceptions.ClientError:
    sys.exit(0)  # no such stack or bucket: nothing to empty
bucket = boto3.resource("s3", config=config).Bucket(resource["PhysicalResourceId"])
bucket.objects.all().delete()
print(f"emptied {bucket.name}")
PY
    "$SAM" delete --stack-name "$stack" --no-prompts
    exit 0
fi

: "${RHUMBLINE_VPC_ID:?set RHUMBLINE_VPC_ID}"
: "${RHUMBLINE_SUBNET_IDS:?set RHUMBLINE_SUBNET_IDS (comma-separated)}"
: "${RHUMBLINE_NEO4J_SECRET_ARN:?set RHUMBLINE_NEO4J_SECRET_ARN}"

parameters=(
    "Stage=$stage"
    "VpcId=$RHUMBLINE_VPC_ID"
    "SubnetIds=$RHUMBLINE_SUBNET_IDS"
    "Neo4jSecretArn=$RHUMBLINE_NEO4J_SECRET_ARN"
    "SourceBucket=${RHUMBLINE_SOURCE_BUCKET:-}"
)
if [[ "$stage" == branch ]]; then
    # Reserved concurrency comes out of the account's pool, whatever the stack's traffic: the
    # previews of every open branch reserve none.
    parameters+=("GatewayReservedConcurrency=0" "ToolReservedConcurrency=0" "IngestWorkerReservedConcurrency=0")
    # Nor do they keep SnapStart snapshots, charged per GB and hour whether called or not.
    parameters+=("SnapStart=None")
fi
shared="${RHUMBLINE_SHARED_STACK:-rhumbline-dev}"
if [[ "$stage" == branch && "$shared" != none ]]; then
    # A cheap stack: the long-lived stack's cluster (a database of its own there) and a
    # namespace of its own in the Neo4j database.
    output() {
        aws cloudformation describe-stacks --stack-name "$shared" --output text \
            --query "Stacks[0].Outputs[?OutputKey=='$1'].OutputValue"
    }
    secret="$(output DatabaseSecretArn)" group="$(output LambdaSecurityGroupId)"
    [[ "$secret" == arn:* && "$group" == sg-* ]] \
        || { echo "stack $shared has no DatabaseSecretArn/LambdaSecurityGroupId outputs (deploy it first: --stage dev)" >&2; exit 1; }
    parameters+=("SharedDatabaseSecretArn=$secret" "SharedDatabaseSecurityGroupId=$group" "Neo4jNamespace=$stack")
fi

bash scripts/sam.sh all
echo "deploying stack $stack ($([[ $stage == branch ]] && echo "branch $branch" || echo "stage $stage"))"
# The dev profile of samconfig.toml (capabilities, S3 bucket), with this stack's name.
"$SAM" deploy --config-env dev \
    --stack-name "$stack" \
    --s3-prefix "$stack" \
    --no-confirm-changeset --no-fail-on-empty-changeset \
    --parameter-overrides "${parameters[@]}" \
    --tags "project=rhumbline" "stage=$stage" "rhumbline:stack=$stack"
"$SAM" list stack-outputs --stack-name "$stack" --output table
