"""Work done by a forked child while the parent does something else (the second core).

A full ingest holds the whole graph in memory once phase 2 is done, and several jobs depend only
on it: betweenness (centrality_ahead.py), the snapshot's encoding (ingest/snapshot_ahead.py). A
child forked with that graph computes one of them while the parent writes the store; the parent
takes the child's result afterwards.

Fails soft: no fork on this platform, no room for the copies (in the worst case every page is
copied while a child lives: resident memory times the processes alive must fit the Lambda
function's memory, or the machine's), a child that dies or runs late: `start` or `result` gives
None and the caller computes in-process. The child runs pure Python on the parent's objects
(copy-on-write) and exits without touching the parent's connections (multiprocessing's fork start
ends it with os._exit).

A child may send several values in turn (its work is a generator): the parent reads the early
ones with `take` when it needs them, the last with `result`. Each is pickled as soon as it is
yielded and written to the pipe by a thread of the child, so the child goes on with the next one
while the parent has not read it yet (a pipe holds 64 KiB; the write waits without the GIL).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable, Generator
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

log = logging.getLogger(__name__)

# How long `result` waits for the child past its own time budget.
GRACE_SECONDS = 5.0


class Forked:
    """A child computing one value, sent back through a pipe."""

    def __init__(self, process: Any, receiving: Connection, seconds: float, expected: type, what: str) -> None:
        self._process = process
        self._receiving = receiving
        self._deadline = time.monotonic() + seconds + GRACE_SECONDS
        self._expected = expected
        self._what = what
        self._closed = False

    def take(self, expected: type) -> Any | None:
        """The child's next value, one it sends before its last (a generator's), or None: it
        failed, is late, or sent something else; it is then stopped and `result` gives None."""
        found = self._next(expected)
        if found is None:
            self.close()
        return found

    def result(self) -> Any | None:
        """The child's (last) value, or None (it failed, or is late: the caller computes it)."""
        try:
            return self._next(self._expected)
        finally:
            self.close()

    def _next(self, expected: type) -> Any | None:
        if self._closed:
            return None
        try:
            if self._receiving.poll(max(0.0, self._deadline - time.monotonic())):
                found = self._receiving.recv()
                if isinstance(found, expected):
                    return found
            log.warning("%s computed ahead is missing; computing it now", self._what)
        except (EOFError, OSError):
            log.warning("the %s child process failed; computing it now", self._what, exc_info=True)
        return None

    def close(self) -> None:
        """Stop the child if it still runs (a failed write needs no result). Idempotent."""
        self._closed = True
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(timeout=5)
        self._receiving.close()


def start(
    work: Callable[..., Any],
    args: tuple[Any, ...],
    *,
    seconds: float,
    expected: type,
    what: str,
    copies: int = 2,
) -> Forked | None:
    """Fork a child sending back `work(*args)`; None where processes cannot be forked or
    `copies` copies of this process (itself included) might not fit in memory."""
    if not room_for(copies):
        log.info("no memory to spare for a forked copy; %s is computed in-process", what)
        return None
    try:
        context = multiprocessing.get_context("fork")
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(work, args, sending), daemon=True)
        process.start()
    except Exception:  # noqa: BLE001 — no fork here (or a daemonic parent): the caller computes it
        log.info("cannot fork to compute %s ahead; it is computed in-process", what, exc_info=True)
        return None
    sending.close()  # the child's end: the parent sees EOF if the child dies
    return Forked(process, receiving, seconds, expected, what)


def freeze_heap() -> None:
    """Leave every object alive now out of cyclic collections until `thaw_heap`: a full
    collection would walk the whole graph (0.16 CPU s once phase 2 of Django's `django/` is done)
    and, while a child lives, write to every page holding an object, copying them all."""
    gc.freeze()


def thaw_heap() -> None:
    """Frozen objects go back to the oldest generation (collected again, none lost)."""
    from rhumbline.runtime import heap

    heap.unfreeze()


def room_for(copies: int) -> bool:
    """Worst case, every page a process writes while the children live is copied: fork only
    when `copies` times this process's resident memory fits what it may use (the Lambda
    function's memory, else the machine's). False when that cannot be read."""
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        lambda_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        limit = int(lambda_mb) * 2**20 if lambda_mb else page * os.sysconf("SC_PHYS_PAGES")
        with open("/proc/self/statm", encoding="ascii") as statm:
            resident = int(statm.read().split()[1]) * page
    except (OSError, ValueError):
        return False
    return copies * resident < limit


def _child(work: Callable[..., Any], args: tuple[Any, ...], sending: Connection) -> None:
    # The parent's objects (the whole graph) are shared copy-on-write: a cyclic collection would
    # walk them all, copying their pages, for nothing.
    gc.disable()
    found = work(*args)
    if isinstance(found, Generator):
        _send_each(found, sending)
    else:
        sending.send(found)
    sending.close()


def _send_each(values: Generator[Any, None, None], sending: Connection) -> None:
    """Each value as soon as it is ready (see the module's docstring), in order."""
    pending: queue.Queue[Any] = queue.Queue()

    def write() -> None:
        while (data := pending.get()) is not None:
            sending.send_bytes(data)

    writer = threading.Thread(target=write, name="rhumbline-forked-send", daemon=True)
    writer.start()
    try:
        for value in values:
            pending.put(ForkingPickler.dumps(value))
    finally:
        pending.put(None)
        writer.join()
