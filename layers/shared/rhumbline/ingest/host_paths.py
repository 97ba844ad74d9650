"""Which directories of the server's own machine the `ingest` tool may read (`path`, local mode).

A path is resolved first (symlinks followed, `..` collapsed), then must lie under one of the
configured roots (`Settings.ingest_roots`): what the server was started for, not the whole
machine. The kernel's pseudo-filesystems are refused even under a root. The roots are checked
before the path's existence, so a refusal says nothing about what exists outside them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rhumbline.errors import Forbidden, InvalidArguments

# Files there are the kernel's view of processes and devices (environment variables, memory maps,
# sockets): never source code.
SYSTEM_DIRECTORIES = (Path("/proc"), Path("/sys"), Path("/dev"))


def _within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def ingestible_directory(path: str, roots: Sequence[Path]) -> Path:
    """The resolved directory `path` names, when the server may ingest it; else the error saying why."""
    given = Path(path).expanduser()
    lexical = Path(os.path.abspath(given))
    try:
        resolved = Path(os.path.realpath(given))
    except OSError as error:  # a link the server may not read (/proc/1/root)
        resolved = None
        unresolved = f"'{path}' cannot be resolved on the server ({error.strerror})"
    link = f" (a symlink to {resolved})" if resolved is not None and resolved != lexical else ""
    for candidate in (lexical, resolved):
        system = next((d for d in SYSTEM_DIRECTORIES if candidate is not None and _within(candidate, d)), None)
        if system is not None:
            raise Forbidden(f"'{path}'{link} is in {system}, which is never ingested: it is not source code")
    if resolved is None:
        raise Forbidden(unresolved)
    if not any(_within(resolved, Path(os.path.realpath(root))) for root in roots):
        shown = ", ".join(str(root) for root in roots) or "(none)"
        raise Forbidden(
            f"'{path}'{link} is outside the directories this server ingests from: {shown}",
            details={
                "roots": [str(root) for root in roots],
                "hint": "start the server for that directory (`rhumbline up PATH`), or list it in RHUMBLINE_INGEST_ROOTS",
            },
        )
    if not resolved.is_dir():
        raise InvalidArguments(f"'{path}' is not a directory on the server")
    return resolved
