"""Who runs the shards, and the reader that turns their answers back into phase-1 outcomes.

An executor is `(work, tasks) → (index, answer or the exception it raised)` for every task, in any
order: a process pool here (`local_pool`), this process (`in_process`), and a distributed map
whose workers leave their answers in S3 is the same shape (distributed/). The reader retries a failed shard once in
this process; a second failure fails the ingest, naming the shard.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import as_completed
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rhumbline.ingest.discover.parallel import (
    Encoded, Parse, Progress, default_workers, process_pool, read_all_encoded, size_of,
)  # fmt: skip
from rhumbline.ingest.discover.read import read_source
from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.facts_codec import decode_facts, encode_facts
from rhumbline.ingest.sharded.answer import Row, decode_answer
from rhumbline.ingest.sharded.layout import SHARD_BYTES, SHARD_FILES, described, plan_shards
from rhumbline.ingest.sharded.worker import parse_shard

Task = dict[str, Any]
Answer = bytes  # answer.py
Work = Callable[[Task], Answer]
Run = Callable[[Work, Sequence[Task]], Iterator[tuple[int, "Answer | BaseException"]]]
# workers → a context holding a Run (the pool lives as long as the context)
Executor = Callable[[int], AbstractContextManager[Run]]

# Trees with more bytes to parse than this take the sharded plan; smaller ones the single reader.
SHARDED_ABOVE_BYTES = 32 * 1024 * 1024


class ShardFailed(RuntimeError):
    """A shard failed twice (in its worker, then retried here); the message names it."""


@contextmanager
def in_process(workers: int) -> Iterator[Run]:
    def run(work: Work, tasks: Sequence[Task]) -> Iterator[tuple[int, Answer | BaseException]]:
        for index, task in enumerate(tasks):
            try:
                yield index, work(task)
            except Exception as error:  # noqa: BLE001 — handed to the reader, which retries then names the shard
                yield index, error

    yield run


@contextmanager
def local_pool(workers: int) -> Iterator[Run]:
    """A pool of forked processes (this process where none can be made, as on Lambda)."""
    pool = process_pool(workers) if workers > 1 else None
    if pool is None:
        with in_process(workers) as run:
            yield run
        return

    def run(work: Work, tasks: Sequence[Task]) -> Iterator[tuple[int, Answer | BaseException]]:
        futures = {pool.submit(work, task): index for index, task in enumerate(tasks)}
        for future in as_completed(futures):
            error = future.exception()
            yield futures[future], error if error is not None else future.result()

    try:
        yield run
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)  # a failed ingest stops its workers' queue
        raise
    pool.shutdown(wait=True)


@dataclass(frozen=True)
class ShardedReader:
    """Phase 1's parse of a FactCache's misses (read_all_encoded's signature) as the shard plan."""

    executor: Executor = local_pool
    max_bytes: int = SHARD_BYTES
    max_files: int = SHARD_FILES

    def __call__(
        self,
        root: Path,
        paths: Sequence[str],
        *,
        workers: int | None = None,
        progress: Progress | None = None,
        sizes: Sequence[int | None] | None = None,
    ) -> list[Encoded]:
        if not paths:
            return []
        known = sizes or [None] * len(paths)
        weights = [size_of(os.path.join(root, path)) if size is None else size for path, size in zip(paths, known)]
        weights = [size or 0 for size in weights]  # an unreadable file: its worker reports it
        shards = plan_shards(paths, weights, max_bytes=self.max_bytes, max_files=self.max_files)
        tasks = [{"root": str(root), "paths": [paths[i] for i in shard]} for shard in shards]
        results: dict[int, Encoded] = {}
        done = 0
        with self.executor(default_workers() if workers is None else workers) as run:
            for number, answer in run(parse_shard, tasks):
                if isinstance(answer, BaseException):
                    answer = _retried(tasks[number], number, answer)
                parsed = decode_answer(answer)
                for index, (row, blob) in zip(shards[number], parsed, strict=True):
                    results[index] = outcome_of(row, blob, str(root))
                done += len(parsed)
                if progress is not None:
                    progress(done, len(paths))
        return [results[index] for index in range(len(paths))]  # every index is in exactly one shard


def by_size(sharded: Parse, *, above: int = SHARDED_ABOVE_BYTES) -> Parse:
    """The sharded parse for trees with more than `above` bytes to parse, else the single reader."""

    def parse(root: Path, paths: Sequence[str], *, sizes: Sequence[int | None] | None = None, **options: Any) -> list[Encoded]:
        if sizes is None:
            sizes = [size_of(os.path.join(root, path)) for path in paths]
        chosen = sharded if wants_shards(sizes, above=above) else read_all_encoded
        return chosen(root, paths, sizes=sizes, **options)

    return parse


def wants_shards(sizes: Sequence[int | None], *, above: int = SHARDED_ABOVE_BYTES) -> bool:
    """The rule by size, here and hosted: more than `above` bytes to parse take the shard plan."""
    return sum(size or 0 for size in sizes) > above


def _retried(task: Task, number: int, error: BaseException) -> Answer:
    try:
        return parse_shard(task)
    except Exception as again:  # noqa: BLE001 — re-raised as the ingest's error, naming the shard
        paths = task["paths"]
        raise ShardFailed(
            f"{described(number, len(paths), paths[0], paths[-1])} failed twice: {again!r}"
            f" (first in its worker: {error!r})"
        ) from again


def outcome_of(row: Row, blob: bytes | None, root: str) -> Encoded:
    """A worker's row and facts (answer.py) as phase 1's outcome."""
    if row[0] == "skipped":
        return SkippedFile(row[1], row[2], row[3]), None
    _, path, language, content_hash, lines, size = row
    source = SourceFile(path, language, content_hash, lines, size, None)
    if blob is None:
        return source, None
    try:
        return source._replace(code=decode_facts(blob)), blob
    except Exception:  # noqa: BLE001 — facts that do not decode (a damaged answer) are parsed again here
        again = read_source(root, path)
        if not isinstance(again, SourceFile) or again.code is None:
            return again, None
        return again, encode_facts(again.code)
