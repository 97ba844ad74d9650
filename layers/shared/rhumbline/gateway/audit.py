"""The audit trail of tool calls: one row per `tools/call`, whatever its outcome.

Writing the row is best effort: a failed audit write is logged and never fails the call it
describes (the access log and the tool's own logs still carry the request id).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from rhumbline.stores.relational.audit_writer import AuditWriter

logger = logging.getLogger("rhumbline.gateway.audit")

Verdict = Literal["ok", "denied", "invalid", "error"]


@dataclass(frozen=True)
class AuditEntry:
    request_id: str
    principal: str
    token_id: str
    tool: str
    project: str | None
    arguments: dict[str, Any] = field(repr=False)
    outcome: Verdict
    error_code: str | None
    latency_ms: float
    result_bytes: int


class AuditLog(Protocol):
    def write(self, entry: AuditEntry) -> None:
        """Blocking; must not raise."""


class RelationalAuditLog:
    """Rows in the relational store's audit table, through the container's shared engine.

    The row is committed before the call's response is returned (the gateway writes it on the same
    worker hop as the dispatch), so a Lambda container frozen right after answering loses nothing.
    """

    def __init__(self) -> None:
        self._writer: "AuditWriter | None" = None

    def write(self, entry: AuditEntry) -> None:
        try:
            from rhumbline.stores.relational import audit

            # One statement on the container's pooled connection, committed before this returns;
            # on SQLite (WAL, synchronous=NORMAL) the commit does not wait for an fsync.
            self._writer_for_engine().write(
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
        except Exception:  # noqa: BLE001 - an audit failure must never fail the call
            logger.exception("audit write failed for request %s (%s)", entry.request_id, entry.tool)

    def _writer_for_engine(self) -> "AuditWriter":
        from rhumbline.runtime import resources
        from rhumbline.stores.relational.audit_writer import AuditWriter

        # The container's engine, and a writer compiled for it (tests swap engines between cases).
        engine = resources.relational_engine()
        writer = self._writer
        if writer is None or writer.engine is not engine:
            writer = self._writer = AuditWriter(engine)
        return writer
