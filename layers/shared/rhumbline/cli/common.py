"""What the `rhumbline` commands share: the error they print, the store they open, project slugs
and the local ingest."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Engine


class CliError(Exception):
    """A failure the user can act on: printed as one line, no traceback."""


def data_directory_notice() -> str:
    """Which store a command opens, said at its start: a store is found by RHUMBLINE_HOME alone,
    and one that does not exist yet is made empty, so a server started elsewhere says so."""
    from rhumbline.config import settings

    current = settings()
    notice = f"Data directory: {current.home} (RHUMBLINE_HOME)"
    if not current.database_url and not (current.home / "rhumbline.sqlite3").exists():
        notice += " - new and empty: point RHUMBLINE_HOME at the directory you ingested with to serve that store"
    return notice


def prepared_engine() -> "Engine":
    """The relational store with its schema current (creating the embedded SQLite file if needed)."""
    from rhumbline.runtime import resources
    from rhumbline.stores.relational import migrate

    engine = resources.relational_engine()
    migrate.upgrade(engine)
    return engine


def checked_project(slug: str) -> str:
    from rhumbline.vocabulary import PROJECT_PATTERN

    if not re.match(PROJECT_PATTERN, slug):
        raise CliError(f"invalid project slug {slug!r}: expected 'owner/repo' (letters, digits, '_', '.', '-')")
    return slug


def project_for(root: Path, explicit: str | None) -> str:
    """The project a command works on; a default is said on stderr with where it came from."""
    from rhumbline.ingest.project_slug import directory_project_slug, remote_project

    if explicit:
        return checked_project(explicit)
    remote = remote_project(root)
    project = checked_project(remote or directory_project_slug(root))
    origin = "the git remote 'origin'" if remote else "the directory's name: no git remote 'origin' names owner/repo"
    print(f"Project: {project} (from {origin}; --project to choose another)", file=sys.stderr, flush=True)
    return project


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
        holder = f"rhumbline ingest (pid {os.getpid()} on {socket.gethostname()})"
        with exclusive_ingest(settings().home, project, timeout=INGEST_WAIT_SECONDS):
            return ingest_local(
                root, project, store=resources.graph_store(), engine=engine, clear=clear, progress=progress,
                holder=holder,
            )
    except IngestBusy as busy:
        raise CliError(str(busy)) from None
    finally:
        if progress is not None:
            progress.finish()


def print_summary(summary: Any, *, as_json: bool) -> None:
    if as_json:
        print(summary.model_dump_json(indent=2))
        return
    for name, value in summary.model_dump(mode="json").items():
        print(f"  {name}: {json.dumps(value) if isinstance(value, (dict, list)) else value}")
