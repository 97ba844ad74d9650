#!/usr/bin/env python3
"""Delete the branch stacks whose branch no longer exists (the deploy workflow's scheduled sweep).

    .venv/bin/python scripts/sweep_branch_stacks.py [--remote origin] [--dry-run]

The branches are the remote's heads (`git ls-remote`); a branch's stack name is what
`scripts/deploy-branch.sh --name-only BRANCH` says (the one definition of the mapping). A stack
named `rhumbline-br-*` that no branch maps to is deleted with `deploy-branch.sh --delete-stack`,
unless it is busy (a deploy or delete in progress) or younger than --min-age-minutes (its branch
may be a push that `ls-remote` has not seen yet). Needs AWS credentials for CloudFormation.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "rhumbline-br-"
# Every status but DELETE_COMPLETE: a stack in any of them still exists.
LIVE_STATUSES = [
    "CREATE_IN_PROGRESS", "CREATE_FAILED", "CREATE_COMPLETE", "ROLLBACK_IN_PROGRESS", "ROLLBACK_FAILED",
    "ROLLBACK_COMPLETE", "DELETE_IN_PROGRESS", "DELETE_FAILED", "UPDATE_IN_PROGRESS",
    "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", "UPDATE_COMPLETE", "UPDATE_FAILED", "UPDATE_ROLLBACK_IN_PROGRESS",
    "UPDATE_ROLLBACK_FAILED", "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", "UPDATE_ROLLBACK_COMPLETE",
    "REVIEW_IN_PROGRESS", "IMPORT_IN_PROGRESS", "IMPORT_COMPLETE", "IMPORT_ROLLBACK_IN_PROGRESS",
    "IMPORT_ROLLBACK_FAILED", "IMPORT_ROLLBACK_COMPLETE",
]  # fmt: skip


def remote_branches(remote: str) -> list[str]:
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-remote", "--heads", remote], capture_output=True, text=True, timeout=120, check=True
    )
    return [line.split("refs/heads/", 1)[1] for line in listed.stdout.splitlines() if "refs/heads/" in line]


def stack_names(branches: Iterable[str]) -> set[str]:
    def name(branch: str) -> str:
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "deploy-branch.sh"), "--name-only", branch],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
        return done.stdout.strip()

    return {name(branch) for branch in branches}


def stale_stacks(cloudformation: Any, keep: set[str], *, min_age: timedelta, now: datetime | None = None) -> list[str]:
    """Branch stacks no kept name matches, idle and older than `min_age`, by name."""
    now = now or datetime.now(timezone.utc)
    stale = []
    for page in cloudformation.get_paginator("list_stacks").paginate(StackStatusFilter=LIVE_STATUSES):
        for stack in page["StackSummaries"]:
            name, status = stack["StackName"], stack["StackStatus"]
            if not name.startswith(PREFIX) or name in keep or status.endswith("_IN_PROGRESS"):
                continue
            if now - stack["CreationTime"] < min_age:
                continue
            stale.append(name)
    return sorted(stale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", default="origin")
    parser.add_argument("--min-age-minutes", type=int, default=60)
    parser.add_argument("--dry-run", action="store_true", help="list what would be deleted, delete nothing")
    args = parser.parse_args(argv)

    import boto3
    from botocore.config import Config

    branches = remote_branches(args.remote)
    if not branches:
        # An empty answer is a broken remote, not a repository without branches: delete nothing.
        print(f"no branches on {args.remote}: nothing deleted", file=sys.stderr)
        return 1
    cloudformation = boto3.client("cloudformation", config=Config(connect_timeout=10, read_timeout=30))
    stale = stale_stacks(cloudformation, stack_names(branches), min_age=timedelta(minutes=args.min_age_minutes))
    print(f"{len(branches)} branches; {len(stale)} branch stacks without a branch: {', '.join(stale) or '-'}")
    failed = 0
    for stack in stale:
        if args.dry_run:
            continue
        done = subprocess.run(["bash", str(ROOT / "scripts" / "deploy-branch.sh"), "--delete-stack", stack], check=False)
        failed += done.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
