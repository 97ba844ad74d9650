"""Per-caller admission, checked before every request: the presented token is one of ours and
live, under its rate limit (a token bucket of `burst` calls refilled at `rate_per_minute`) and
under its monthly quota.

`ADMIT` is one UPDATE ... RETURNING on the token's row, found by its id and the hash of the
presented secret: when the token is live, has a whole call in its bucket and is under its quota,
it takes the call from the bucket, counts it in the month and returns the caller the token names,
all at once. So authenticating a request costs nothing beyond its admission: one statement.
PostgreSQL holds the row's lock for the statement and re-evaluates the conditions on the newest row
version when concurrent callers queue on it (READ COMMITTED), SQLite serialises writers: so across
any number of gateways, a bucket of N admits exactly N concurrent calls. A refused call changes
nothing; `EXPLAIN` (the same expressions, read) then says why (no such token, revoked, expired, a
limit) and when to retry.

An OIDC subject (gateway/oidc.py) has no token row: `ADMIT_SUBJECT` meters it on a row of
`subject_meters` keyed by its caller id, with the deployment's default limits as parameters, in one
INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING that creates the row on first use: the same
expressions, the same atomicity, one statement.

The quota counts every admitted tool call (`counted` = 1), whatever its outcome: an admitted call
is dispatched or refused by the gateway's own checks, so it did work. Other MCP requests
(initialize, tools/list, ping ...) are admitted with `counted` = 0: they take from the bucket and
are refused once the quota is used up, but do not count in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Float, Integer, String, Table, and_, bindparam, case, func, null, or_, select, update
from sqlalchemy.dialects.postgresql import insert

from rhumbline.contract import Caller
from rhumbline.stores.relational.schema.base import UTCDateTime
from rhumbline.stores.relational.schema.core import ApiToken
from rhumbline.stores.relational.schema.metering import SubjectMeter

TOKENS = ApiToken.__table__
SUBJECTS = SubjectMeter.__table__
_c = TOKENS.c
TOKEN_ID = bindparam("token_id", type_=String)
# The SHA-256 of the presented secret (tokens.presented): with the id, it finds the token's row.
TOKEN_HASH = bindparam("presented_hash", type_=String)
NOW = bindparam("now", type_=UTCDateTime)
# The clock as unix seconds, and the month as year * 100 + month: plain arithmetic and equality,
# the same on both databases.
NOW_S = bindparam("now_s", type_=Float)
MONTH = bindparam("month", type_=Integer)
# 1 when the call counts in the month's quota (a tool call), 0 when it does not.
COUNTED = bindparam("counted", type_=Integer)
# An OIDC subject's limits: the deployment's defaults (NULL: none). Not named after columns: an
# UPDATE would set a column its parameters name.
SUBJECT_RATE = bindparam("default_rate", type_=Integer)
SUBJECT_BURST = func.coalesce(bindparam("default_burst", type_=Integer), SUBJECT_RATE)
SUBJECT_QUOTA = bindparam("default_quota", type_=Integer)


@dataclass(frozen=True)
class Metering:
    """The meter's expressions over a row's state (bucket_level, bucket_at, quota_month, quota_used)
    and its limits, columns of the row or parameters."""

    rate: Any
    burst: Any
    quota: Any
    level: Any  # calls in the bucket now; NULL without a rate limit
    used: Any  # calls counted in this month
    admissible: Any

    @classmethod
    def of(cls, table: Table, rate: Any, burst: Any, quota: Any) -> "Metering":
        c = table.c
        # A clock behind the one that last wrote the bucket (another container) refills nothing.
        elapsed = case((c.bucket_at < NOW_S, NOW_S - c.bucket_at), else_=0.0)
        filled = func.coalesce(c.bucket_level, burst) + elapsed * rate / 60.0
        level = case((filled > burst, burst), else_=filled)
        used = case((c.quota_month == MONTH, c.quota_used), else_=0)
        admissible = and_(or_(rate.is_(None), level >= 1), or_(quota.is_(None), used < quota))
        return cls(rate, burst, quota, level, used, admissible)

    def explain(self, *dead: Any) -> Any:
        """Why a call is refused: the columns `refusal` reads, `dead` its revoked_at and expires_at."""
        return select(*dead, self.rate, self.burst.label("burst"), self.level.label("level"), self.quota, self.used.label("used"))


TOKEN = Metering.of(TOKENS, _c.rate_per_minute, func.coalesce(_c.rate_burst, _c.rate_per_minute), _c.monthly_quota)
LIVE = and_(_c.revoked_at.is_(None), or_(_c.expires_at.is_(None), _c.expires_at > NOW))
PRESENTED = and_(_c.id == TOKEN_ID, _c.token_hash == TOKEN_HASH)
# Who the token names: read back by admission, and by its explanation (a refused call is audited).
HOLDER = (_c.id, _c.principal, _c.projects, _c.scopes, _c.toolsets)
ADMIT = (
    update(TOKENS)
    .where(PRESENTED, LIVE, TOKEN.admissible)
    .values(
        bucket_level=TOKEN.level - 1, bucket_at=NOW_S, quota_month=MONTH, quota_used=TOKEN.used + COUNTED, last_used_at=NOW
    )
    .returning(*HOLDER)
)
EXPLAIN = TOKEN.explain(_c.revoked_at, _c.expires_at).add_columns(*HOLDER).where(PRESENTED)

SUBJECT = Metering.of(SUBJECTS, SUBJECT_RATE, SUBJECT_BURST, SUBJECT_QUOTA)
_first_use = insert(SUBJECTS).values(
    id=TOKEN_ID, bucket_level=SUBJECT_BURST - 1, bucket_at=NOW_S, quota_month=MONTH, quota_used=COUNTED
)
# PostgreSQL's INSERT ... ON CONFLICT form, which SQLite (3.24+) shares and compiles from this.
ADMIT_SUBJECT = _first_use.on_conflict_do_update(
    index_elements=[SUBJECTS.c.id],
    set_={
        "bucket_level": SUBJECT.level - 1,
        "bucket_at": NOW_S,
        "quota_month": MONTH,
        "quota_used": SUBJECT.used + COUNTED,
    },
    where=SUBJECT.admissible,
).returning(SUBJECTS.c.id)
EXPLAIN_SUBJECT = SUBJECT.explain(null(), null()).where(SUBJECTS.c.id == TOKEN_ID)


@dataclass(frozen=True)
class Limits:
    """Limits of a caller without a token row of its own: the deployment's defaults (None: none)."""

    rate_per_minute: int | None = None
    rate_burst: int | None = None
    monthly_quota: int | None = None

    @property
    def any(self) -> bool:
        return self.rate_per_minute is not None or self.monthly_quota is not None

    def parameters(self) -> dict[str, int | None]:
        return {"default_rate": self.rate_per_minute, "default_burst": self.rate_burst, "default_quota": self.monthly_quota}


