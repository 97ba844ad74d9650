"""Stat-based change detection, as git's index does it: unchanged files are not read again.

Each version's snapshot records, per file, what phase 1 found (language, content hash, line
count) with the file's stat stamp (size, mtime_ns, ctime_ns, inode) taken before it was read. The
next ingest stats every file; a file whose stamp equals its recorded one is taken as unchanged:
its hash and line count are the recorded ones and its facts come from the cache, without reading
a byte. ctime cannot be set by tools (`touch -d`, tar, rsync set mtime), so a rewrite that keeps
size and mtime still changes the stamp.

The racy case (git's "racily clean" entries): a file written within the filesystem's timestamp
granularity of the moment it was read can change again without changing its stamp. So an entry
is trusted only when both its times are older than the recording ingest's read start by
RACY_MARGIN_NS (generous: some filesystems keep 1-2 s timestamps); others are read and hashed.
Every ingest records fresh stamps, so such a file is trusted from the next version on.
"""

from __future__ import annotations

import os
from typing import Any

RACY_MARGIN_NS = 2_000_000_000
Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
# path → (language, content hash, line count, *stamp): a snapshot's `files` entry (partitioned.py)
FileEntry = tuple[Any, ...]


def stamp_of(full_path: str) -> Stamp | None:
    try:
        found = os.stat(full_path)
    except OSError:
        return None
    return (found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino)


class StatIndex:
    """The trusted entries of a stored version's files table."""

    def __init__(self, files: dict[str, FileEntry], read_ns: int | None) -> None:
        self._trusted: dict[str, FileEntry] = {}
        if read_ns is None:
            return
        limit = read_ns - RACY_MARGIN_NS
        for path, entry in files.items():
            if len(entry) == 7 and entry[4] < limit and entry[5] < limit:
                self._trusted[path] = entry

    def __len__(self) -> int:
        return len(self._trusted)

    def unchanged(self, path: str, stamp: Stamp | None) -> FileEntry | None:
        """The recorded entry when `stamp` proves the file unchanged since, else None."""
        entry = self._trusted.get(path)
        if entry is None or stamp is None or entry[3:] != stamp:
            return None
        return entry


def file_entry(language: str | None, content_hash: str, line_count: int, stamp: Stamp | None) -> FileEntry:
    """A files-table entry; without a stamp (stat failed) it is never trusted."""
    return (language, content_hash, line_count, *stamp) if stamp is not None else (language, content_hash)
