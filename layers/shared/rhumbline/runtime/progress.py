"""Progress a tool reports while it runs (ingest: files parsed of the total), for the client.

The gateway sets a reporter for the call when the client sent a `progressToken` and the tool runs
in the same process (stdio, the local server's in-process dispatch): it reaches the tool through a
context variable, which the gateway's worker thread inherits. A tool in its own Lambda function has
none: a Lambda invocation answers once, so there is nothing to carry progress back on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# (done, total): total is None while unknown.
Reporter = Callable[[int, "int | None"], None]

_reporter: ContextVar[Reporter | None] = ContextVar("rhumbline_progress_reporter", default=None)


def current() -> Reporter | None:
    return _reporter.get()


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)
