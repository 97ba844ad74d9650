"""The gateway's own authentication (gateway/authentication.py) against a real (SQLite) token
store: the caller an `rhl_` token names, every refusal with its reason, no query for a header
that names no token of ours, and the token never logged. Through the handler: tests/functional/
gateway/test_gateway_protocols.py (the 401s), test_gateway_metering.py (revoked, expired)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from tests.functional.gateway.conftest import unreachable_relational

from rhumbline.contract import Caller
from rhumbline.gateway.authentication import Authenticator
from rhumbline.gateway.identity import Identity
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.runtime.context import Stores
from rhumbline.stores.relational.schema.base import utcnow


@pytest.fixture
def authenticate(gateway_stores: Stores) -> Any:
    authenticator = Authenticator(RelationalMeter(gateway_stores), utcnow)
    return lambda header, counted=False: authenticator.authenticate(header, counted=counted)


@pytest.fixture
def issue(gateway_stores: Stores) -> Any:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    def create(**overrides: Any) -> tuple[str, str]:
        options = {"principal": "bob@example.com", "projects": ["acme/shop", "acme/web"], "scopes": ["read", "write"]}
        with session_scope(gateway_stores.relational()) as session:
            plaintext, token = tokens.create(session, **{**options, **overrides})
            return plaintext, token.id

    return create


def test_a_valid_token_yields_its_caller_admitted(authenticate: Any, issue: Any) -> None:
    plaintext, token_id = issue(toolsets=["code"])
    identity = authenticate(f"Bearer {plaintext}")
    caller = Caller(principal="bob@example.com", token_id=token_id, projects=("acme/shop", "acme/web"), scopes=("read", "write"))
    assert identity == Identity(caller=caller, toolsets=("code",), admitted=True, refusal=None)


def test_the_scheme_is_case_insensitive(authenticate: Any, issue: Any) -> None:
    plaintext, _ = issue()
    assert authenticate(f"bearer {plaintext}").authenticated


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        (None, "missing"),
        ("", "missing"),
        ("Basic Ym9iOnNlY3JldA==", "malformed"),
        ("Bearer", "malformed"),
        ("Bearer not-a-rhumbline-token", "malformed_token"),
        ("Bearer rhl_abcdefghij_" + "A" * 43, "unknown"),
    ],
)
def test_refusals_carry_their_reason(authenticate: Any, header: str | None, reason: str) -> None:
    assert authenticate(header) == Identity(caller=None, reason=reason)


def test_a_header_naming_no_token_of_ours_costs_no_query(gateway_stores: Stores) -> None:
    # A store that cannot be reached would answer `unavailable`: these are refused before asking it.
    authenticator = Authenticator(RelationalMeter(unreachable_relational(gateway_stores)), utcnow)

    def authenticate(header: str | None) -> Identity:
        return authenticator.authenticate(header, counted=False)

    for header, reason in ((None, "missing"), ("Basic x", "malformed"), ("Bearer rhl_short", "malformed_token")):
        assert authenticate(header) == Identity(caller=None, reason=reason)
    assert authenticate("Bearer rhl_abcdefghij_" + "A" * 43).reason == "unavailable"


def test_a_secret_of_another_tokens_id_is_unknown(authenticate: Any, issue: Any) -> None:
    plaintext, _ = issue()
    other, _ = issue()
    # One token's id with another's secret: the row is found by both, so by neither.
    forged = plaintext[: len("rhl_") + 11] + other[len("rhl_") + 11 :]
    assert authenticate(f"Bearer {forged}") == Identity(caller=None, reason="unknown")


def test_revoked_and_expired_tokens_are_refused(authenticate: Any, issue: Any, gateway_stores: Stores) -> None:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    revoked, revoked_id = issue()
    expired, expired_id = issue(expires_at=datetime.now(timezone.utc) + timedelta(days=1))
    with session_scope(gateway_stores.relational()) as session:
        tokens.revoke(session, revoked_id)
        tokens.get(session, expired_id).expires_at = datetime.now(timezone.utc) - timedelta(seconds=1)
    assert authenticate(f"Bearer {revoked}") == Identity(caller=None, reason="revoked")
    assert authenticate(f"Bearer {expired}") == Identity(caller=None, reason="expired")


def test_a_token_over_its_limit_is_authenticated_and_refused(authenticate: Any, issue: Any) -> None:
    plaintext, token_id = issue(monthly_quota=1)
    assert authenticate(f"Bearer {plaintext}", counted=True).refusal is None
    over = authenticate(f"Bearer {plaintext}", counted=True)
    assert over.caller is not None and over.caller.token_id == token_id
    assert over.refusal is not None and over.refusal.code == "quota_exceeded"


def test_the_token_is_never_logged(authenticate: Any, issue: Any, caplog: Any) -> None:
    plaintext, _ = issue()
    # The package logger's own level too: it is set once, from whatever POWERTOOLS_LOG_LEVEL was then.
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="rhumbline"):
        authenticate(f"Bearer {plaintext}")
        authenticate(f"Bearer {plaintext}x")
        authenticate(f"Bearer {plaintext[:-1]}x")
    assert caplog.records
    assert plaintext not in caplog.text and plaintext[:-1] not in caplog.text


def test_the_gateway_knows_the_stores_token_prefix() -> None:
    from rhumbline.gateway import authentication
    from rhumbline.stores.relational import tokens

    assert authentication.TOKEN_PREFIX == tokens.TOKEN_PREFIX
