"""The administration subcommands of `rhumbline`: token, usage, audit, db. Each runs one or more
admin commands (commands.py) here or, with `--stack NAME`, in that stack's admin function."""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections.abc import Callable, Iterator
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Engine

COUNT_COLUMNS = ("calls", "billable", "denied", "invalid", "errors", "duration_ms", "result_bytes")


class AdminCliError(Exception):
    """A failure the administrator can act on: printed as one line (cli.main)."""


def run_admin(args: argparse.Namespace, command: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run one admin command where --stack says: this machine's store, or the stack's admin function."""
    from rhumbline.admin.client import LocalAdmin, StackAdmin
    from rhumbline.admin.commands import AdminError

    runner = StackAdmin(args.stack, region=args.region) if args.stack else LocalAdmin(args.prepared_engine)
    try:
        return runner.run(command, arguments)
    except AdminError as error:
        raise AdminCliError(error.message) from None


# ---------------------------------------------------------------- values


def limit_value(text: str) -> int | str:
    """A limit on the command line: a whole number, or `none` for no limit."""
    if text.strip().lower() == "none":
        return "none"
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, or none; not {text!r}")
    return int(text)


def day_value(text: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a UTC day YYYY-MM-DD, not {text!r}") from None


def days_value(text: str) -> int:
    """An age: `90d`, `90 days` or `90`."""
    found = re.fullmatch(r"\s*(\d+)\s*(d|days?)?\s*", text)
    if found is None or int(found.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"expected an age in days such as 90d, not {text!r}")
    return int(found.group(1))


def split_csv(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def when(moment: str | None) -> str:
    if not moment:
        return "-"
    return datetime.fromisoformat(moment).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%MZ")


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def limits_text(token: dict[str, Any]) -> tuple[str, str]:
    rate = "-"
    if token.get("rate_per_minute"):
        rate = f"{token['rate_per_minute']}/min burst {token.get('rate_burst') or token['rate_per_minute']}"
    quota = f"{token['monthly_quota']}/month" if token.get("monthly_quota") else "-"
    return rate, quota


# ---------------------------------------------------------------- token


def limit_arguments(args: argparse.Namespace) -> dict[str, Any]:
    return {"rate_per_minute": args.rate_limit, "rate_burst": args.burst, "monthly_quota": args.monthly_quota}


def cmd_token_create(args: argparse.Namespace) -> int:
    created = run_admin(
        args,
        "token.create",
        {
            "principal": args.principal,
            "projects": split_csv(args.projects),
            "scopes": split_csv(args.scopes),
            "expires_in_days": args.expires_in_days,
            "description": args.description,
            "toolsets": split_csv(args.toolsets) if args.toolsets else None,
            **limit_arguments(args),
        },
    )
    expires = when(created["expires_at"]) if created["expires_at"] else "never"
    rate, quota = limits_text(created)
    print(
        f"Created token {created['id']} for {created['principal']} (expires {expires}; rate limit {rate}; "
        f"quota {quota}).",
        file=sys.stderr,
    )
    print("The token is shown once; store it now:", file=sys.stderr)
    print(created["token"])
    return 0


def cmd_token_update(args: argparse.Namespace) -> int:
    updated = run_admin(
        args, "token.update", {"token_id": args.token_id, "description": args.description, **limit_arguments(args)}
    )
    rate, quota = limits_text(updated)
    print(f"Updated {updated['id']}: rate limit {rate}; quota {quota}.")
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    listed = run_admin(args, "token.list", {})
    if args.json:
        print(json.dumps(listed, indent=2))
        return 0
    rows = [
        [
            token["id"],
            token["principal"],
            ",".join(token["projects"]),
            ",".join(token["scopes"]),
            *limits_text(token),
            *(when(token[key]) for key in ("created_at", "expires_at", "revoked_at", "last_used_at")),
        ]
        for token in listed["tokens"]
    ]
    print_table(
        ["ID", "PRINCIPAL", "PROJECTS", "SCOPES", "RATE LIMIT", "QUOTA", "CREATED", "EXPIRES", "REVOKED", "LAST USED"],
        rows,
    )
    if listed["total"] > len(rows):
        print(f"({len(rows)} newest of {listed['total']} tokens shown)", file=sys.stderr)
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    run_admin(args, "token.revoke", {"token_id": args.token_id})
    print(f"Revoked {args.token_id}: its next tool call is refused.")
    return 0


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    upgraded = run_admin(args, "db.upgrade", {})
    print(f"Database schema is at revision {upgraded['revision']}.")
    return 0


# ---------------------------------------------------------------- usage


def usage_pages(args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """Every page of the report, in order."""
    filters = {
        "since": args.since, "until": args.until, "principal": args.principal, "project": args.project,
        "tool": args.tool, "token_id": args.token, "by": split_csv(args.by),
    }  # fmt: skip
    offset = 0
    while True:
        page = run_admin(args, "usage", {**filters, "offset": offset})
        yield page
        offset += len(page["rows"])
        if not page["rows"] or offset >= page["total"]:
            return


def cmd_usage(args: argparse.Namespace) -> int:
    pages = list(usage_pages(args))
    first = pages[0]
    by: list[str] = first["by"]
    rows = [row for page in pages for row in page["rows"]]
    if args.format == "json":
        print(json.dumps({**first, "rows": rows, "offset": 0}, indent=2))
        return 0
    if args.format == "csv":
        write_csv(sys.stdout, first["since"], first["until"], by, rows)
        return 0
    header = [column.upper() for column in (*by, *COUNT_COLUMNS)]
    table = [[cell(row[column]) for column in (*by, *COUNT_COLUMNS)] for row in rows]
    table.append(["TOTAL", *([""] * (len(by) - 1)), *(cell(first["totals"][column]) for column in COUNT_COLUMNS)])
    print(f"Usage {first['since']} to {first['until']} (UTC days, inclusive); billable = outcome ok.")
    print_table(header, table)
    return 0


def cell(value: Any) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def write_csv(out: Any, since: str, until: str, by: list[str], rows: list[dict[str, Any]]) -> None:
    """RFC 4180 CSV with a header row: since, until (the report's UTC days, ISO dates), the `by`
    columns, then the counts; plain numbers, no thousands separators; an empty project is a call
    that named none."""
    writer = csv.writer(out)
    writer.writerow(["since", "until", *by, *COUNT_COLUMNS])
    for row in rows:
        writer.writerow([since, until, *(row[column] for column in by), *(row[column] for column in COUNT_COLUMNS)])


# ---------------------------------------------------------------- audit


def cmd_audit_prune(args: argparse.Namespace) -> int:
    deleted = 0
    while True:
        pruned = run_admin(args, "audit.prune", {"older_than_days": args.older_than})
        deleted += pruned["deleted"]
        if pruned["done"]:
            break
    print(f"Deleted {deleted} audit rows from before {when(pruned['before'])}; usage rollups are kept.")
    return 0


# ---------------------------------------------------------------- parser


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rate-limit", type=limit_value, metavar="N|none", help="calls per minute")
    parser.add_argument("--burst", type=limit_value, metavar="N|none", help="calls at once (default: the rate per minute)")
    parser.add_argument("--monthly-quota", type=limit_value, metavar="N|none", help="calls per calendar month (UTC)")


def add_admin_commands(commands: Any, prepared_engine: Callable[[], "Engine"]) -> None:
    """Add token, usage, audit and db to `rhumbline`'s subcommands."""
    token = commands.add_parser("token", help="create, list, update and revoke API tokens")
    token_commands = token.add_subparsers(title="token commands", metavar="ACTION", required=True)
    create = token_commands.add_parser("create", help="create a token (printed once)")
    create.add_argument("--principal", required=True, help="who the token is for, e.g. an email")
    create.add_argument("--projects", required=True, help="comma-separated owner/repo slugs, or *")
    create.add_argument("--scopes", required=True, help="comma-separated: read, write, admin, cypher")
    create.add_argument("--expires-in-days", type=int, help="expiry in days (default: never)")
    create.add_argument("--description", help="what the token is for")
    create.add_argument(
        "--toolsets", help="default toolsets of its clients (code, exploration, review, admin); a client may choose others"
    )
    add_limit_options(create)
    create.set_defaults(run=cmd_token_create)
    listing = token_commands.add_parser("list", help="list tokens and their limits (never their secrets)")
    listing.add_argument("--json", action="store_true", help="print the tokens as JSON")
    listing.set_defaults(run=cmd_token_list)
    update = token_commands.add_parser("update", help="change a token's limits or description")
    update.add_argument("token_id", metavar="ID")
    add_limit_options(update)
    update.add_argument("--description", help="what the token is for")
    update.set_defaults(run=cmd_token_update)
    revoke = token_commands.add_parser("revoke", help="revoke a token")
    revoke.add_argument("token_id", metavar="ID")
    revoke.set_defaults(run=cmd_token_revoke)

    usage = commands.add_parser("usage", help="calls per day, tool, principal or project, from the usage rollups")
    usage.add_argument("--since", type=day_value, help="first UTC day, YYYY-MM-DD (default: the 1st of this month)")
    usage.add_argument("--until", type=day_value, help="last UTC day, inclusive (default: today)")
    usage.add_argument("--principal", help="only this principal's calls")
    usage.add_argument("--project", help="only calls on this project (owner/repo)")
    usage.add_argument("--tool", help="only calls of this tool")
    usage.add_argument("--token", help="only this token's calls (its id, tk_...)")
    usage.add_argument("--by", default="day", help="one row per: day, tool, principal, project, token_id (comma-separated)")
    usage.add_argument("--format", choices=["table", "csv", "json"], default="table")
    usage.set_defaults(run=cmd_usage)

    audit = commands.add_parser("audit", help="the audit log")
    audit_commands = audit.add_subparsers(title="audit commands", metavar="ACTION", required=True)
    prune = audit_commands.add_parser("prune", help="delete old audit rows (usage rollups are kept)")
    prune.add_argument("--older-than", type=days_value, required=True, metavar="AGE", help="e.g. 90d")
    prune.set_defaults(run=cmd_audit_prune)

    db = commands.add_parser("db", help="database maintenance")
    db_commands = db.add_subparsers(title="db commands", metavar="ACTION", required=True)
    db_commands.add_parser("upgrade", help="apply schema migrations").set_defaults(run=cmd_db_upgrade)
    for admin_parser in (token, usage, audit, db):
        admin_parser.set_defaults(stack_aware=True, prepared_engine=prepared_engine)
