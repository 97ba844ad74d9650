"""Run phase 1 over many files: in this process for small inputs, else in a process pool.

Parsing is CPU-bound Python + C, so threads would serialize on the GIL. A pool costs ~100 ms to
start and results cost a pickle round trip, which only pays off past a hundred or so files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TypeVar

from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.read import decode_encoded, read_sources, read_sources_encoded

IN_PROCESS_BELOW = 150
DEFAULT_MAX_WORKERS = 4
# Small enough to spread uneven files across workers, large enough to amortize each hop.
_MAX_CHUNK = 64
_MIN_CHUNK = 8

Progress = Callable[[int, int], None]
Outcome = SourceFile | SkippedFile
# An outcome with its facts encoded for the cache (None when no extractor ran).
Encoded = tuple[Outcome, "bytes | None"]
_Result = TypeVar("_Result")
# (root, paths) → one result per path; module-level functions, so a pool can pickle them.
_Work = Callable[[str, Sequence[str]], list[_Result]]


def default_workers() -> int:
    return min(DEFAULT_MAX_WORKERS, os.cpu_count() or 1)


def read_all(
    root: Path,
    paths: Sequence[str],
    *,
    workers: int | None = None,
    progress: Progress | None = None,
) -> list[Outcome]:
    """Outcomes in the order of `paths`; `progress(done, total)` as files complete."""
    return _run(read_sources, root, paths, workers, progress)


def read_all_encoded(
    root: Path,
    paths: Sequence[str],
    *,
    workers: int | None = None,
    progress: Progress | None = None,
) -> list[Encoded]:
    """read_all, with each parsed file's facts also encoded (facts_codec) where it was parsed."""
    # Decoded once the pool is done: decoding chunk by chunk as they arrive would compete for the
    # GIL with the pool's management thread, which hands idle workers their next chunk.
    return _decoded(_run(read_sources_encoded, root, paths, workers, progress))


def _decoded(chunk: list[tuple[Outcome, bytes | None]]) -> list[Encoded]:
    return [(decode_encoded(outcome, blob), blob) for outcome, blob in chunk]


def _run(
    work: _Work, root: Path, paths: Sequence[str], workers: int | None, progress: Progress | None
) -> list[_Result]:
    workers = default_workers() if workers is None else workers
    if workers > 1 and len(paths) >= IN_PROCESS_BELOW:
        executor = _pool(workers)
        if executor is not None:
            with executor:
                return _read_in_pool(executor, work, str(root), paths, workers, progress)
    return _read_here(work, str(root), paths, progress)


def _pool(workers: int) -> ProcessPoolExecutor | None:
    try:
        return ProcessPoolExecutor(max_workers=workers)
    except (OSError, NotImplementedError):
        # AWS Lambda has no /dev/shm, so multiprocessing cannot create its semaphores.
        return None


def _read_here(
    work: _Work, root: str, paths: Sequence[str], progress: Progress | None
) -> list[_Result]:
    outcomes = []
    total = len(paths)
    for done, path in enumerate(paths, start=1):
        outcomes.extend(work(root, (path,)))
        if progress is not None:
            progress(done, total)
    return outcomes


def _read_in_pool(
    executor: ProcessPoolExecutor,
    work: _Work,
    root: str,
    paths: Sequence[str],
    workers: int,
    progress: Progress | None,
) -> list[_Result]:
    size = max(_MIN_CHUNK, min(_MAX_CHUNK, len(paths) // (workers * 8) or 1))
    chunks = [list(paths[start : start + size]) for start in range(0, len(paths), size)]
    futures: dict[Future[list[_Result]], int] = {
        executor.submit(work, root, chunk): index for index, chunk in enumerate(chunks)
    }
    results: list[list[_Result] | None] = [None] * len(chunks)
    done, total = 0, len(paths)
    try:
        for future in as_completed(futures):
            index = futures[future]
            results[index] = future.result()
            done += len(chunks[index])
            if progress is not None:
                progress(done, total)
    except BaseException:
        for future in futures:  # a failed ingest should not keep the workers parsing
            future.cancel()
        raise
    return [outcome for chunk in results if chunk is not None for outcome in chunk]
