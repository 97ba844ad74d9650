"""Keep a warm container's long-lived heap out of the cyclic garbage collector's way.

After init a container holds a large number of objects the collector tracks (the mcp SDK and its pydantic
schemas, SQLAlchemy, the catalog, Powertools) that live as long as the container. CPython's full
(generation 2) collection walks all of them; it runs whenever enough objects have been promoted
since the last one, and its CPU lands on whichever call triggered it: the tail of a warm
endpoint. `gc.freeze()` moves every object
alive at that moment into the permanent generation, which no collection scans again; what the
calls allocate afterwards is collected as before. It is what long-running Python servers do after
start-up (the CPython docs suggest it before forking workers for the same reason).

Collecting first keeps init's own garbage out: a frozen object is never freed, even when it
becomes unreachable later. So freeze only at the end of a container's init, when what is alive is
what the container keeps: a Lambda function's module import, or `rhumbline serve` once it has
loaded its functions. The first calls of a warm container add few long-lived objects (caches
filled on first use), too few to be worth a second freeze.
"""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass

logger = logging.getLogger("rhumbline.heap")


@dataclass(frozen=True)
class Frozen:
    collected: int  # unreachable objects freed by the collection before the freeze
    frozen: int  # objects in the permanent generation afterwards
    seconds: float


def freeze_after_init() -> Frozen:
    """Collect init's garbage, then freeze everything still alive. Safe to call more than once:
    objects already frozen are not scanned again, so a later call only collects and freezes what
    was created since."""
    started = time.perf_counter()
    collected = gc.collect()
    gc.freeze()
    done = Frozen(collected=collected, frozen=gc.get_freeze_count(), seconds=time.perf_counter() - started)
    logger.debug(
        "heap frozen after init: %d objects (%d collected first, %.0f ms)", done.frozen, done.collected, done.seconds * 1000
    )
    return done


def unfreeze() -> None:
    """Give every frozen object back to the collector (`gc.unfreeze` cannot unfreeze a part)."""
    gc.unfreeze()
