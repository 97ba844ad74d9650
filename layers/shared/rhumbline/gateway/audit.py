"""The audit trail of tool calls: one row per `tools/call`, whatever its outcome, written with the
call's usage rollup (stores/relational/usage.py) in one transaction.

Writing the row is best effort: a failed audit write is logged and never fails the call it
describes (the access log and the tool's own logs still carry the request id).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from rhumbline.runtime.context import Stores
    from rhumbline.stores.relational.schema.core import AuditOutcome

logger = logging.getLogger("rhumbline.gateway.audit")


@dataclass(frozen=True)
class CallRecord:
    request_id: str
    principal: str
    token_id: str
    tool: str
    project: str | None
    arguments: dict[str, Any] = field(repr=False)
    outcome: AuditOutcome
    error_code: str | None
    latency_ms: float
    result_bytes: int
    at: datetime


class AuditLog(Protocol):
    def write(self, entry: CallRecord) -> None:
        """Blocking; must not raise."""


class RelationalAuditLog:
    """Rows in the audit table of the relational store of `stores` (the container's, in a gateway).

    The gateway awaits `write` before the call's response leaves, so a Lambda container frozen
    right after answering loses nothing.
    """

    def __init__(self, stores: "Stores") -> None:
        self.stores = stores

    def write(self, entry: CallRecord) -> None:
        try:
            with self.stores.relational().begin() as connection:
                write_call(connection, entry)
        except Exception:  # noqa: BLE001 - an audit failure must never fail the call
            logger.exception("audit write failed for request %s (%s)", entry.request_id, entry.tool)


def write_call(connection: Connection, entry: CallRecord) -> None:
    """What one call writes, inside the caller's transaction: committed together or not at all."""
    # Here, not at the top: the gateway's init imports this module, and SQLAlchemy loads with the first call.
    from rhumbline.stores.relational import audit, usage

    row = audit.row(
        at=entry.at,
        request_id=entry.request_id,
        principal=entry.principal,
        token_id=entry.token_id,
        tool=entry.tool,
        project=entry.project,
        arguments_summary=audit.summarize_arguments(entry.arguments),
        outcome=entry.outcome,
        error_code=entry.error_code,
        latency_ms=entry.latency_ms,
        result_bytes=entry.result_bytes,
    )
    usage.record_call(connection, usage.call_values(row))
