"""An ingest's hold on its project: its running version's lease, renewed while it runs, and the
points where it stops when it must (its deadline passed, or its lease was taken from it).

The renewal runs on a thread of its own every third of the lease, so an ingest busy parsing keeps
it; a killed one stops renewing and the next ingest of the project fails its version once the
lease expires (stores/relational/versions.py). `check()` is called between the steps of the
ingest and per parsed chunk, and never once the new graph is being written: a write that has
begun is finished and its version completed.
"""

from __future__ import annotations

import logging
import threading
import time
from types import TracebackType

from sqlalchemy import Engine

from rhumbline.errors import Conflict, DeadlineExceeded
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope

log = logging.getLogger(__name__)


class Lease:
    def __init__(self, engine: Engine, version_id: int, *, seconds: float, deadline: float | None) -> None:
        self.engine = engine
        self.version_id = version_id
        self.seconds = seconds
        self.deadline = deadline  # unix seconds, or None
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name=f"ingest-lease-{version_id}", daemon=True)

    def __enter__(self) -> "Lease":
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(timeout=self.seconds)

    def _renew(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                with session_scope(self.engine) as session:
                    held = versions.renew(session, self.version_id, lease_seconds=self.seconds)
            except Exception:  # noqa: BLE001 - a store hiccup: the next renewal may get through
                log.warning("could not renew the lease of graph version id %s", self.version_id, exc_info=True)
                continue
            if not held:
                self.lost = True
                return

    def check(self) -> None:
        """Raise when the ingest must stop: nothing has been written to the served graph yet."""
        if self.lost:
            raise Conflict(
                "the ingest lost its project's lease (it ran on past its expiry and another ingest failed it): "
                "cancelled before writing; the previous graph version is still served"
            )
        if self.deadline is not None and time.time() > self.deadline:
            raise DeadlineExceeded(
                "the ingest ran past its deadline and was cancelled before writing; the previous graph version "
                "is still served (ingest large trees with `rhumbline ingest`, or `async` in a hosted deployment)"
            )
