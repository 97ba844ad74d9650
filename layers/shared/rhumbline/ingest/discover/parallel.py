"""Run phase 1 over many files: in this process for small inputs, else in a process pool.

Parsing is CPU-bound Python + C, so threads would serialize on the GIL. A pool takes time to
start and results cost a pickle round trip, which only pays off past a hundred or so files.

A worker never outlives the ingest: the pool is shut down when phase 1 ends or fails, and on Linux
(Lambda, the local server) the kernel kills a worker when its parent dies however it dies, SIGKILL
included (PR_SET_PDEATHSIG). Elsewhere there is no such signal: a killed parent may leave its idle
workers waiting on their queue.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TypeVar

from rhumbline.ingest.discover.read import decode_encoded, read_sources, read_sources_encoded
from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.languages import has_extractor, language_of

IN_PROCESS_BELOW = 150
DEFAULT_MAX_WORKERS = 4
# Chunks per worker, by estimated cost: enough that the last chunks are small (no worker idles
# while another finishes a big one), few enough to amortize each hop.
_CHUNKS_PER_WORKER = 16
_MAX_CHUNK = 64
# A file no extractor parses is only read, hashed and counted: per byte, about this many times
# cheaper than a parse (a 100 kB .po file costs what a 12 kB .py does).
_READ_ONLY_DISCOUNT = 8

Progress = Callable[[int, int], None]
Outcome = SourceFile | SkippedFile
# An outcome with its facts encoded for the cache (None when no extractor ran).
Encoded = tuple[Outcome, "bytes | None"]
# How files are parsed: read_all_encoded's signature, (root, paths, *, workers, progress, sizes)
# → one Encoded per path, in order (the shard plan is another: ingest/sharded/).
Parse = Callable[..., list[Encoded]]
_Result = TypeVar("_Result")
# (root, paths) → one result per path; module-level functions, so a pool can pickle them.
_Work = Callable[[str, Sequence[str]], list[_Result]]
# One chunk's results as the caller wants them, applied in this process as each chunk arrives.
_Finish = Callable[[list[_Result]], list[_Result]]


def default_workers() -> int:
    return min(DEFAULT_MAX_WORKERS, os.cpu_count() or 1)


def read_all(
    root: Path,
    paths: Sequence[str],
    *,
    workers: int | None = None,
    progress: Progress | None = None,
    sizes: Sequence[int | None] | None = None,
) -> list[Outcome]:
    """Outcomes in the order of `paths`; `progress(done, total)` as files complete. `sizes`:
    each path's size in bytes when the caller has stat'ed them (else they are stat'ed here),
    to parse the biggest files first."""
    return _run(read_sources, _unchanged, root, paths, workers, progress, sizes)


def read_all_encoded(
    root: Path,
    paths: Sequence[str],
    *,
    workers: int | None = None,
    progress: Progress | None = None,
    sizes: Sequence[int | None] | None = None,
) -> list[Encoded]:
    """read_all, with each parsed file's facts also encoded (facts_codec) where it was parsed."""
    # Decoded chunk by chunk as they arrive, while the workers parse the rest: decoding after the
    # pool is done would add it to the phase's wall time.
    return _run(read_sources_encoded, _decoded, root, paths, workers, progress, sizes)


def _unchanged(chunk: list[_Result]) -> list[_Result]:
    return chunk


def _decoded(chunk: list[tuple[Outcome, bytes | None]]) -> list[Encoded]:
    return [(decode_encoded(outcome, blob), blob) for outcome, blob in chunk]


def _run(
    work: _Work,
    finish: _Finish,
    root: Path,
    paths: Sequence[str],
    workers: int | None,
    progress: Progress | None,
    sizes: Sequence[int | None] | None,
) -> list[_Result]:
    workers = default_workers() if workers is None else workers
    if workers > 1 and len(paths) >= IN_PROCESS_BELOW:
        executor = process_pool(workers)
        if executor is not None:
            with executor:
                chunks = plan_chunks(str(root), paths, sizes, workers)
                return _read_in_pool(executor, work, finish, str(root), paths, chunks, progress)
    return finish(_read_here(work, str(root), paths, progress))


def process_pool(workers: int) -> ProcessPoolExecutor | None:
    """A pool of forked workers that die with this process; None where none can be made."""
    try:
        # fork: the workers start with the extractors loaded, and this process is their parent.
        return ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("fork"),
            initializer=die_with_parent, initargs=(os.getpid(),),
        )  # fmt: skip
    except (OSError, NotImplementedError):
        # AWS Lambda has no /dev/shm, so multiprocessing cannot create its semaphores.
        return None


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Run in each worker as it starts: ask the kernel for SIGKILL when the parent dies, then
    leave at once if it died before that was asked."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def plan_chunks(
    root: str, paths: Sequence[str], sizes: Sequence[int | None] | None, workers: int
) -> list[list[int]]:
    """Indices of `paths` in chunks, the costliest files first: the pool's last chunks are then
    its cheapest, so the workers finish together instead of one waiting on a late big file."""
    if sizes is None:
        sizes = [size_of(os.path.join(root, path)) for path in paths]
    costs = [
        (size or 0) if has_extractor(language_of(path)) else (size or 0) // _READ_ONLY_DISCOUNT
        for path, size in zip(paths, sizes, strict=True)
    ]
    order = sorted(range(len(paths)), key=costs.__getitem__, reverse=True)
    budget = max(1, sum(costs) // (workers * _CHUNKS_PER_WORKER))
    chunks: list[list[int]] = []
    chunk: list[int] = []
    spent = 0
    for index in order:
        chunk.append(index)
        spent += costs[index]
        if spent >= budget or len(chunk) >= _MAX_CHUNK:
            chunks.append(chunk)
            chunk, spent = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def size_of(full_path: str) -> int | None:
    try:
        return os.stat(full_path).st_size
    except OSError:
        return None  # the read reports it


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
    finish: _Finish,
    root: str,
    paths: Sequence[str],
    chunks: list[list[int]],
    progress: Progress | None,
) -> list[_Result]:
    futures: dict[Future[list[_Result]], list[int]] = {
        executor.submit(work, root, [paths[index] for index in chunk]): chunk for chunk in chunks
    }
    results: dict[int, _Result] = {}
    done, total = 0, len(paths)
    try:
        for future in as_completed(futures):
            chunk = futures[future]
            for index, result in zip(chunk, finish(future.result()), strict=True):
                results[index] = result
            done += len(chunk)
            if progress is not None:
                progress(done, total)
    except BaseException:
        for future in futures:  # a failed ingest should not keep the workers parsing
            future.cancel()
        raise
    return [results[index] for index in range(len(paths))]  # every index is in exactly one chunk
