"""An event loop with no thread of its own: whichever thread needs it runs it, for as long as needed.

The gateway container's loop carries the SDK's session manager for the container's life, and each
invocation runs one request on it. A loop in a daemon thread of its own costs every call two
thread hand-overs (the invoking thread wakes the loop thread, which wakes it back with the
answer); on a busy machine each wake-up waits for a free core. Here the invoking thread drives
the loop itself, so a lone call never changes thread.

Lambda invokes one container from one thread at a time, but the local server's runner calls the
same container from several threads at once. A thread that finds the loop already driven hands
its coroutine to it (the old hand-over, only when concurrent). When the driver's own request is
done while handed-over ones are still running, a drain thread takes over the loop until they finish:
none is left waiting on a stopped loop, and no caller's answer waits for another's.
Between calls the loop is idle and its background tasks (the session manager) simply wait, as
they do in a frozen Lambda container.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import selectors
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

logger = logging.getLogger("rhumbline.gateway")


class WakeBeforeSelect(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The loop's selector: deferred wake-ups of other threads, and its own wake-ups without a pipe.

    Handing work to another thread wakes that thread, which wants the GIL at once; the loop's
    thread still holds it until it polls for I/O (the rest of the iteration's callbacks), so the
    woken thread would sleep on the GIL and be woken a second time. Deferred to the poll, the wake
    comes when this thread is about to let go. At most one iteration late: every poll runs them.

    The other direction (a worker handing a result back with `call_soon_threadsafe`) is asyncio's
    self-pipe: the worker's `socket.send` lets go of the GIL for the system call, the loop's thread
    wakes and takes it, and the worker then waits for the GIL just to return from `send` and block
    on its queue again (measured in `rhumbline serve`: 240 µs of wall time per call in that `send`,
    19 µs of it CPU), taking the GIL from the loop's thread in the middle of the request when it
    gets it. While nothing but the self-pipe is registered (the gateway's loop carries only the
    SDK's in-memory streams), the loop waits on a queue instead: the waker's `put` wakes it without
    letting go of the GIL, so the worker goes straight back to sleep. Once any other file
    descriptor is registered the selector polls it as asyncio does, and wakes write to the pipe
    again (for good: a loop that has had other I/O keeps polling it).
    """

    def __init__(self) -> None:
        super().__init__()
        self._deferred: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self._wakes: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._mode = threading.Lock()
        self._polling_io = False

    def defer(self, function: Callable[..., Any], *arguments: Any) -> None:
        self._deferred.append((function, arguments))

    def run_deferred(self) -> None:
        # Only the loop's driving thread defers and polls, so no lock is needed.
        while self._deferred:
            function, arguments = self._deferred.pop(0)
            try:
                function(*arguments)
            except Exception:  # noqa: BLE001 - one failed wake must not stop the loop or the others
                logger.exception("a deferred wake-up failed")

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        key = super().register(fileobj, events, data)
        # The first registration is the loop's own self-pipe (asyncio's __init__); any other one
        # means real I/O, which only the poll can see.
        if len(self.get_map()) > 1:
            self.poll_from_now_on()
        return key

    def poll_from_now_on(self) -> None:
        """Poll the registered files (the self-pipe included) from the next select on, for good."""
        with self._mode:
            self._polling_io = True

    def wake(self) -> bool:
        """From any thread: wake the loop. False when the caller must write to the self-pipe instead."""
        with self._mode:
            if self._polling_io:
                return False
            self._wakes.put(None)
            return True

    def _drain_wakes(self) -> bool:
        woken = False
        try:
            while True:
                self._wakes.get_nowait()
                woken = True
        except queue.Empty:
            return woken

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        self.run_deferred()
        if self._polling_io:
            # Wakes queued before the switch to polling are not in the pipe: do not sleep past them.
            return super().select(0 if self._drain_wakes() else timeout)
        if not self._drain_wakes() and (timeout is None or timeout > 0):
            try:
                # asyncio caps its timeouts at a day; the lock's own limit is the platform's.
                if timeout is None:
                    self._wakes.get()
                else:
                    self._wakes.get(timeout=min(timeout, threading.TIMEOUT_MAX))
            except queue.Empty:
                return []
            self._drain_wakes()
        return []