# A refusal explained by nothing it reads (the row changed in between): admission is tried again.
ATTEMPTS = 3


@dataclass(frozen=True)
class Holder:
    """Who a token names, as its row says: the caller and its default toolsets."""

    caller: Caller
    toolsets: tuple[str, ...] = ()

    @classmethod
    def of(cls, row: Any) -> "Holder":
        token_id, principal, projects, scopes, toolsets = row
        caller = Caller(principal=principal, token_id=token_id, projects=tuple(projects), scopes=tuple(scopes))
        return cls(caller=caller, toolsets=tuple(toolsets or ()))


DEAD = frozenset({"unknown", "revoked", "expired"})


@dataclass(frozen=True)
class Admission:
    """`reason` when refused: 'unknown', 'revoked', 'expired' (DEAD: the token authenticates no
    one), 'rate_limited' or 'quota_exceeded'."""

    admitted: bool
    # The month whose quota counted the call; None for a caller no row meters.
    month: int | None
    reason: str | None = None
    retry_after_s: float | None = None
    limit: dict[str, int] | None = None
    # Who the presented token names, when it is live (admitted or over a limit); None otherwise.
    holder: Holder | None = None


def month_of(moment: datetime) -> int:
    moment = moment.astimezone(timezone.utc)
    return moment.year * 100 + moment.month


