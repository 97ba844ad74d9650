"""Where parse workers leave each file's facts: blobs under keys made of what decides them.

A key is `<extractor fingerprint>/<language>/<sha256 of the file's bytes>`: the same bytes parsed
by the same extractor code give the same facts (facts_codec.py), so a blob is written once and
read by every later version, project or shard that meets those bytes again. Keys are checked
against that form before any path is made of them: a key can name nothing outside the store.
Writes go to a temporary name and are renamed into place, so a reader never sees half a blob and
two workers writing one key leave one whole copy. After an ingest the store keeps only the blobs it
used (keep_only): the next version of the tree finds its unchanged files' facts, and the store
never grows past one tree's facts.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Set
from pathlib import Path
from typing import Protocol

_KEY = re.compile(r"^([0-9a-f]{16})/([a-z][a-z0-9_]{0,31})/([0-9a-f]{64})$")


def facts_key(fingerprint: str, language: str, content_hash: str) -> str:
    return checked_key(f"{fingerprint}/{language}/{content_hash}")


def checked_key(key: str) -> str:
    if not _KEY.match(key):
        raise ValueError(f"not a facts key: {key!r}")
    return key


class FactsStore(Protocol):
    """What a worker and the reader of its answers need of a facts store: FactsDirectory here,
    FactsBucket (facts_bucket.py) in S3."""

    def has(self, key: str) -> bool: ...
    def get(self, key: str) -> bytes: ...
    def put(self, key: str, blob: bytes) -> None: ...
    def keep_only(self, fingerprint: str, keys: Set[str] | None = None) -> None: ...


class FactsDirectory:
    """A facts store in a local directory (a Lambda's /tmp, a machine's RHUMBLINE_HOME)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / checked_key(key)

    def has(self, key: str) -> bool:
        return self._path(key).is_file()

    def get(self, key: str) -> bytes:
        return self._path(key).read_bytes()

    def put(self, key: str, blob: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(blob)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def keep_only(self, fingerprint: str, keys: Set[str] | None = None) -> None:
        """Drop the blobs of every other extractor version (no ingest asks for them again) and,
        given `keys`, every blob of this one not among them: the store stays the size of the
        facts of one tree."""
        if not self.root.is_dir():
            return
        for entry in self.root.iterdir():
            if entry.is_dir() and entry.name != fingerprint and re.fullmatch(r"[0-9a-f]{16}", entry.name):
                shutil.rmtree(entry, ignore_errors=True)
        if keys is None or not (self.root / fingerprint).is_dir():
            return
        for path in (self.root / fingerprint).glob("*/*"):
            if f"{fingerprint}/{path.parent.name}/{path.name}" not in keys:
                path.unlink(missing_ok=True)
