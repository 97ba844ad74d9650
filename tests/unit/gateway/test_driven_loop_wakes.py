"""The container loop defers other threads' wake-ups to its next poll, and never loses one."""

from __future__ import annotations

import asyncio
import threading

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
