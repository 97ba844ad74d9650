"""One ingest of a project at a time on this machine: a lock file per project under RHUMBLINE_HOME.

Local ingests come from `rhumbline ingest`, the `ingest` tool of a local server or stdio session,
and `rhumbline watch`; they may run in different processes, so the lock is a file (filelock). A
hosted ingest runs in its own Lambda, where the graph store refuses a concurrent write instead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class IngestBusy(Exception):
    """Another ingest of the project held the lock for longer than the caller would wait."""


@contextmanager
def exclusive_ingest(home: Path, project: str, *, timeout: float) -> Iterator[None]:
    from filelock import FileLock, Timeout

    # A digest names the file: a slug's '/' and case must not matter to the file system.
    path = home / "locks" / f"ingest-{hashlib.sha256(project.encode()).hexdigest()[:24]}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path)
    try:
        lock.acquire(timeout=max(timeout, 0))
    except Timeout:
        raise IngestBusy(f"another ingest of '{project}' is running on this machine; try again when it ends") from None
    try:
        yield
    finally:
        lock.release()
