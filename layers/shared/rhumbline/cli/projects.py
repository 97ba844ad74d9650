"""`rhumbline ingest`, `publish` and `project delete`: the projects of a store."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from rhumbline.cli.common import CliError, checked_project, prepared_engine, print_summary, project_for, run_ingest


def cmd_ingest(args: argparse.Namespace) -> int:
    root = Path(args.path).resolve()
    project = project_for(root, args.project)
    print_summary(run_ingest(root, project, clear=args.clear), as_json=args.json)
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    from rhumbline.publish import PublishError, publish

    project = checked_project(args.project)
    token = args.token or os.environ.get("RHUMBLINE_TOKEN", "")
    if not token:
        raise CliError("--token (or RHUMBLINE_TOKEN) is required: a token with the `write` scope on the project")
    try:
        outcome = publish(
            Path(args.path), endpoint=args.endpoint, token=token, project=project, bucket=args.bucket,
            run_async=args.run_async,
        )
    except PublishError as error:
        raise CliError(str(error)) from None
    print(json.dumps(outcome, indent=2, default=str))
    return 0


def cmd_project_delete(args: argparse.Namespace) -> int:
    from rhumbline import project_deletion
    from rhumbline.runtime import resources

    project = checked_project(args.project)
    engine = prepared_engine()
    act = project_deletion.delete if args.yes else project_deletion.plan
    try:
        outcome = act(project, graph=resources.graph_store(), engine=engine, reviews=args.reviews)
    except project_deletion.UnknownProject:
        raise CliError(f"no project {project!r} in this store") from None
    counts = ", ".join(f"{value:,} {name.replace('_', ' ')}" for name, value in outcome.counts.items())
    if not outcome.deleted:
        print(f"Would delete {project}: {counts} (reviews: {args.reviews}).", file=sys.stderr)
        raise CliError("nothing deleted: pass --yes to delete")
    print(f"Deleted {project}: {counts} (reviews: {args.reviews}).")
    return 0


def add_project_commands(commands: Any) -> None:
    ingest = commands.add_parser("ingest", help="parse a directory into the local code graph")
    ingest.add_argument("path", help="directory to ingest")
    ingest.add_argument("--project", help="project slug owner/repo (default: the git remote origin's owner/repo, else local/<directory name>)")
    ingest.add_argument("--clear", action="store_true", help="drop the project's graph first")
    ingest.add_argument("--json", action="store_true", help="print the summary as JSON")
    ingest.set_defaults(run=cmd_ingest)

    publish = commands.add_parser(
        "publish", help="CI: upload a checkout to S3 and ask a hosted deployment to ingest it"
    )
    publish.add_argument("path", nargs="?", default=".", help="the checkout (default: .)")
    publish.add_argument("--endpoint", required=True, help="the deployment's MCP URL, https://.../mcp")
    publish.add_argument("--token", help="API token with `write` on the project (default: $RHUMBLINE_TOKEN)")
    publish.add_argument("--project", required=True, help="project slug owner/repo")
    publish.add_argument("--bucket", required=True, help="S3 bucket the deployment reads sources from (SourceBucket)")
    publish.add_argument("--async", dest="run_async", action="store_true", help="schedule the ingest, do not wait")
    publish.set_defaults(run=cmd_publish)

    project = commands.add_parser("project", help="manage the projects of this machine's store")
    project_commands = project.add_subparsers(title="project commands", metavar="ACTION", required=True)
    delete = project_commands.add_parser(
        "delete", help="delete a project's graph, versions, snapshots and annotations (and reviews with --reviews drop)"
    )
    delete.add_argument("project", metavar="OWNER/REPO")
    delete.add_argument(
        "--reviews", required=True, choices=["keep", "drop"],
        help="keep: the project stays with its pull requests and reviews; drop: those go too",
    )
    delete.add_argument("--yes", action="store_true", help="really delete (without it: say what would be deleted)")
    delete.set_defaults(run=cmd_project_delete)
