"""The `rhumbline` command: the whole stack on this machine, ingestion, tokens and migrations.

Each subcommand imports what it needs when it runs, so `rhumbline --help` stays instant.
Exit codes: 0 success, 1 a failure explained on stderr, 2 a usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from rhumbline.cli.common import CliError, prepared_engine
from rhumbline.extras import missing_extra


def build_parser() -> argparse.ArgumentParser:
    from rhumbline.admin.cli import add_admin_commands
    from rhumbline.cli.projects import add_project_commands
    from rhumbline.cli.server import add_server_commands

    parser = argparse.ArgumentParser(prog="rhumbline", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--stack",
        default=os.environ.get("RHUMBLINE_STACK") or None,
        help="run token, usage, audit and db commands in this hosted stack (its admin function, with your AWS credentials)",
    )
    parser.add_argument("--region", help="the stack's AWS region (default: your AWS configuration)")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    add_server_commands(commands)
    add_project_commands(commands)
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
    except ModuleNotFoundError as error:
        needed = missing_extra(error)
        if needed is None:
            raise
        print(f"rhumbline: error: {needed}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from failing at exit
        # while flushing the dead pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:
        # A store that is down, slow past its budget or moved on under us is the user's to act on,
        # not a traceback; the ingest was atomic, so the previous graph version is still served.
        from rhumbline.runtime.failures import expected_failure
        from rhumbline.stores.graph.protocol import GraphConflict, GraphUnavailable

        if isinstance(error, (GraphUnavailable, GraphConflict)):
            print(f"rhumbline: error: {error} (the previous graph version is still served)", file=sys.stderr)
            return 1
        failure = expected_failure(error)
        if failure is None:
            raise
        print(f"rhumbline: error: {failure.message}", file=sys.stderr)
        return 1
    finally:
        from rhumbline.runtime import resources

        resources.reset()


if __name__ == "__main__":
    sys.exit(main())
