"""Admission of each request before it does work: the token must be live, under its rate limit and
monthly quota (stores/relational/limits.py), and, for a tool call, the deployment under its monthly
call ceiling.

An `rhl_` token is authenticated by its admission (`admit_token`): the one statement that meters it
finds its row by id and hash and returns who it names. An OIDC subject (gateway/oidc.py), whose JWT
the gateway verified, is metered the same way on a row of its own, made on first use, under the
deployment's default token limits (`DefaultToken*`); with no defaults set it has no limit and
costs no round trip. The local stdio principal is whoever started the process: unlimited, but
counted in usage and under the ceiling.

A tool call counts in the quota; any other MCP request (initialize, tools/list, ping ...) takes
from the rate limit's bucket and is refused once the quota is used up, but is not counted
(`counted=False`): a client's handshake should not eat its month.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from rhumbline.contract import ToolErrorBody
from rhumbline.gateway.identity import REASON_DESCRIPTIONS
from rhumbline.stores.relational import limits, tokens, usage
from rhumbline.stores.relational.oneshot import OneShot

if TYPE_CHECKING:
    from rhumbline.config import Settings
    from rhumbline.runtime.context import Stores

# How stale the deployment's count of the month's calls may be: the ceiling is a guard on the
# bill, so it is read once a minute per container rather than on every call.
CEILING_REFRESH = timedelta(seconds=60)


class Meter(Protocol):
    def admit_token(self, presented: tuple[str, str], now: datetime, *, counted: bool = True) -> limits.Admission:
        """Authenticate and admit a presented `rhl_` token (tokens.presented). Blocking; raises
        when the store cannot answer."""

    def admit(self, token_id: str, now: datetime, *, counted: bool = True) -> limits.Admission:
        """Admit a caller authenticated otherwise (an OIDC subject, the local principal). Blocking;
        raises when the store cannot answer."""


class RelationalMeter:
    """Admission in the relational store of `stores` (reached on each admission: after a SnapStart
    restore the container's engines are made anew)."""

    def __init__(
        self, stores: "Stores", *, monthly_ceiling: int | None = None, subject_limits: limits.Limits | None = None
    ) -> None:
        self.stores = stores
        self.monthly_ceiling = monthly_ceiling
        # An OIDC subject's limits: the deployment's default token limits (None: none).
        self.subject_limits = subject_limits or limits.Limits()
        self._lock = threading.Lock()
        self._oneshot: OneShot | None = None
        self._ceiling_checked: tuple[datetime, int] | None = None  # (when, calls that ran this month)

    @classmethod
    def from_settings(cls, settings: "Settings", stores: "Stores") -> "RelationalMeter":
        defaults = limits.Limits(settings.default_rate_per_minute, settings.default_rate_burst, settings.default_monthly_quota)
        return cls(stores, monthly_ceiling=settings.monthly_call_ceiling, subject_limits=defaults)

    def admit_token(self, presented: tuple[str, str], now: datetime, *, counted: bool = True) -> limits.Admission:
        ceiling = self._ceiling_refusal(now) if counted else None
        # Over the ceiling the token is still authenticated (a stranger learns nothing of the
        # deployment), its call taken from its bucket but not counted.
        verdict = limits.admit(self._rows().rows, presented, now, counted=counted and ceiling is None)
        if ceiling is not None and verdict.admitted:
            return replace(ceiling, holder=verdict.holder)
        return verdict

    def admit(self, token_id: str, now: datetime, *, counted: bool = True) -> limits.Admission:
        if tokens.is_stored(token_id):
            # A token row's caller is admitted with its secret only (admit_token).
            return limits.Admission(admitted=False, month=limits.month_of(now), reason="unknown")
        ceiling = self._ceiling_refusal(now) if counted else None
        if ceiling is not None:
            return ceiling
        if tokens.is_subject(token_id) and self.subject_limits.any:
            return limits.admit_subject(self._rows().rows, token_id, now, self.subject_limits, counted=counted)
        return limits.Admission(admitted=True, month=None)

    def _ceiling_refusal(self, now: datetime) -> limits.Admission | None:
        if self.monthly_ceiling is None or self._month_calls(now) < self.monthly_ceiling:
            return None
        return limits.Admission(
            admitted=False,
            month=limits.month_of(now),
            reason="ceiling_reached",
            retry_after_s=limits.round_up((limits.next_month(now) - now).total_seconds()),
            limit={"monthly_call_ceiling": self.monthly_ceiling},
        )

    def _rows(self) -> OneShot:
        # Per engine: the container's engines are made again after a reset (a SnapStart restore).
        engine = self.stores.autocommit()
        oneshot = self._oneshot
        if oneshot is None or oneshot.engine is not engine:
            oneshot = self._oneshot = OneShot(engine)
        return oneshot

    def _month_calls(self, now: datetime) -> int:
        with self._lock:
            checked = self._ceiling_checked
            fresh = checked is not None and limits.month_of(checked[0]) == limits.month_of(now)
            if fresh and checked is not None and now - checked[0] < CEILING_REFRESH:
                return checked[1]
            with self.stores.relational().connect() as connection:
                count = usage.calls_run_this_month(connection, now)
            self._ceiling_checked = (now, count)
            return count


def refusal_of(verdict: limits.Admission) -> ToolErrorBody:
    """What a caller is told when the meter refuses its call: why, the limit, and when to retry."""
    reason = verdict.reason or "unknown"
    if reason in ("unknown", "revoked", "expired"):
        return ToolErrorBody(code="unauthenticated", message=REASON_DESCRIPTIONS[reason], details={"reason": reason})
    limit = verdict.limit or {}
    details = {"retry_after_s": verdict.retry_after_s, "limit": limit}
    retry = f"in {verdict.retry_after_s} s"
    if reason == "rate_limited":
        message = (
            f"this token is over its rate limit of {limit.get('rate_per_minute')} calls per minute "
            f"(burst {limit.get('burst')}): retry {retry}"
        )
        return ToolErrorBody(code="rate_limited", message=message, details=details)
    if reason == "ceiling_reached":
        whose = f"this deployment has run its monthly ceiling of {limit.get('monthly_call_ceiling')} calls"
    else:
        whose = f"this token has used its monthly quota of {limit.get('monthly_quota')} calls"
    message = f"{whose}; it resets at the start of next month (UTC), {retry}"
    return ToolErrorBody(code="quota_exceeded", message=message, details=details)
