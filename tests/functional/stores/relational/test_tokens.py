from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text

from rhumbline.contract import Caller
from rhumbline.stores.relational import tokens
from rhumbline.stores.relational.session import session_scope


def _principal() -> str:
    return f"user-{uuid.uuid4().hex[:8]}@example.com"


def _create(engine, **overrides) -> tuple[str, str]:
    arguments = {"principal": _principal(), "projects": ["acme/shop"], "scopes": ["read"]} | overrides
    with session_scope(engine) as session:
        plaintext, token = tokens.create(session, **arguments)
        return plaintext, token.id


def test_create_returns_a_well_formed_token(engine) -> None:
    principal = _principal()
    with session_scope(engine) as session:
        plaintext, token = tokens.create(
            session,
            principal=principal,
            projects=["acme/shop", "acme/api", "acme/shop"],
            scopes=["write", "read"],
            description="CI bot",
        )
    assert re.fullmatch(r"tk_[a-z0-9]{10}", token.id)
    assert re.fullmatch(r"rhl_[a-z0-9]{10}_[A-Za-z0-9_-]{43}", plaintext)
    assert plaintext.startswith("rhl_" + token.id.removeprefix("tk_") + "_")
    assert (token.principal, token.projects, token.scopes) == (principal, ["acme/shop", "acme/api"], ["read", "write"])
    assert token.description == "CI bot"
    assert (token.expires_at, token.revoked_at, token.last_used_at) == (None, None, None)


def test_verify_then_revoke(engine) -> None:
    plaintext, token_id = _create(engine)
    with session_scope(engine) as session:
        check = tokens.verify(session, plaintext)
    assert (check.ok, check.reason, check.token.id) == (True, None, token_id)

    with session_scope(engine) as session:
        assert tokens.revoke(session, token_id) is True
        assert tokens.revoke(session, token_id) is True
        assert tokens.revoke(session, "tk_doesnotexi") is False
    with session_scope(engine) as session:
        check = tokens.verify(session, plaintext)
    assert (check.ok, check.reason, check.token.id) == (False, "revoked", token_id)


def test_expired_token(engine) -> None:
    expires = datetime.now(timezone.utc) + timedelta(hours=1)
    plaintext, token_id = _create(engine, expires_at=expires)
    with session_scope(engine) as session:
        assert tokens.verify(session, plaintext, now=expires - timedelta(seconds=1)).ok is True
        check = tokens.verify(session, plaintext, now=expires)
    assert (check.ok, check.reason, check.token.id) == (False, "expired", token_id)


def test_unknown_and_malformed_tokens(engine) -> None:
    plaintext, _ = _create(engine)
    prefix, secret = plaintext[:15], plaintext[15:]
    forged = prefix + ("A" if secret[0] != "A" else "B") + secret[1:]
    with session_scope(engine) as session:
        assert tokens.verify(session, forged) == tokens.TokenCheck(ok=False, reason="unknown", token=None)
        for bad in ["", "Bearer " + plaintext, plaintext + "x", plaintext[:-1], "rhl_short_secret", None, 42]:
            assert tokens.verify(session, bad) == tokens.TokenCheck(ok=False, reason="malformed_token", token=None)


def test_last_used_at_is_written_at_most_once_a_minute(engine) -> None:
    plaintext, token_id = _create(engine)
    start = datetime.now(timezone.utc)
    for offset in (0, 30, 59, 61):
        with session_scope(engine) as session:
            assert tokens.verify(session, plaintext, now=start + timedelta(seconds=offset)).ok
    with session_scope(engine) as session:
        assert tokens.get(session, token_id).last_used_at == start + timedelta(seconds=61)


def test_the_plaintext_is_stored_nowhere(engine) -> None:
    plaintext, token_id = _create(engine, description="scan me")
    # `rhl_<id>_<secret>`: the id has no underscore, the url-safe secret may have some.
    secret = plaintext.split("_", 2)[2]
    assert len(secret) == 43
    with engine.connect() as connection:
        row = connection.execute(text("SELECT * FROM api_tokens WHERE id = :id"), {"id": token_id}).mappings().one()
    assert set(row) == {
        "id", "token_hash", "principal", "projects", "scopes", "created_at",
        "expires_at", "revoked_at", "last_used_at", "description", "toolsets",
        "rate_per_minute", "rate_burst", "monthly_quota", "bucket_level", "bucket_at", "quota_month", "quota_used",
    }
    for column, value in row.items():
        assert plaintext not in str(value), column
        assert secret not in str(value), column
        assert secret[:16] not in str(value), column
    assert re.fullmatch(r"[0-9a-f]{64}", row["token_hash"])


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"scopes": []}, "scopes must not be empty: choose from admin, cypher, read, write"),
        ({"scopes": ["read", "root", "sudo"]}, "unknown scope(s) 'root', 'sudo': choose from admin, cypher, read, write"),
        ({"projects": []}, "projects must not be empty: list 'owner/repo' slugs, or '*' for all projects"),
        ({"projects": ["acme"]}, "invalid project 'acme': expected 'owner/repo' or '*'"),
        ({"projects": ["acme/shop/extra"]}, "invalid project 'acme/shop/extra': expected 'owner/repo' or '*'"),
        ({"projects": [".hidden/repo"]}, "invalid project '.hidden/repo': expected 'owner/repo' or '*'"),
        ({"projects": ["*", "acme/shop"]}, "'*' already grants every project: pass it alone"),
        ({"principal": "  "}, "principal must be 1-200 characters (who the token is for, e.g. an email)"),
        ({"expires_at": datetime(2030, 1, 1)}, "expires_at must be timezone-aware"),
        (
            {"expires_at": datetime(2020, 1, 1, tzinfo=timezone.utc)},
            "expires_at 2020-01-01T00:00:00+00:00 is in the past",
        ),
    ],
)
def test_create_validates_its_input(engine, overrides: dict, message: str) -> None:
    arguments = {"principal": "someone", "projects": ["acme/shop"], "scopes": ["read"]} | overrides
    with session_scope(engine) as session:
        with pytest.raises(ValueError) as raised:
            tokens.create(session, **arguments)
    assert str(raised.value) == message


def test_list_get_and_to_caller(engine) -> None:
    principal = _principal()
    with session_scope(engine) as session:
        _, everything = tokens.create(session, principal=principal, projects=["*"], scopes=["admin"])
        _, reader = tokens.create(session, principal=principal, projects=["acme/shop"], scopes=["read", "cypher"])
    with session_scope(engine) as session:
        mine = {token.id for token in tokens.list_all(session) if token.principal == principal}
        assert mine == {everything.id, reader.id}
        assert tokens.get(session, reader.id).scopes == ["cypher", "read"]
        assert tokens.get(session, "tk_doesnotexi") is None

    assert tokens.to_caller(reader) == Caller(
        principal=principal, token_id=reader.id, projects=("acme/shop",), scopes=("cypher", "read")
    )
    admin = tokens.to_caller(everything)
    assert admin.can_see("any/project") and admin.has_scope("write")