class ContainerLoop(asyncio.SelectorEventLoop):
    """The container's asyncio loop, with wake-ups of other threads deferred to its next poll and
    its own wake-ups taken from a queue rather than its self-pipe (see `WakeBeforeSelect`)."""

    def __init__(self) -> None:
        self.wake_selector = WakeBeforeSelect()
        super().__init__(self.wake_selector)

    def call_before_polling(self, function: Callable[..., Any], *arguments: Any) -> None:
        """From the loop's own thread: call `function(*arguments)` right before the loop next polls
        (see `runtime.handoff`, which hands work to its threads this way when the loop offers it)."""
        self.wake_selector.defer(function, *arguments)

    def add_signal_handler(self, sig: int, callback: Callable[..., Any], *args: Any) -> None:
        # Signals reach the loop through its self-pipe (signal.set_wakeup_fd): it must be polled.
        self.wake_selector.poll_from_now_on()
        super().add_signal_handler(sig, callback, *args)

    def _write_to_self(self) -> None:
        # asyncio's wake-up for call_soon_threadsafe (and run_coroutine_threadsafe).
        if not self.wake_selector.wake():
            super()._write_to_self()


class DrivenLoop:
    def __init__(self) -> None:
        self.loop = ContainerLoop()
        self._state = threading.Lock()
        # Held by whichever thread runs the loop, so the next one cannot enter the loop before the
        # previous one has fully left it.
        self._driving_lock = threading.Lock()
        self._driven = False
        self._handed_over = 0
        self._settled: asyncio.Event | None = None
        self._drain_wanted = threading.Event()
        self._drainer: threading.Thread | None = None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Blocking: run `coroutine` on the loop and return its result (or raise its exception).

        No timeout here: the coroutine bounds itself (the gateway's calls run under `fail_after`),
        and a handed-over one is never cancelled from outside, so its bookkeeping always runs.
        """
        with self._state:
            hand_over = self._driven
            if hand_over:
                self._handed_over += 1
            else:
                self._driven = True
        if hand_over:
            return asyncio.run_coroutine_threadsafe(self._handed(coroutine), self.loop).result()
        try:
            with self._driving_lock:
                task = self._run_to_completion(coroutine)
        finally:
            with self._state:
                # Coroutines handed over meanwhile still need the loop: a drain thread drives it
                # until they are done, so this caller's answer does not wait for a slower request's.
                drain = self._handed_over > 0
                if not drain:
                    self._driven = False
            if drain:
                self._start_draining()
        return task.result()

    def _run_to_completion(self, coroutine: Coroutine[Any, Any, T]) -> "asyncio.Task[T]":
        # run_forever until the task is done, not run_until_complete: anyio takes a task started by
        # run_until_complete for the loop's root task and stops its worker threads when that task
        # ends. The root stays the container's long-lived serving task this way.
        task = self.loop.create_task(coroutine)
        task.add_done_callback(lambda _: self.loop.stop())
        try:
            self.loop.run_forever()
        finally:
            # A wake-up deferred in the loop's last iteration must not wait for its next driver.
            self.loop.wake_selector.run_deferred()
        if not task.done():
            task.cancel()
            raise RuntimeError("the gateway loop stopped before its request finished")
        return task

    async def _handed(self, coroutine: Coroutine[Any, Any, T]) -> T:
        try:
            return await coroutine
        finally:
            with self._state:
                self._handed_over -= 1
            self._settle_event().set()

    def _start_draining(self) -> None:
        if self._drainer is None:
            self._drainer = threading.Thread(target=self._drain_forever, name="rhumbline-gateway-drain", daemon=True)
            self._drainer.start()
        self._drain_wanted.set()

    def _drain_forever(self) -> None:
        while True:
            self._drain_wanted.wait()
            self._drain_wanted.clear()
            try:
                with self._driving_lock:
                    self._run_to_completion(self._until_handed_over_done())
            except Exception:  # noqa: BLE001 - the drain thread must outlive one bad run
                logger.exception("draining the gateway loop failed")

    async def _until_handed_over_done(self) -> None:
        settled = self._settle_event()
        while True:
            with self._state:
                if self._handed_over == 0:
                    # From here on a new caller becomes the next driver (it waits for _driving_lock).
                    self._driven = False
                    return
            # Clearing and re-checking happen on the loop between two awaits: a handed-over
            # coroutine's `set()` (also on the loop) cannot fall in between.
            settled.clear()
            await settled.wait()

    def _settle_event(self) -> asyncio.Event:
        if self._settled is None:
            self._settled = asyncio.Event()
        return self._settled

    def close(self) -> None:
        with self._driving_lock:
            self.loop.close()