def next_month(moment: datetime) -> datetime:
    moment = moment.astimezone(timezone.utc)
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return datetime(year, month, 1, tzinfo=timezone.utc)


def parameters(token_id: str, now: datetime, *, counted: bool = True) -> dict[str, Any]:
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    return {"token_id": token_id, "now": now, "now_s": now.timestamp(), "month": month_of(now), "counted": int(counted)}


def admit(rows: Any, presented: tuple[str, str], now: datetime, *, counted: bool = True) -> Admission:
    """Authenticate and admit one call of the presented token (its id and hash: tokens.presented)
    at `now`, or say why not. `rows(statement, parameters)` runs one statement by itself and
    returns its rows (oneshot.OneShot.rows). `counted`: the call counts in the month's quota (a
    tool call) or only needs it not used up (other requests)."""
    token_id, token_hash = presented
    return _admit(rows, ADMIT, EXPLAIN, {**parameters(token_id, now, counted=counted), "presented_hash": token_hash}, now)


def admit_subject(rows: Any, subject_id: str, now: datetime, limits: Limits, *, counted: bool = True) -> Admission:
    """`admit` for a caller without a token row (an OIDC subject), under `limits`; its meter row is
    made on first use."""
    return _admit(rows, ADMIT_SUBJECT, EXPLAIN_SUBJECT, {**parameters(subject_id, now, counted=counted), **limits.parameters()}, now)


def _admit(rows: Any, admit_statement: Any, explain_statement: Any, values: dict[str, Any], now: datetime) -> Admission:
    found: list[Any] = []
    for _ in range(ATTEMPTS):
        admitted = rows(admit_statement, values)
        if admitted:
            return Admission(admitted=True, month=values["month"], holder=holder_of(admitted[0]))
        found = rows(explain_statement, values)
        verdict = refusal(found[0] if found else None, now)
        if verdict is not None:
            return verdict
    # Admission and its explanation kept disagreeing: the caller's limits are being changed.
    rate, burst = found[0][2:4] if found else (None, None)
    limit = {"rate_per_minute": rate, "burst": burst}
    holder = holder_of(found[0][EXPLAINED:]) if found else None
    return Admission(admitted=False, month=values["month"], reason="rate_limited", retry_after_s=1.0, limit=limit, holder=holder)


# The columns of an explanation before the holder's (a subject's explanation has none after them).
EXPLAINED = 7


def holder_of(row: Any) -> Holder | None:
    """The token's holder from its columns; None for a subject's meter row (its caller is the JWT's)."""
    return Holder.of(tuple(row)) if len(row) == len(HOLDER) else None


def refusal(row: Any, now: datetime) -> Admission | None:
    """Why `EXPLAIN`'s row refuses a call at `now`; None when it does not (it changed since)."""
    month = month_of(now)
    if row is None:
        return Admission(admitted=False, month=month, reason="unknown")
    revoked_at, expires_at, rate, burst, level, quota, used = row[:EXPLAINED]
    holder = holder_of(row[EXPLAINED:])
    if revoked_at is not None:
        return Admission(admitted=False, month=month, reason="revoked")
    if expires_at is not None and expires_at <= now:
        return Admission(admitted=False, month=month, reason="expired")
    if rate is not None and level is not None and level < 1:
        wait = (1 - level) * 60.0 / rate
        return Admission(
            admitted=False,
            month=month,
            reason="rate_limited",
            retry_after_s=round_up(wait),
            limit={"rate_per_minute": rate, "burst": burst},
            holder=holder,
        )
    if quota is not None and used >= quota:
        return Admission(
            admitted=False,
            month=month,
            reason="quota_exceeded",
            retry_after_s=round_up((next_month(now) - now).total_seconds()),
            limit={"monthly_quota": quota},
            holder=holder,
        )
    return None


def round_up(seconds: float) -> float:
    """Seconds to the next millisecond up: a client that waits this long finds room."""
    return max(0.001, math.ceil(seconds * 1000) / 1000)

