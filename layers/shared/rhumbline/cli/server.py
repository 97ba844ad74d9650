"""`rhumbline up`, `serve`, `watch`, `mcp` and `invoke`: the stack on this machine."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from rhumbline.cli.common import CliError, data_directory_notice, prepared_engine, project_for, run_ingest


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


def cmd_up(args: argparse.Namespace) -> int:
    from rhumbline.config import settings
    from rhumbline.local.devtoken import ensure_dev_token
    from rhumbline.local.server import serve

    root = Path(args.path).resolve()
    if not root.is_dir():
        raise CliError(f"{root} is not a directory")
    # The `ingest` tool may read paths under the directory this server was started for.
    if not os.environ.get("RHUMBLINE_INGEST_ROOTS", "").strip():
        os.environ["RHUMBLINE_INGEST_ROOTS"] = str(root)
        settings.cache_clear()
    project = project_for(root, args.project)
    template = load_local_template(args.template)
    ensure_port_free(args.host, args.port)
    print(data_directory_notice(), flush=True)
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
    from rhumbline.local.watch import stop_on_signals, watch_and_ingest

    root = Path(args.path).resolve()
    if not root.is_dir():
        raise CliError(f"{root} is not a directory")
    project = project_for(root, args.project)
    if not args.no_ingest:
        print(f"Ingesting {root} as {project} ...", flush=True)
        summary = run_ingest(root, project, clear=False)
        print(f"Ingested {summary.files:,} files in {summary.duration_s:.1f} s.", flush=True)
    stop = stop_on_signals()
    print(f"Watching {root} (Ctrl-C to stop).", flush=True)
    watch_and_ingest(
        root,
        lambda: run_ingest(root, project, clear=False),
        home=settings().home,
        stop=stop,
        debounce_ms=args.debounce_ms,
        report=lambda line: print(line, flush=True),
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from rhumbline.local.server import serve

    template = load_local_template(args.template)
    ensure_port_free(args.host, args.port)
    print(data_directory_notice(), flush=True)
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

    from rhumbline.admin.cli import split_csv
    from rhumbline.config import settings
    from rhumbline.contract import SCOPES
    from rhumbline.local.stdio import local_access, run_stdio

    named = split_csv(args.scopes)
    unknown = sorted(set(named) - set(SCOPES))
    if not named or unknown:
        raise CliError(f"--scopes: choose from {', '.join(SCOPES)} (not {', '.join(unknown) or 'nothing'})")
    access = local_access(tuple(scope for scope in SCOPES if scope in named), selection_from_args(args))
    # The client shows stderr to its user: no EMF blob per call there (an explicit setting wins).
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    # stderr: stdout is the protocol stream. The client shows it to its user.
    print(data_directory_notice(), file=sys.stderr, flush=True)
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
    from rhumbline.config import settings
    from rhumbline.local.devtoken import ensure_dev_token

    try:
        result, failed = invoke(
            template, args.target, event, dev_token=lambda: ensure_dev_token(settings().home, prepared_engine())
        )
    except TemplateError as error:
        raise CliError(str(error)) from None
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 1 if failed else 0


def add_server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on (default 8080)")
    parser.add_argument("--template", help="SAM template to serve (default: this checkout's template.yaml)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    parser.add_argument(
        "--access-log", action="store_true", help="log every HTTP request (off by default: a line per call is hot-path work)"
    )


def add_server_commands(commands: Any) -> None:
    up = commands.add_parser("up", help="ingest a directory and serve it over MCP on this machine")
    up.add_argument("path", nargs="?", default=".", help="directory to ingest (default: .)")
    up.add_argument("--project", help="project slug owner/repo (default: the git remote origin's owner/repo, else local/<directory name>)")
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

    watch = commands.add_parser("watch", help="ingest a directory, then re-ingest it whenever its files change")
    watch.add_argument("path", nargs="?", default=".", help="directory to watch (default: .)")
    watch.add_argument("--project", help="project slug owner/repo (default: the git remote origin's owner/repo, else local/<directory name>)")
    watch.add_argument("--no-ingest", action="store_true", help="do not ingest before the first change")
    watch.add_argument(
        "--debounce-ms", type=int, default=1000, help="changes within this many ms make one re-ingest (default 1000)"
    )
    watch.set_defaults(run=cmd_watch)
