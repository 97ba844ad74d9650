"""Independent units of work run by a bounded number of concurrent writers (threads).

A staged write's transactions within one phase do not depend on each other (staged.py), so the
server may run them on as many cores as it has. The units come from a generator and are taken
from it only as writers free up: the rows of a whole repository are never built at once. The
first failure stops the run: no further unit starts, the running ones finish, and the error is
raised once no writer is left running (so a failed stage is dropped after its last write, not
before it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from rhumbline.config import NEO4J_MAX_WRITERS as MAX_WRITERS

Unit = TypeVar("Unit")
Result = TypeVar("Result")

# Units prepared ahead per writer: the next one is ready when a writer frees up.
AHEAD_PER_WRITER = 2


def check_writers(writers: int) -> int:
    if not 1 <= writers <= MAX_WRITERS:
        raise ValueError(f"the concurrent Neo4j writers must number 1 to {MAX_WRITERS}, not {writers}")
    return writers


def run_concurrently(run: Callable[[Unit], Result], units: Iterable[Unit], writers: int) -> Iterator[Result]:
    """`run(unit)` for every unit, at most `writers` at once; the results as they complete."""
    check_writers(writers)
    if writers == 1:  # no thread: the serial write, step by step
        yield from map(run, units)
        return
    pending: set[Future[Result]] = set()
    with ThreadPoolExecutor(max_workers=writers, thread_name_prefix="neo4j-writer") as pool:
        try:
            for unit in units:
                pending.add(pool.submit(run, unit))
                while len(pending) >= writers * AHEAD_PER_WRITER:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    yield from (future.result() for future in done)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (future.result() for future in done)
        finally:
            # On a failure (or the caller stopping): nothing new starts, the running units end.
            for future in pending:
                future.cancel()
