"""The Lambda REQUEST authorizer against a real (SQLite) token store."""

from __future__ import annotations

import importlib.util
import logging
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from rhumbline.runtime import resources

AUTHORIZER_APP = Path(__file__).resolve().parents[3] / "functions" / "authorizer" / "app.py"


@pytest.fixture(scope="module")
def handler() -> Any:
    spec = importlib.util.spec_from_file_location("authorizer_app_under_test", AUTHORIZER_APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.handler


@pytest.fixture
def issue(local_store: Path) -> Any:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    def create(**overrides: Any) -> tuple[str, str]:
        options = {"principal": "bob@example.com", "projects": ["acme/shop", "acme/web"], "scopes": ["read", "write"]}
        with session_scope(resources.relational_engine()) as session:
            plaintext, token = tokens.create(session, **{**options, **overrides})
            return plaintext, token.id

    return create


def authorizer_event(headers: dict[str, str]) -> dict[str, Any]:
    return {
        "version": "2.0",
        "type": "REQUEST",
        "routeArn": "arn:aws:execute-api:eu-west-1:123456789012:abc123/$default/POST/mcp",
        "identitySource": [value for name, value in headers.items() if name.lower() == "authorization"],
        "routeKey": "POST /mcp",
        "rawPath": "/mcp",
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {"http": {"method": "POST", "path": "/mcp"}, "requestId": "r1", "stage": "$default"},
    }


def test_a_valid_token_yields_the_caller_as_context(handler: Any, issue: Any) -> None:
    plaintext, token_id = issue()
    answer = handler(authorizer_event({"authorization": f"Bearer {plaintext}"}), None)
    assert answer == {
        "isAuthorized": True,
        "context": {
            "authenticated": "true",
            "principal": "bob@example.com",
            "token_id": token_id,
            "projects": "acme/shop,acme/web",
            "scopes": "read,write",
        },
    }


def test_header_name_and_scheme_are_case_insensitive(handler: Any, issue: Any) -> None:
    plaintext, _ = issue()
    answer = handler(authorizer_event({"Authorization": f"bearer {plaintext}"}), None)
    assert answer["context"]["authenticated"] == "true"


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({}, "missing"),
        ({"authorization": "Basic Ym9iOnNlY3JldA=="}, "malformed"),
        ({"authorization": "Bearer"}, "malformed"),
        ({"authorization": "Bearer not-a-rhumbline-token"}, "malformed_token"),
        ({"authorization": "Bearer rhl_abcdefghij_" + "A" * 43}, "unknown"),
    ],
)
def test_refusals_pass_through_with_a_reason(handler: Any, local_store: Path, headers: dict[str, str], reason: str) -> None:
    assert handler(authorizer_event(headers), None) == {
        "isAuthorized": True,
        "context": {"authenticated": "false", "reason": reason},
    }


def test_revoked_and_expired_tokens_are_refused(handler: Any, issue: Any) -> None:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    revoked, revoked_id = issue()
    expired, expired_id = issue(expires_at=datetime.now(timezone.utc) + timedelta(days=1))
    with session_scope(resources.relational_engine()) as session:
        tokens.revoke(session, revoked_id)
        tokens.get(session, expired_id).expires_at = datetime.now(timezone.utc) - timedelta(seconds=1)
    assert handler(authorizer_event({"authorization": f"Bearer {revoked}"}), None)["context"]["reason"] == "revoked"
    assert handler(authorizer_event({"authorization": f"Bearer {expired}"}), None)["context"]["reason"] == "expired"


def test_the_token_is_never_logged(handler: Any, issue: Any, caplog: Any) -> None:
    plaintext, _ = issue()
    # The package logger's own level too: it is set once, from whatever POWERTOOLS_LOG_LEVEL was then.
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="rhumbline"):
        handler(authorizer_event({"authorization": f"Bearer {plaintext}"}), None)
        handler(authorizer_event({"authorization": f"Bearer {plaintext}x"}), None)
    assert caplog.records
    assert plaintext not in caplog.text
