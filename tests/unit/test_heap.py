"""Freezing a container's heap after init: init's garbage is freed first, what is alive is frozen."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from rhumbline import heap
from rhumbline.heap import freeze_after_init


@pytest.fixture
def unfrozen_after() -> Iterator[None]:
    # The test process must not keep a frozen heap: later tests create and drop cycles of their own.
    yield
    heap.unfreeze()


class Node:
    def __init__(self) -> None:
        self.peer: Node | None = None


def cycle() -> Node:
    first, second = Node(), Node()
    first.peer, second.peer = second, first
    return first


def test_garbage_cycles_are_collected_before_the_freeze(unfrozen_after: None) -> None:
    garbage = weakref.ref(cycle())  # unreachable at once, but only the cyclic collector can free it
    assert garbage() is not None
    freeze_after_init()
    assert garbage() is None, "init's garbage would have been frozen for the container's life"


def test_live_objects_leave_the_collected_generations(unfrozen_after: None) -> None:
    kept = cycle()
    frozen = freeze_after_init()
    # (The count only shrinks afterwards: refcounting still frees frozen objects other threads drop.)
    assert frozen.frozen > 0 and gc.get_freeze_count() > 0
    assert all(found is not kept for found in gc.get_objects()), "a frozen object is still scanned"
    # What the container allocates afterwards is collected as before.
    later = weakref.ref(cycle())
    gc.collect()
    assert later() is None
    assert kept.peer is not None and kept.peer.peer is kept
