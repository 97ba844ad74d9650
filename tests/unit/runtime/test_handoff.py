"""HandoffPool: run_in_executor's semantics (result, error, context, cancellation, limit), fewer wake-ups."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest

from rhumbline.runtime.handoff import HandoffPool

caller_name: contextvars.ContextVar[str] = contextvars.ContextVar("caller_name", default="none")


def test_result_error_and_the_callers_context() -> None:
    pool = HandoffPool(2, name="t-basic")

    def boom() -> None:
        raise KeyError("missing")

    async def main() -> None:
        caller_name.set("gateway")
        assert await pool.run(lambda a, b: a + b, 2, 3) == 5
        # The worker sees a copy of the caller's context, and its changes stay there.
        assert await pool.run(caller_name.get) == "gateway"
        await pool.run(caller_name.set, "worker")
        assert caller_name.get() == "gateway"
        assert await pool.run(threading.current_thread) is not threading.current_thread()
        with pytest.raises(KeyError, match="missing"):
            await pool.run(boom)

    asyncio.run(main())
    pool.shutdown()


def test_sequential_calls_reuse_one_thread() -> None:
    pool = HandoffPool(40, name="t-reuse")

    async def main() -> set[str]:
        return {(await pool.run(lambda: threading.current_thread().name)) for _ in range(50)}

    assert asyncio.run(main()) == {"t-reuse_0"}
    assert pool.threads == 1
    pool.shutdown()


def test_concurrent_calls_get_threads_up_to_the_limit_then_queue() -> None:
    pool = HandoffPool(3, name="t-limit")
    running = 0
    most = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1

    async def main() -> None:
        await asyncio.gather(*(pool.run(work) for _ in range(8)))

    asyncio.run(main())
    assert (most, pool.threads) == (3, 3)
    pool.shutdown()


def test_a_hung_call_does_not_hold_up_the_next() -> None:
    pool = HandoffPool(4, name="t-hung")
    release = threading.Event()

    async def main() -> str:
        hung = pool.run(release.wait, 10)
        try:
            return await asyncio.wait_for(pool.run(lambda: "answered"), 5)
        finally:
            release.set()
            await hung

    assert asyncio.run(main()) == "answered"
    pool.shutdown()


def test_a_cancelled_wait_abandons_the_call_and_drops_its_result() -> None:
    pool = HandoffPool(2, name="t-cancel")
    finished = threading.Event()

    def slow() -> str:
        time.sleep(0.2)
        finished.set()
        return "late"

    async def main() -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await pool.run(slow)
        # The abandoned thread finishes on its own; its result reaches a cancelled future, ignored.
        await asyncio.get_running_loop().run_in_executor(None, finished.wait, 5)
        await asyncio.sleep(0.05)
        # And the thread is free again for the next call.
        assert await pool.run(lambda: "next") == "next"

    asyncio.run(main())
    assert pool.threads <= 2
    pool.shutdown()


def test_a_result_for_a_closed_loop_is_dropped() -> None:
    pool = HandoffPool(1, name="t-closed")
    release = threading.Event()
    done = threading.Event()

    def slow() -> None:
        release.wait(5)

    loop = asyncio.new_event_loop()
    loop.run_until_complete(asyncio.sleep(0))

    async def start() -> None:
        pool.run(slow)

    loop.run_until_complete(start())
    loop.close()
    release.set()

    async def after() -> str:
        return await pool.run(lambda: (done.set(), "alive")[1])

    # The worker survived handing a result to a closed loop and takes the next call.
    assert asyncio.run(after()) == "alive" and done.is_set()
    pool.shutdown()


def test_shutdown_ends_the_threads_and_refuses_new_calls() -> None:
    pool = HandoffPool(2, name="t-shutdown")

    async def use() -> None:
        await asyncio.gather(pool.run(time.sleep, 0.02), pool.run(time.sleep, 0.02))

    asyncio.run(use())
    pool.shutdown()
    deadline = time.monotonic() + 5
    while any(t.name.startswith("t-shutdown_") for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.name.startswith("t-shutdown_") for t in threading.enumerate())

    async def refused() -> None:
        pool.run(time.sleep, 0)

    with pytest.raises(RuntimeError, match="t-shutdown threads are shut down"):
        asyncio.run(refused())


def test_the_thread_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_threads must be at least 1, not 0"):
        HandoffPool(0, name="t-zero")
