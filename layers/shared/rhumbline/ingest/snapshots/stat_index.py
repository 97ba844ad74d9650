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

Files phase 1 skipped for their bytes (binary, too large, not decodable: Django's 1,226 `.mo`
files) are recorded the same way, as (reason, *stamp): one whose stamp is unchanged is skipped
again without being read. Those reasons depend on the ingest code too (the binary probe, the size
limit, the language of a path), so the pipeline trusts them only when the stored version was built
by the same code (inputs_key.InputsKey.context).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from rhumbline.ingest.discover import skiprules
from rhumbline.ingest.facts import SkippedFile, SourceFile

RACY_MARGIN_NS = 2_000_000_000
Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
# path → (language, content hash, line count, *stamp): a snapshot's `files` entry (format.py)
FileEntry = tuple[Any, ...]
# path → (reason, *stamp): a snapshot's `skipped` entry
SkipEntry = tuple[Any, ...]
# Why phase 1 skipped a file, when that follows from its bytes alone (an unreadable file or a
# failed extraction may not fail again, a build copy's verdict depends on its map and sources:
# those are read again).
BYTE_REASONS = frozenset((skiprules.BINARY, skiprules.TOO_LARGE, skiprules.UNDECODABLE))
_STAMP_WIDTH = 4


def stamp_of(full_path: str) -> Stamp | None:
    try:
        found = os.stat(full_path)
    except OSError:
        return None
    return (found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino)


class StatIndex:
    """The trusted entries of a stored version's files table (or, `stamp_at=1`, of its skipped
    files): the stamp is the last four values of an entry, from `stamp_at`."""

    def __init__(self, files: dict[str, FileEntry], read_ns: int | None, *, stamp_at: int = 3) -> None:
        self._trusted: dict[str, FileEntry] = {}
        self._stamp_at = stamp_at
        if read_ns is None:
            return
        limit = read_ns - RACY_MARGIN_NS
        mtime, ctime = stamp_at + 1, stamp_at + 2
        for path, entry in files.items():
            if len(entry) == stamp_at + _STAMP_WIDTH and entry[mtime] < limit and entry[ctime] < limit:
                self._trusted[path] = entry

    def __len__(self) -> int:
        return len(self._trusted)

    def unchanged(self, path: str, stamp: Stamp | None) -> FileEntry | None:
        """The recorded entry when `stamp` proves the file unchanged since, else None."""
        entry = self._trusted.get(path)
        if entry is None or stamp is None or entry[self._stamp_at :] != stamp:
            return None
        return entry


def file_entry(language: str | None, content_hash: str, line_count: int, stamp: Stamp | None) -> FileEntry:
    """A files-table entry; without a stamp (stat failed) it is never trusted."""
    return (language, content_hash, line_count, *stamp) if stamp is not None else (language, content_hash)


def skip_entry(reason: str, stamp: Stamp | None) -> SkipEntry | None:
    """A skipped-files entry, or None when the skip is not worth recording (see BYTE_REASONS)."""
    return (reason, *stamp) if stamp is not None and reason in BYTE_REASONS else None


def files_table(sources: Sequence[SourceFile], stamps: Mapping[str, Stamp | None]) -> dict[str, FileEntry]:
    """A version's files table: each read file's entry with the stamp this ingest took."""
    return {
        s.path: file_entry(s.language, s.content_hash, s.line_count, stamps.get(s.path)) for s in sources
    }


def skipped_table(skipped: Sequence[SkippedFile], stamps: Mapping[str, Stamp | None]) -> dict[str, SkipEntry]:
    """A version's skipped-files table: the files phase 1 skipped for their bytes, stamped."""
    entries = ((s.path, skip_entry(s.reason, stamps.get(s.path))) for s in skipped)
    return {path: entry for path, entry in entries if entry is not None}
