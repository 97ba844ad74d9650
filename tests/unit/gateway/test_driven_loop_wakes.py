"""The container loop defers other threads' wake-ups to its next poll, never loses one, and is
woken by other threads through a queue while it has no I/O of its own."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
import time

from rhumbline.gateway.driven_loop import DrivenLoop
from rhumbline.runtime.handoff import HandoffPool


def test_a_deferred_wake_runs_when_the_iteration_ends_at_the_poll() -> None:
    driven = DrivenLoop()
    order: list[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_before_polling(order.append, "wake")
        loop.call_soon(order.append, "same iteration")
        order.append("caller continues")
        await asyncio.sleep(0)
        order.append("next iteration")

    driven.run(main())
    driven.close()
    # The wake waits until the running callback (this task's step) is done, and runs at the poll,
    # before the callbacks that poll makes due.
    assert order == ["caller continues", "wake", "same iteration", "next iteration"]


def test_a_wake_deferred_in_the_last_iteration_runs_when_the_driver_leaves() -> None:
    driven = DrivenLoop()
    woken = threading.Event()

    async def main() -> None:
        asyncio.get_running_loop().call_before_polling(woken.set)

    driven.run(main())
    assert woken.is_set()
    driven.close()


def test_a_failing_wake_is_logged_and_the_others_still_run(caplog: object) -> None:
    driven = DrivenLoop()
    ran: list[str] = []

    def fail() -> None:
        raise OSError("no")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_before_polling(fail)
        loop.call_before_polling(ran.append, "second")
        await asyncio.sleep(0)

    driven.run(main())
    driven.close()
    assert ran == ["second"]


def test_handoff_work_started_from_the_container_loop_completes() -> None:
    """A pool on the container loop hands its work over at the poll: results come back as before."""
    driven = DrivenLoop()
    pool = HandoffPool(4, name="t-driven")

    async def main() -> list[int]:
        return list(await asyncio.gather(*(pool.run(lambda n=n: n * n) for n in range(10))))

    assert driven.run(main()) == [n * n for n in range(10)]
    driven.close()
    pool.shutdown()


class CountingSocket:
    """Stands in for the loop's self-pipe write end and counts what is sent through it."""

    def __init__(self, real: socket.socket) -> None:
        self.real = real
        self.sends = 0

    def send(self, data: bytes) -> int:
        self.sends += 1
        return self.real.send(data)

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


def test_a_worker_thread_wakes_the_loop_without_its_self_pipe() -> None:
    """While only the self-pipe is registered, call_soon_threadsafe wakes the loop through a queue:
    the worker never has to take the GIL back after a pipe write (driven_loop.WakeBeforeSelect)."""
    driven = DrivenLoop()
    pool = HandoffPool(2, name="t-queue-wake")
    # asyncio's write end of its self-pipe (a private attribute: the one way to see it is unused).
    counting = CountingSocket(driven.loop._csock)  # type: ignore[attr-defined]
    driven.loop._csock = counting  # type: ignore[attr-defined]

    async def main() -> list[int]:
        results = []
        for n in range(20):
            # Each await blocks the loop in its select until the worker's result wakes it.
            results.append(await pool.run(lambda n=n: n + 1))
        return results

    assert driven.run(main()) == list(range(1, 21))
    assert counting.sends == 0
    driven.loop._csock = counting.real  # type: ignore[attr-defined]
    driven.close()
    pool.shutdown()


def test_a_wake_from_another_thread_ends_a_blocking_select_at_once() -> None:
    driven = DrivenLoop()

    async def main() -> float:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[float] = loop.create_future()
        started = time.monotonic()
        # The loop has nothing else to do: it blocks in select (no timeout) until the thread wakes it.
        threading.Timer(0.05, lambda: loop.call_soon_threadsafe(future.set_result, time.monotonic())).start()
        woken = await future
        return woken - started

    assert driven.run(main()) < 5.0
    driven.close()


def test_a_timer_still_ends_a_select_that_no_thread_wakes() -> None:
    driven = DrivenLoop()

    async def main() -> float:
        started = time.monotonic()
        await asyncio.sleep(0.05)
        return time.monotonic() - started

    assert 0.04 < driven.run(main()) < 5.0
    driven.close()


def test_with_other_file_descriptors_the_loop_polls_them_and_wakes_by_its_pipe() -> None:
    """A loop given real I/O (not the gateway's) polls it as asyncio does; thread wakes still arrive."""
    driven = DrivenLoop()
    reader, writer = socket.socketpair()
    reader.setblocking(False)

    async def main() -> tuple[bytes, str]:
        loop = asyncio.get_running_loop()
        received: asyncio.Future[bytes] = loop.create_future()
        loop.add_reader(reader.fileno(), lambda: received.set_result(reader.recv(16)))
        threading.Timer(0.05, writer.send, args=(b"ping",)).start()
        data = await received
        loop.remove_reader(reader.fileno())
        woken: asyncio.Future[str] = loop.create_future()
        threading.Timer(0.05, lambda: loop.call_soon_threadsafe(woken.set_result, "woken")).start()
        return data, await woken

    counting = CountingSocket(driven.loop._csock)  # type: ignore[attr-defined]
    driven.loop._csock = counting  # type: ignore[attr-defined]
    assert driven.run(main()) == (b"ping", "woken")
    assert counting.sends >= 1
    driven.loop._csock = counting.real  # type: ignore[attr-defined]
    driven.close()
    reader.close()
    writer.close()


def test_a_signal_handler_on_the_loop_is_still_called() -> None:
    """Signals reach an asyncio loop through its self-pipe, so a loop given a handler polls it."""
    driven = DrivenLoop()

    async def main() -> str:
        loop = asyncio.get_running_loop()
        called: asyncio.Future[str] = loop.create_future()
        loop.add_signal_handler(signal.SIGUSR1, lambda: called.done() or called.set_result("called"))
        threading.Timer(0.05, os.kill, args=(os.getpid(), signal.SIGUSR1)).start()
        try:
            return await asyncio.wait_for(called, 5.0)
        finally:
            loop.remove_signal_handler(signal.SIGUSR1)

    assert driven.run(main()) == "called"
    driven.close()
