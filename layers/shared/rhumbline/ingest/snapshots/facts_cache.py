"""The facts cache: phase 1 parses only files whose bytes it has not seen.

Phase-1 facts are cached per project in the relational store (`ingested_files`), keyed by the
file's content hash, its language and the extractor fingerprint (a hash of the ingest package's
sources: new extractor code never reuses old facts). A re-ingest stats every file: one whose stat
stamp is that of the stored version (stat_index.py) is neither read nor hashed; the others are
read and hashed, and reuse the cached facts of bytes already seen (also under another path: a
rename parses nothing). A file skipped for its bytes (binary, too large) whose stamp is unchanged
is skipped again unread. Only the rest is parsed — in the process pool when there are many.

Cached facts are pickled NamedTuples and loaded by a restricted unpickler that only constructs
classes from `rhumbline.ingest.*` (tuples of plain values): a tampered row cannot run code
(facts_codec.py, which also keeps calls apart so a partial rebuild need not decode them).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from functools import lru_cache
from hashlib import blake2b, sha256
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, select

from rhumbline.ingest.discover.parallel import Outcome, Parse, Progress, read_all_encoded
from rhumbline.ingest.discover.read import read_bytes, read_source, source_from_bytes
from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.facts_codec import decode_calls, decode_facts, encode_facts, is_split
from rhumbline.ingest.languages import has_extractor, language_in
from rhumbline.ingest.snapshots.stat_index import FileEntry, Stamp, StatIndex, stamp_of
from rhumbline.stores.relational import projects
from rhumbline.stores.relational.schema.ingest import IngestedFile
from rhumbline.stores.relational.session import session_scope

# Rows per INSERT / DELETE statement when the cache is updated.
_WRITE_CHUNK = 500
_MAX_PATH = 1024

@lru_cache(maxsize=1)
def extractor_fingerprint() -> str:
    """16 hex digits that change whenever any source file of the ingest package changes (its
    compiled files when a deployment ships no sources)."""
    package = Path(__file__).resolve().parent.parent  # the ingest package
    digest = blake2b(digest_size=8)
    for path in sorted(package.rglob("*.py")) or sorted(package.rglob("*.pyc")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass
class ReadStats:
    parsed: int = 0  # files a language extractor ran on
    reused: int = 0  # files whose facts came from the cache
    seconds_reading: float = 0.0


class FactCache:
    """A project's cached phase-1 facts: loaded before an ingest, updated after it."""

    def __init__(self, project: str, rows: Iterable[tuple[str, str, str | None, str, bytes | None]]):
        self.project = project
        self.fingerprint = extractor_fingerprint()
        # path → (content hash, language, fingerprint): what the table holds, to write only changes.
        self._stored: dict[str, tuple[str, str | None, str]] = {}
        # (content hash, language) → compressed facts, current fingerprint only; decoded on a hit.
        self._blobs: dict[tuple[str, str | None], bytes] = {}
        for path, content_hash, language, fingerprint, facts in rows:
            self._stored[path] = (content_hash, language, fingerprint)
            if facts is not None and fingerprint == self.fingerprint:
                self._blobs[(content_hash, language)] = facts
        self._new_blobs: dict[tuple[str, str | None], bytes] = {}
        self.stats = ReadStats()
        # Files whose stat proves them unchanged since the stored version (stat_index.py), the
        # same for files it skipped for their bytes, and the stamps this ingest took, for the
        # next one.
        self.known = StatIndex({}, None)
        self.known_skipped = StatIndex({}, None, stamp_at=1)
        self.stamps: dict[str, Stamp | None] = {}
        # path → its cached blob, when read_all left the calls out (complete() reads them).
        self._deferred: dict[str, bytes] = {}
        self._root: Path = Path()

    @classmethod
    def empty(cls, project: str) -> FactCache:
        return cls(project, ())

    @classmethod
    def load(cls, engine: Engine, project: str) -> FactCache:
        with session_scope(engine) as session:
            found = projects.get(session, project)
            if found is None:
                return cls.empty(project)
            rows = session.execute(
                select(
                    IngestedFile.path,
                    IngestedFile.content_hash,
                    IngestedFile.language,
                    IngestedFile.fingerprint,
                    IngestedFile.facts,
                ).where(IngestedFile.project_id == found.id)
            ).all()
        return cls(project, rows)

    def __len__(self) -> int:
        return len(self._blobs)

    # -- phase 1 -----------------------------------------------------------------------------

    def read_all(
        self,
        root: Path,
        paths: Sequence[str],
        *,
        workers: int | None = None,
        progress: Progress | None = None,
        parse: Parse = read_all_encoded,
    ) -> list[Outcome]:
        """Like parallel.read_all (outcomes in the order of `paths`), parsing only cache misses,
        with `parse` (read_all_encoded's signature: the single reader, or the shard plan)."""
        self._root = root
        outcomes: list[Outcome | None] = [None] * len(paths)
        misses: list[int] = []
        total = len(paths)
        root_text = str(root)
        prefix = os.path.join(root_text, "")  # joined by concatenation: 3,577 paths for django/
        # Nothing to reuse (a first ingest, `clear`, a new extractor): every file goes to the
        # pool as it is, instead of being read and hashed here first while the workers wait.
        reusable = bool(self._blobs) or len(self.known) > 0
        for index, path in enumerate(paths):
            stamp = self.stamps[path] = stamp_of(prefix + path)
            if not reusable:
                misses.append(index)
                continue
            known = self.known.unchanged(path, stamp)
            if known is not None:
                reused = self._reuse(path, known)
                if reused is not None:
                    outcomes[index] = reused
                    continue
            skip = self.known_skipped.unchanged(path, stamp)
            if skip is not None:
                outcomes[index] = SkippedFile(path, skip[0])
                continue
            data = read_bytes(root_text, path)
            if isinstance(data, SkippedFile):
                outcomes[index] = data
                continue
            language = language_in(path, data)
            if language is None or not has_extractor(language):
                outcomes[index] = source_from_bytes(path, data)
                continue
            content_hash = sha256(data).hexdigest()
            code = self._cached(content_hash, language, path)
            if code is None:
                misses.append(index)
                continue
            outcomes[index] = source_from_bytes(path, data, content_hash=content_hash, code=code)
            if isinstance(outcomes[index], SourceFile):
                self.stats.reused += 1
            else:
                self._deferred.pop(path, None)
        done = total - len(misses)
        if progress is not None and done:
            progress(done, total)

        def forward(parsed: int, _: int) -> None:
            if progress is not None:
                progress(done + parsed, total)

        # Facts come back encoded too, by the workers: the cache stores those bytes.
        stamps = [self.stamps[paths[i]] for i in misses]
        parsed = parse(
            root, [paths[i] for i in misses], workers=workers, progress=forward,
            sizes=[stamp[0] if stamp is not None else None for stamp in stamps],
        )  # fmt: skip
        for index, (outcome, blob) in zip(misses, parsed, strict=True):
            outcomes[index] = outcome
            if blob is not None:
                self.stats.parsed += 1
                self._new_blobs[(outcome.content_hash, outcome.language)] = blob
        return [outcome for outcome in outcomes if outcome is not None]

    def _reuse(self, path: str, known: FileEntry) -> SourceFile | None:
        """A file unchanged since the stored version, from its recorded entry and cached facts
        (None: its facts are not cached, so it is read)."""
        language, content_hash, line_count, size = known[:4]
        code = None
        if language is not None and has_extractor(language):
            code = self._cached(content_hash, language, path)
            if code is None:
                return None
            self.stats.reused += 1
        return SourceFile(path, language, content_hash, line_count, size, code)

    def facts(self, content_hash: str, language: str) -> Any:
        """The cached facts of those bytes (loaded or parsed by this ingest), without their
        calls, or None."""
        blob = self._new_blobs.get((content_hash, language))
        if blob is not None:
            return decode_facts(blob, calls=False)
        return self._cached(content_hash, language, None)

    def _cached(self, content_hash: str, language: str, path: str | None) -> Any:
        """Cached facts without their calls; `path`'s calls are then read by complete()."""
        blob = self._blobs.get((content_hash, language))
        if blob is None:
            return None
        try:
            code = decode_facts(blob, calls=False)
        except Exception:  # noqa: BLE001 — a bad row is a miss, never a failed ingest
            del self._blobs[(content_hash, language)]
            return None
        if path is not None and is_split(blob):
            self._deferred[path] = blob
        return code

    def complete(self, sources: Sequence[SourceFile], paths: Set[str] | None = None) -> list[SourceFile]:
        """`sources` with the calls read_all left out filled in (only for `paths`, if given):
        what resolving those files needs. A row whose calls cannot be read is parsed again."""
        completed = []
        for source in sources:
            blob = self._deferred.get(source.path)
            if blob is None or (paths is not None and source.path not in paths):
                completed.append(source)
                continue
            del self._deferred[source.path]
            try:
                source = source._replace(code=source.code._replace(calls=decode_calls(blob)))
            except Exception:  # noqa: BLE001 — as in _cached: parse the file instead
                again = read_source(str(self._root), source.path)
                if isinstance(again, SourceFile) and again.code is not None:
                    source = again
            completed.append(source)
        return completed

    def let_go(self) -> None:
        """Drop every encoded fact held (a whole phase 2 follows, which reads none): the stored
        table is what the next ingest loads."""
        self._blobs.clear()
        self._new_blobs.clear()
        self._deferred.clear()

    # -- persistence -------------------------------------------------------------------------

    def save(self, engine: Engine, sources: Sequence[SourceFile]) -> int:
        """Make the table hold exactly the parsed files of `sources`. Returns rows written."""
        wanted: dict[str, SourceFile] = {
            s.path: s for s in sources if s.code is not None and len(s.path) <= _MAX_PATH
        }
        stale = [path for path in self._stored if path not in wanted]
        rows: list[dict[str, Any]] = []
        for path, source in wanted.items():
            key = (source.content_hash, source.language)
            if self._stored.get(path) == (*key, self.fingerprint):
                continue
            blob = self._new_blobs.get(key) or self._blobs.get(key)
            if blob is None:
                blob = encode_facts(source.code)
            rows.append(
                {
                    "path": path,
                    "content_hash": source.content_hash,
                    "language": source.language,
                    "fingerprint": self.fingerprint,
                    "facts": blob,
                }
            )
        if not rows and not stale:
            return 0
        with session_scope(engine) as session:
            project_id = projects.get_or_create(session, self.project).id
            doomed = stale + [row["path"] for row in rows if row["path"] in self._stored]
            for start in range(0, len(doomed), _WRITE_CHUNK):
                session.execute(
                    delete(IngestedFile)
                    .where(IngestedFile.project_id == project_id)
                    .where(IngestedFile.path.in_(doomed[start : start + _WRITE_CHUNK]))
                )
            for start in range(0, len(rows), _WRITE_CHUNK):
                chunk = [{"project_id": project_id, **row} for row in rows[start : start + _WRITE_CHUNK]]
                session.execute(IngestedFile.__table__.insert(), chunk)
        for row in rows:
            self._stored[row["path"]] = (row["content_hash"], row["language"], self.fingerprint)
        for path in stale:
            del self._stored[path]
        return len(rows) + len(stale)


def clear_cache(engine: Engine, project: str) -> None:
    with session_scope(engine) as session:
        found = projects.get(session, project)
        if found is not None:
            session.execute(delete(IngestedFile).where(IngestedFile.project_id == found.id))
