"""A Neo4j read transaction whose BEGIN goes out with its first statement (one round trip fewer).

The Python driver sends BEGIN and waits for its reply before the first RUN, unless the session's
private `_pipelined_begin` switch is on — what the driver's own `execute_query` does. BEGIN still
carries the access mode, the server-side timeout and the metadata; a failed BEGIN fails the first
statement, with BEGIN's error. Should a driver lack the switch, BEGIN takes its own round trip as
before: slower, never different (tests/functional/cypher/test_runner_round_trips.py counts them).
"""

from __future__ import annotations

from typing import Any


def begin_pipelined(session: Any, *, timeout: float, metadata: dict[str, str] | None = None) -> Any:
    """`session.begin_transaction(timeout=..., metadata=...)`, its BEGIN sent with the first RUN."""
    pipelined = getattr(session, "_pipelined_begin", None)
    if pipelined is None:
        return session.begin_transaction(timeout=timeout, metadata=metadata)
    with pipelined:
        return session.begin_transaction(timeout=timeout, metadata=metadata)
