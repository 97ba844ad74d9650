"""GitHub webhook deliveries, for de-duplication by X-GitHub-Delivery and by the signed body's digest.

A delivery is claimed at the start of the transaction that applies it: a replay (GitHub's
"Redeliver", or a retry after a timeout) finds the row and changes nothing; two copies arriving at
once serialise on the primary key, and the second finds the first's row. If applying fails, the
claim rolls back with everything else, so a later redelivery is processed.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.base import utcnow
from rhumbline.stores.relational.schema.reviews import DELIVERY_OUTCOMES, WebhookDelivery
from rhumbline.stores.relational.session import added

MAX_RECENT = 1000
DETAIL_LIMIT = 2000


def get(session: Session, delivery_id: str) -> WebhookDelivery | None:
    return session.get(WebhookDelivery, delivery_id)


def claim(
    session: Session,
    delivery_id: str,
    *,
    payload_sha256: str,
    event: str,
    action: str | None,
    repository: str | None,
) -> WebhookDelivery | None:
    """Claim a delivery for this transaction; None when it was already processed (a replay of
    either the delivery id or the exact body)."""
    if not delivery_id or len(delivery_id) > 100:
        raise ValueError("delivery id must be 1-100 characters")
    if get(session, delivery_id) is not None:
        return None
    if session.scalar(select(WebhookDelivery.delivery_id).where(WebhookDelivery.payload_sha256 == payload_sha256)):
        return None
    row = WebhookDelivery(
        delivery_id=delivery_id,
        payload_sha256=payload_sha256,
        event=event[:64],
        action=action[:64] if action else None,
        repository=repository[:201] if repository else None,
        received_at=utcnow(),
        # Provisional: `finish` sets the real outcome in the same transaction.
        outcome="ignored",
    )
    return row if added(session, row) else None


def finish(session: Session, row: WebhookDelivery, *, outcome: str, detail: str | None) -> None:
    if outcome not in DELIVERY_OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(DELIVERY_OUTCOMES)}, not {outcome!r}")
    row.outcome = outcome
    row.detail = detail[:DETAIL_LIMIT] if detail else None
    session.flush()


def recent(session: Session, *, limit: int = 100, repository: str | None = None) -> list[WebhookDelivery]:
    """Newest first; `limit` is capped at MAX_RECENT."""
    query = select(WebhookDelivery).order_by(WebhookDelivery.received_at.desc())
    if repository is not None:
        query = query.where(WebhookDelivery.repository == repository)
    return list(session.scalars(query.limit(max(1, min(limit, MAX_RECENT)))))
