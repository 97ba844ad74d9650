"""The files' contents each graph version keeps, for agents that read the code without a checkout
(`read_file`, `include_source` on `function` and `class`).

A version's manifest lists every file the ingest read as text (binary, undecodable, too large,
.gitignore'd and excluded files never get that far) except those that may hold secrets
(skiprules.holds_secrets), each with the sha256 of its bytes. The bytes are stored once per
project and digest: a file unchanged since an earlier version (by stat: not even read again) names
the blob already stored, and only new digests are read — from the file, checked against the digest
the parse computed, so a file that changed during the ingest is left out rather than stored with
bytes the graph does not describe. A version's manifest is written as the difference from the
newest one: a copy in one statement, then the changed paths.

A hosted run's parse workers store their own shards' new contents in the bucket (`upload`), so
the finish step neither reads nor sends them: it records the digests they stored (keep's
`uploaded`). One PUT a file either way, but spread over the Map's workers instead of queued in
the one finish function.

Runs inside the ingest's lease, as does `collect`: no other ingest of the project adds or deletes
blobs meanwhile, so a digest found stored stays stored until the manifest naming it is written.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path

from sqlalchemy import Engine

from rhumbline.ingest.discover.read import read_bytes
from rhumbline.ingest.discover.skiprules import holds_secrets
from rhumbline.ingest.facts import SourceFile
from rhumbline.stores.relational import projects
from rhumbline.stores.relational import sources as rows
from rhumbline.stores.relational.session import session_scope
from rhumbline.stores.source_blobs import BlobStore, S3Blobs

_MAX_PATH = 1024  # version_files.path
# New contents held in memory at once: read, stored, then let go.
_BATCH_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Kept:
    files: int  # in the version's manifest
    new_blobs: int  # contents stored by this ingest
    new_bytes: int
    withheld: int  # files matching a secret pattern


def listed(path: str) -> bool:
    """Whether a manifest may list the file at `path`: not too long a path, not a name that may
    hold secrets."""
    return len(path) <= _MAX_PATH and not holds_secrets(path)


def upload(blobs: S3Blobs, project_id: int, root: Path, files: Iterable[tuple[str, str]]) -> set[str]:
    """Store the bytes of `files` ((path under `root`, sha256 of its bytes)) in the bucket, under
    the keys keep() stores new contents at, in batches of bounded bytes; the digests stored. A
    file no manifest may list is left out. The finish step records every other file as stored
    (keep's `uploaded`), so one that can no longer be read as the digest says fails the upload."""
    root_text = str(root)

    def contents() -> Iterator[tuple[str, bytes]]:
        seen: set[str] = set()
        for path, digest in files:
            if digest in seen or not listed(path):
                continue
            seen.add(digest)
            data = _read_as(root_text, path, digest)
            if data is None:
                raise RuntimeError(f"{path} changed after it was parsed: its contents are not the parse's")
            yield digest, data

    done: set[str] = set()
    for batch in _batches(contents()):
        blobs.put_many(project_id, list(batch.items()))
        done.update(batch)
    return done


def keep(
    engine: Engine, blobs: BlobStore, project: str, version_id: int, root: Path, files: Sequence[SourceFile],
    uploaded: Collection[str] = (),
) -> Kept:  # fmt: skip
    """Store the manifest of version `version_id` and the contents it names that are new.
    `uploaded`: digests whose bytes are already in the bucket (`upload`, by a hosted run's
    workers): recorded as stored without reading or sending them again."""
    if uploaded and blobs.inline:
        raise ValueError("contents uploaded to a bucket, but this ingest keeps them in the relational store")
    entries = {f.path: f for f in files if len(f.path) <= _MAX_PATH}
    withheld = [path for path in entries if holds_secrets(path)]
    for path in withheld:
        del entries[path]
    with session_scope(engine) as session:
        project_id = projects.get_or_create(session, project).id
        previous = rows.latest_manifest(session, project_id)
        base, listed = previous if previous is not None else (None, {})
        # A file listed as is by the newest manifest names a blob that is stored (only blobs no
        # manifest names are collected): nothing to check or write for it.
        changed = {p: f for p, f in entries.items() if listed.get(p) != (f.content_hash, f.size)}
        stored = rows.stored_digests(session, project_id, [f.content_hash for f in changed.values()])
    root_text = str(root)
    recorded: dict[str, int] = {}  # uploaded digest → size

    def new_contents() -> Iterator[tuple[str, bytes]]:
        for path, source in list(changed.items()):
            digest = source.content_hash
            if digest in stored:
                continue
            stored.add(digest)
            if digest in uploaded:
                recorded[digest] = source.size
                continue
            data = _read_as(root_text, path, digest)
            if data is None:
                del entries[path], changed[path]  # gone or changed since it was parsed
                stored.discard(digest)
                continue
            yield digest, data

    added = added_bytes = 0
    for batch in _batches(new_contents()):
        added, added_bytes = added + len(batch), added_bytes + _store(engine, blobs, project_id, batch)
    if recorded:
        with session_scope(engine) as session:
            rows.add_blobs(session, project_id, [(digest, size, None) for digest, size in recorded.items()])
        added, added_bytes = added + len(recorded), added_bytes + sum(recorded.values())
    dropped = sorted(p for p in listed if p not in entries or p in changed)
    with session_scope(engine) as session:
        rows.save_manifest(
            session, version_id, [rows.Entry(p, f.content_hash, f.size) for p, f in sorted(changed.items())],
            base=base, dropped=dropped,
        )  # fmt: skip
    return Kept(len(entries), added, added_bytes, len(withheld))


def _read_as(root_text: str, path: str, digest: str) -> bytes | None:
    """The bytes of the file at `path`, if they are still those of `digest`."""
    data = read_bytes(root_text, path)
    return data if isinstance(data, bytes) and sha256(data).hexdigest() == digest else None


def _batches(contents: Iterable[tuple[str, bytes]]) -> Iterator[dict[str, bytes]]:
    """(digest, bytes) pairs in batches of about _BATCH_BYTES: one batch held at a time."""
    batch: dict[str, bytes] = {}
    pending = 0
    for digest, data in contents:
        batch[digest] = data
        pending += len(data)
        if pending >= _BATCH_BYTES:
            yield batch
            batch, pending = {}, 0
    if batch:
        yield batch


def _store(engine: Engine, blobs: BlobStore, project_id: int, batch: dict[str, bytes]) -> int:
    """Store a batch of new blobs (the bytes first, then the rows saying they exist)."""
    blobs.put_many(project_id, list(batch.items()))
    with session_scope(engine) as session:
        rows.add_blobs(
            session, project_id, [(d, len(data), data if blobs.inline else None) for d, data in batch.items()]
        )
    return sum(map(len, batch.values()))


def collect(engine: Engine, blobs: BlobStore, project: str) -> int:
    """Delete the project's blobs no version names any more (their versions were pruned or
    failed). The objects go first: a row whose object could not be deleted stays, and the next
    collection tries again. Returns how many were deleted."""
    with session_scope(engine) as session:
        found = projects.get(session, project)
        if found is None:
            return 0
        project_id = found.id
        doomed = rows.unreferenced(session, project_id)
    if not doomed:
        return 0
    blobs.delete_many(project_id, doomed)
    with session_scope(engine) as session:
        rows.delete_blobs(session, project_id, doomed)
    return len(doomed)


def discard(engine: Engine, version_id: int) -> None:
    """A failed version names no file (its blobs go at the next collection)."""
    with session_scope(engine) as session:
        rows.discard_manifest(session, version_id)
