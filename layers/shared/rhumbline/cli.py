"""The `rhumbline` command: the whole stack on this machine, ingestion, tokens and migrations.

Each subcommand imports what it needs when it runs, so `rhumbline --help` stays instant.
Exit codes: 0 success, 1 a failure explained on stderr, 2 a usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Engine


class CliError(Exception):
    """A failure the user can act on: printed as one line, no traceback."""


# ---------------------------------------------------------------- shared steps


def prepared_engine() -> "Engine":
    """The relational store with its schema current (creating the embedded SQLite file if needed)."""
    from rhumbline.runtime import resources
    from rhumbline.stores.relational import migrate

    engine = resources.relational_engine()
    migrate.upgrade(engine)
    return engine


def default_project_slug(root: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", root.name).lstrip("._-")[:100]
    return f"local/{name or 'project'}"


def checked_project(slug: str) -> str:
    from rhumbline.vocabulary import PROJECT_PATTERN

    if not re.match(PROJECT_PATTERN, slug):
        raise CliError(f"invalid project slug {slug!r}: expected 'owner/repo' (letters, digits, '_', '.', '-')")
    return slug


# How long a command-line ingest waits for another ingest of the same project (a watcher's, a server's).
INGEST_WAIT_SECONDS = 600.0


def run_ingest(root: Path, project: str, *, clear: bool) -> Any:
    from rhumbline.config import settings
    from rhumbline.ingest.lock import IngestBusy, exclusive_ingest
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.local.progress import ProgressLine
    from rhumbline.runtime import resources

    if not root.is_dir():
        raise CliError(f"{root} is not a directory")
    engine = prepared_engine()
    progress = ProgressLine(sys.stdout) if sys.stdout.isatty() else None
    try:
        with exclusive_ingest(settings().home, project, timeout=INGEST_WAIT_SECONDS):
            return ingest_local(
                root, project, store=resources.graph_store(), engine=engine, clear=clear, progress=progress
            )
    except IngestBusy as busy:
        raise CliError(str(busy)) from None
    finally:
        if progress is not None:
            progress.finish()


def load_local_template(path: str | None) -> Any:
    from rhumbline.local.template import TemplateError, find_template, load_template

    try:
        return load_template(find_template(Path(path) if path else None))
    except TemplateError as error:
        raise CliError(str(error)) from None


def ensure_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise CliError(f"cannot listen on {host}:{port} ({error.strerror}); pass --port") from None


def endpoint_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://{shown}:{port}/mcp"


# ---------------------------------------------------------------- commands


def cmd_up(args: argparse.Namespace) -> int:
    from rhumbline.config import settings
    from rhumbline.local.devtoken import ensure_dev_token
    from rhumbline.local.server import serve

    root = Path(args.path).resolve()
    if not root.is_dir():
        raise CliError(f"{root} is not a directory")
    project = checked_project(args.project or default_project_slug(root))
    template = load_local_template(args.template)
    ensure_port_free(args.host, args.port)
    engine = prepared_engine()
    if not args.no_ingest:
        print(f"Ingesting {root} as {project} ...", flush=True)
        summary = run_ingest(root, project, clear=False)
        print(
            f"Ingested {summary.files:,} files: {summary.node_count:,} nodes, {summary.edge_count:,} edges "
            f"in {summary.duration_s:.1f} s."
        )
    token = ensure_dev_token(settings().home, engine)
    url = endpoint_url(args.host, args.port)
    print(f"\nMCP endpoint:  {url}\nToken:         {token}\n")
    print("Add it to Claude Code:")
    print(f'  claude mcp add rhumbline --transport http {url} --header "Authorization: Bearer {token}"\n', flush=True)
    stop = None
    if args.watch:
        from rhumbline.local.watch import watch_in_background

        print(f"Watching {root}: changes are re-ingested into {project}.", flush=True)
        _, stop = watch_in_background(root, lambda: run_ingest(root, project, clear=False), home=settings().home)
    try:
        serve(
            template, host=args.host, port=args.port, dispatch="inprocess", log_level=args.log_level,
            access_log=args.access_log,
        )
    finally:
        if stop is not None:
            stop.set()
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    from rhumbline.config import settings
    from rhumbline.local.watch import watch_and_ingest

    root = Path(args.path).resolve()
    if not root.is_dir():
        raise CliError(f"{root} is not a directory")
    project = checked_project(args.project or default_project_slug(root))
    if not args.no_ingest:
        print(f"Ingesting {root} as {project} ...", flush=True)
        summary = run_ingest(root, project, clear=False)
        print(f"Ingested {summary.files:,} files in {summary.duration_s:.1f} s.", flush=True)
    print(f"Watching {root} (Ctrl-C to stop).", flush=True)
    watch_and_ingest(
        root,
        lambda: run_ingest(root, project, clear=False),
        home=settings().home,
        debounce_ms=args.debounce_ms,
        report=lambda line: print(line, flush=True),
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from rhumbline.local.server import serve

    template = load_local_template(args.template)
    ensure_port_free(args.host, args.port)
    prepared_engine()
    print(f"MCP endpoint: {endpoint_url(args.host, args.port)} (dispatch: {args.dispatch})", flush=True)
    serve(
        template, host=args.host, port=args.port, dispatch=args.dispatch, log_level=args.log_level, access_log=args.access_log
    )
    return 0


def selection_from_args(args: argparse.Namespace) -> Any:
    from rhumbline.gateway.toolsets import Selection, SelectionError, parse_families

    try:
        families = parse_families(args.toolsets or "", source="--toolsets")
    except SelectionError as error:
        raise CliError(str(error)) from None
    return Selection(families=families, read_only=args.read_only)


def cmd_mcp(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from typing import get_args

    from rhumbline.admin.cli import split_csv
    from rhumbline.config import settings
    from rhumbline.contract import Scope
    from rhumbline.local.stdio import local_access, run_stdio

    scopes = tuple(split_csv(args.scopes))
    unknown = sorted(set(scopes) - set(get_args(Scope)))
    if not scopes or unknown:
        raise CliError(f"--scopes: choose from read, write, admin, cypher (not {', '.join(unknown) or 'nothing'})")
    access = local_access(scopes, selection_from_args(args))  # type: ignore[arg-type]
    # The client shows stderr to its user: no EMF blob per call there (an explicit setting wins).
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    # Before the transport claims stdout: a migration's output must not reach the protocol stream.
    prepared_engine()
    run_stdio(replace(settings(), tool_timeout=args.tool_timeout), access)
    return 0


def cmd_invoke(args: argparse.Namespace) -> int:
    from rhumbline.local.invoke import invoke, read_event
    from rhumbline.local.template import TemplateError

    template = load_local_template(args.template)
    try:
        event = read_event(args.event)
    except (OSError, ValueError) as error:
        raise CliError(f"cannot read the event from {args.event}: {error}") from None
    try:
        result, failed = invoke(template, args.target, event)
    except TemplateError as error:
        raise CliError(str(error)) from None
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 1 if failed else 0


def cmd_ingest(args: argparse.Namespace) -> int:
    root = Path(args.path).resolve()
    project = checked_project(args.project or default_project_slug(root))
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


def print_summary(summary: Any, *, as_json: bool) -> None:
    if as_json:
        print(summary.model_dump_json(indent=2))
        return
    for name, value in summary.model_dump(mode="json").items():
        print(f"  {name}: {json.dumps(value) if isinstance(value, (dict, list)) else value}")


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


# ---------------------------------------------------------------- parser


def add_server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on (default 8080)")
    parser.add_argument("--template", help="SAM template to serve (default: this checkout's template.yaml)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    parser.add_argument(
        "--access-log", action="store_true", help="log every HTTP request (off by default: a line per call is hot-path work)"
    )


def build_parser() -> argparse.ArgumentParser:
    from rhumbline.admin.cli import add_admin_commands

    parser = argparse.ArgumentParser(prog="rhumbline", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--stack",
        default=os.environ.get("RHUMBLINE_STACK") or None,
        help="run token, usage, audit and db commands in this hosted stack (its admin function, with your AWS credentials)",
    )
    parser.add_argument("--region", help="the stack's AWS region (default: your AWS configuration)")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    up = commands.add_parser("up", help="ingest a directory and serve it over MCP on this machine")
    up.add_argument("path", nargs="?", default=".", help="directory to ingest (default: .)")
    up.add_argument("--project", help="project slug owner/repo (default: local/<directory name>)")
    up.add_argument("--no-ingest", action="store_true", help="serve what is already ingested")
    up.add_argument("--watch", action="store_true", help="re-ingest the directory when its files change")
    add_server_options(up)
    up.set_defaults(run=cmd_up)

    serve = commands.add_parser("serve", help="serve the template's API locally, as `sam local start-api` would")
    add_server_options(serve)
    serve.add_argument(
        "--dispatch",
        choices=["inprocess", "invoke-api"],
        default="inprocess",
        help="how the gateway reaches tools: in-process, or boto3 through this server's Lambda Invoke API",
    )
    serve.set_defaults(run=cmd_serve)

    mcp = commands.add_parser(
        "mcp", help="serve MCP over stdio on this machine's store (for clients that start a server process)"
    )
    mcp.add_argument("--toolsets", help="comma-separated toolsets to offer: code, exploration, review, admin (default: all)")
    mcp.add_argument("--read-only", action="store_true", help="offer and accept only tools that do not write")
    mcp.add_argument(
        "--scopes", default="read,write,admin,cypher", help="the local caller's scopes (default: read,write,admin,cypher)"
    )
    mcp.add_argument(
        "--tool-timeout", type=float, default=600.0, help="seconds a tool call may take (default 600: a large ingest)"
    )
    mcp.set_defaults(run=cmd_mcp)

    invoke = commands.add_parser("invoke", help="run one function's handler on an event, as `sam local invoke` would")
    invoke.add_argument("target", metavar="TOOL", help="tool name (or function logical id)")
    invoke.add_argument("--event", required=True, help="JSON event file, or - for stdin")
    invoke.add_argument("--template", help="SAM template (default: this checkout's template.yaml)")
    invoke.set_defaults(run=cmd_invoke)

    ingest = commands.add_parser("ingest", help="parse a directory into the local code graph")
    ingest.add_argument("path", help="directory to ingest")
    ingest.add_argument("--project", help="project slug owner/repo (default: local/<directory name>)")
    ingest.add_argument("--clear", action="store_true", help="drop the project's graph first")
    ingest.add_argument("--json", action="store_true", help="print the summary as JSON")
    ingest.set_defaults(run=cmd_ingest)

    watch = commands.add_parser("watch", help="ingest a directory, then re-ingest it whenever its files change")
    watch.add_argument("path", nargs="?", default=".", help="directory to watch (default: .)")
    watch.add_argument("--project", help="project slug owner/repo (default: local/<directory name>)")
    watch.add_argument("--no-ingest", action="store_true", help="do not ingest before the first change")
    watch.add_argument(
        "--debounce-ms", type=int, default=1000, help="changes within this many ms make one re-ingest (default 1000)"
    )
    watch.set_defaults(run=cmd_watch)

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

    add_admin_commands(commands, prepared_engine)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from rhumbline.admin.cli import AdminCliError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help(sys.stderr)
        return 2
    if args.stack and not getattr(args, "stack_aware", False):
        parser.error("--stack applies to the token, usage, audit and db commands only")
    try:
        return args.run(args)
    except (CliError, AdminCliError) as error:
        print(f"rhumbline: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        # A store that is down, slow past its budget or moved on under us is the user's to act on,
        # not a traceback; the ingest was atomic, so the previous graph version is still served.
        from rhumbline.stores.graph.protocol import GraphConflict, GraphUnavailable

        if not isinstance(error, (GraphUnavailable, GraphConflict)):
            raise
        print(f"rhumbline: error: {error} (the previous graph version is still served)", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from failing at exit
        # while flushing the dead pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    finally:
        from rhumbline.runtime import resources

        resources.reset()


if __name__ == "__main__":
    sys.exit(main())
