"""Per-token limits, checked before every call: the token is live, under its rate limit (a token
bucket of `rate_burst` calls refilled at `rate_per_minute`) and under its monthly quota.

`ADMIT` is one UPDATE ... RETURNING on the token's row: when the token is live, has a whole call in
its bucket and is under its quota, it takes the call from the bucket and counts it in the month, all
at once. PostgreSQL holds the row's lock for the statement and re-evaluates the conditions on the
newest row version when concurrent callers queue on it (READ COMMITTED), SQLite serialises writers:
so across any number of gateways, a bucket of N admits exactly N concurrent calls. A refused call
changes nothing; `EXPLAIN` (the same expressions, read) then says why and when to retry.

The quota counts admitted calls; the audit write gives back (`RELEASE`) a call that turned out not
billable (gateway/audit.py), so the count is the month's billable calls plus those still running.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Float, Integer, String, and_, bindparam, case, func, literal_column, or_, select, update

from rhumbline.stores.relational.schema.base import UTCDateTime
from rhumbline.stores.relational.schema.core import ApiToken

TOKENS = ApiToken.__table__
_c = TOKENS.c
TOKEN_ID = bindparam("token_id", type_=String)
NOW = bindparam("now", type_=UTCDateTime)
# The clock as unix seconds, and the month as year * 100 + month: plain arithmetic and equality,
# the same on both databases.
NOW_S = bindparam("now_s", type_=Float)
MONTH = bindparam("month", type_=Integer)

LIVE = and_(_c.revoked_at.is_(None), or_(_c.expires_at.is_(None), _c.expires_at > NOW))
BURST = func.coalesce(_c.rate_burst, _c.rate_per_minute)
# A clock behind the one that last wrote the bucket (another container) refills nothing.
_ELAPSED = case((_c.bucket_at < NOW_S, NOW_S - _c.bucket_at), else_=0.0)
_FILLED = func.coalesce(_c.bucket_level, BURST) + _ELAPSED * _c.rate_per_minute / 60.0
# Calls in the bucket now; NULL for a token without a rate limit.
LEVEL = case((_FILLED > BURST, BURST), else_=_FILLED)
RATE_OK = or_(_c.rate_per_minute.is_(None), LEVEL >= 1)
USED = case((_c.quota_month == MONTH, _c.quota_used), else_=0)
QUOTA_OK = or_(_c.monthly_quota.is_(None), USED < _c.monthly_quota)

ADMIT = (
    update(TOKENS)
    .where(_c.id == TOKEN_ID, LIVE, RATE_OK, QUOTA_OK)
    .values(bucket_level=LEVEL - 1, bucket_at=NOW_S, quota_month=MONTH, quota_used=USED + 1)
    .returning(_c.id)
)
EXPLAIN = select(
    _c.revoked_at,
    _c.expires_at,
    _c.rate_per_minute,
    BURST.label("burst"),
    LEVEL.label("level"),
    _c.monthly_quota,
    USED.label("used"),
).where(_c.id == TOKEN_ID)
# Its constants are inline (literal_column): anonymous parameters lose their values when this runs
# as a CTE of another statement (usage.WRITE_CALL_POSTGRES).
_ONE, _ZERO = literal_column("1", Integer), literal_column("0", Integer)
RELEASE = (
    update(TOKENS)
    .where(_c.id == bindparam("release_token", type_=String), _c.quota_month == bindparam("release_month", type_=Integer))
    .where(_c.quota_used > _ZERO)
    .values(quota_used=_c.quota_used - _ONE)
)
# A refusal explained by nothing it reads (the row changed in between): admission is tried again.
ATTEMPTS = 3


@dataclass(frozen=True)
class Verdict:
    """`reason` when refused: 'unknown', 'revoked', 'expired', 'rate_limited' or 'quota_exceeded'."""

    admitted: bool
    # The month whose quota counted the call; None when no token row counted it.
    month: int | None
    reason: str | None = None
    retry_after_s: float | None = None
    limit: dict[str, int] | None = None


def month_of(moment: datetime) -> int:
    moment = moment.astimezone(timezone.utc)
    return moment.year * 100 + moment.month


def next_month(moment: datetime) -> datetime:
    moment = moment.astimezone(timezone.utc)
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return datetime(year, month, 1, tzinfo=timezone.utc)


def parameters(token_id: str, now: datetime) -> dict[str, Any]:
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    return {"token_id": token_id, "now": now, "now_s": now.timestamp(), "month": month_of(now)}


def admit(rows: Any, token_id: str, now: datetime) -> Verdict:
    """Admit one call of `token_id` at `now`, or say why not. `rows(statement, parameters)` runs
    one statement by itself and returns its rows (oneshot.OneShot.rows)."""
    values = parameters(token_id, now)
    found: list[Any] = []
    for _ in range(ATTEMPTS):
        if rows(ADMIT, values):
            return Verdict(admitted=True, month=values["month"])
        found = rows(EXPLAIN, values)
        verdict = refusal(found[0] if found else None, now)
        if verdict is not None:
            return verdict
    # Admission and its explanation kept disagreeing: the token's limits are being changed.
    rate, burst = found[0][2:4] if found else (None, None)
    limit = {"rate_per_minute": rate, "burst": burst}
    return Verdict(admitted=False, month=values["month"], reason="rate_limited", retry_after_s=1.0, limit=limit)


def refusal(row: Any, now: datetime) -> Verdict | None:
    """Why `EXPLAIN`'s row refuses a call at `now`; None when it does not (it changed since)."""
    month = month_of(now)
    if row is None:
        return Verdict(admitted=False, month=month, reason="unknown")
    revoked_at, expires_at, rate, burst, level, quota, used = row
    if revoked_at is not None:
        return Verdict(admitted=False, month=month, reason="revoked")
    if expires_at is not None and expires_at <= now:
        return Verdict(admitted=False, month=month, reason="expired")
    if rate is not None and level is not None and level < 1:
        wait = (1 - level) * 60.0 / rate
        return Verdict(
            admitted=False,
            month=month,
            reason="rate_limited",
            retry_after_s=round_up(wait),
            limit={"rate_per_minute": rate, "burst": burst},
        )
    if quota is not None and used >= quota:
        return Verdict(
            admitted=False,
            month=month,
            reason="quota_exceeded",
            retry_after_s=round_up((next_month(now) - now).total_seconds()),
            limit={"monthly_quota": quota},
        )
    return None


def round_up(seconds: float) -> float:
    """Seconds to the next millisecond up: a client that waits this long finds room."""
    return max(0.001, math.ceil(seconds * 1000) / 1000)

