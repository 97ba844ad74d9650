"""What names a file's bytes without parsing them, and a shard by its files: the keys that let a
run skip the shards an earlier run already parsed.

A file's id is its git blob id: where git describes the tree, the index's object id of every
tracked regular file the work tree has not modified (`git ls-files -s`: no file is read); any
other file is hashed as git hashes a blob. A shard's key digests the extractor's fingerprint and
its paths with their ids: the same key means the same files with the same bytes parsed by the same
code, so the same answer (sharded/worker.py), and a shard whose key has an answer is not parsed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from hashlib import sha1, sha256
from pathlib import Path

from rhumbline.ingest.discover import git

_REGULAR_MODES = (b"100644", b"100755")


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (`git hash-object`)."""
    return sha1(b"blob %d\0" % len(data) + data).hexdigest()


def content_ids(root: Path, paths: Sequence[str]) -> list[str | None]:
    """Each path's blob id: from git's index where it speaks for the file, else hashed (None: the
    file cannot be read, and its shard is parsed whatever an earlier run found)."""
    indexed = _indexed(root) if git.speaks_for(root) else {}
    return [indexed.get(path) or _hashed(root, path) for path in paths]


def shard_key(fingerprint: str, paths: Sequence[str], ids: Sequence[str | None]) -> str | None:
    """The shard's key, or None when a file of it has no id."""
    if any(found is None for found in ids):
        return None
    digest = sha256(fingerprint.encode())
    for path, found in zip(paths, ids, strict=True):
        digest.update(b"\0" + path.encode("utf-8", "surrogateescape") + b"\0" + str(found).encode())
    return digest.hexdigest()


def _indexed(root: Path) -> dict[str, str]:
    """Path → the index's blob id, for the tracked regular files the work tree has not changed
    (`ls-files -m` lists those whose stat differs from the index's: they are hashed instead).
    Nothing where a checkout may rewrite bytes (attributes, autocrlf): the index's blob would not
    be the work tree's bytes."""
    autocrlf = git.run_git(root, "config", "--get", "core.autocrlf")
    if autocrlf is not None and autocrlf.strip().lower() in (b"true", b"input"):
        return {}
    staged = git.run_git(root, "ls-files", "-s", "-z")
    modified = git.run_git(root, "ls-files", "-m", "-z")
    if staged is None or modified is None:
        return {}
    if b"/.gitattributes\0" in staged or b"\t.gitattributes\0" in staged:
        return {}
    changed = {path for path in modified.decode("utf-8", "surrogateescape").split("\0") if path}
    ids: dict[str, str] = {}
    for entry in staged.split(b"\0"):
        header, tab, name = entry.partition(b"\t")
        fields = header.split()
        # "<mode> <object> <stage>": stage 0 only (a merge's conflicted entries are hashed).
        if not tab or len(fields) != 3 or fields[0] not in _REGULAR_MODES or fields[2] != b"0":
            continue
        path = name.decode("utf-8", "surrogateescape")
        if path not in changed:
            ids[path] = fields[1].decode("ascii")
    return ids


def _hashed(root: Path, path: str) -> str | None:
    try:
        with open(os.path.join(root, path), "rb") as handle:
            return blob_id(handle.read())
    except OSError:
        return None
