"""The scheduled sweep picks the branch stacks whose branch is gone, and nothing else.

CloudFormation's ListStacks is a botocore hook; the branch-to-stack mapping is the real
`deploy-branch.sh --name-only`, and the branches come from a real git remote (a local bare repo).
"""

from __future__ import annotations

import importlib.util
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import boto3
from botocore.awsrequest import AWSResponse

ROOT = Path(__file__).resolve().parents[3]
spec = importlib.util.spec_from_file_location("sweep_branch_stacks", ROOT / "scripts" / "sweep_branch_stacks.py")
assert spec and spec.loader
sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def cloudformation(stacks: list[tuple[str, str, timedelta]]) -> Any:
    client = boto3.client("cloudformation", region_name="eu-west-1", aws_access_key_id="t", aws_secret_access_key="t")
    pages = [stacks[:2], stacks[2:]]
    seen: list[dict[str, Any]] = []

    def list_stacks(model: Any, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        seen.append(params["body"])
        page = pages[len(seen) - 1]
        parsed: dict[str, Any] = {
            "StackSummaries": [
                {"StackName": name, "StackStatus": status, "CreationTime": NOW - age} for name, status, age in page
            ],
            "ResponseMetadata": {"HTTPStatusCode": 200},
        }
        if len(seen) < len(pages):
            parsed["NextToken"] = "more"
        return AWSResponse("https://cloudformation", 200, {}, None), parsed

    client.meta.events.register("before-call.cloudformation.ListStacks", list_stacks)
    client.seen = seen  # type: ignore[attr-defined]
    return client


def test_only_idle_branch_stacks_without_a_branch_are_swept(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    work = tmp_path / "work"

    def run(*args: str) -> None:
        subprocess.run(args, cwd=work, check=True, capture_output=True, timeout=60)

    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, timeout=60)
    work.mkdir()
    run("git", "init", "-q", "-b", "main")
    run("git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x")
    run("git", "branch", "feature/Keep-Me")
    run("git", "push", "-q", str(remote), "main", "feature/Keep-Me")
    branches = [line.split("refs/heads/")[1] for line in subprocess.run(
        ["git", "ls-remote", "--heads", str(remote)], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()]  # fmt: skip
    keep = sweep.stack_names(branches)
    assert keep == {"rhumbline-br-main", "rhumbline-br-feature-keep-me"}

    old = timedelta(days=3)
    client = cloudformation([
        ("rhumbline-br-feature-keep-me", "UPDATE_COMPLETE", old),
        ("rhumbline-br-gone", "UPDATE_COMPLETE", old),  # swept
        ("rhumbline-br-gone-failed", "ROLLBACK_COMPLETE", old),  # swept
        ("rhumbline-br-busy", "UPDATE_IN_PROGRESS", old),  # a deploy is running: left alone
        ("rhumbline-br-new", "CREATE_COMPLETE", timedelta(minutes=5)),  # too young to judge
        ("rhumbline-dev", "UPDATE_COMPLETE", old),  # not a branch stack
        ("rhumbline-br-main", "UPDATE_COMPLETE", old),
    ])  # fmt: skip
    stale = sweep.stale_stacks(client, keep, min_age=timedelta(hours=1), now=NOW)
    assert stale == ["rhumbline-br-gone", "rhumbline-br-gone-failed"]
    assert len(client.seen) == 2, "every page is read"
    # Deleted stacks are not asked for; every other status is.
    filters = {v for k, v in client.seen[0].items() if k.startswith("StackStatusFilter.")}
    assert "DELETE_COMPLETE" not in filters and {"UPDATE_COMPLETE", "ROLLBACK_COMPLETE"} <= filters


def test_the_sweep_can_only_delete_branch_stacks() -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "deploy-branch.sh"), "--delete-stack", "rhumbline-prod"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "'rhumbline-prod' is not a branch stack" in done.stderr
