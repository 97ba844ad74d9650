"""OAuth access tokens from a real local issuer (tests/oidc_issuer.py): JWKS caching, `kid`
rotation, every refusal, the claim mapping, and the gateway accepting them beside `rhl_` tokens."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from tests.oidc_issuer import SigningKey, LocalIssuer, running_issuer

from rhumbline.config import settings
from rhumbline.gateway import authentication
from rhumbline.gateway.authentication import Authenticator
from rhumbline.gateway.identity import Identity
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.gateway.oidc import IssuerUnreachable, OidcConfig, OidcRefusal, OidcVerifier
from rhumbline.runtime.context import Stores
from rhumbline.stores.relational.schema.base import utcnow


@pytest.fixture(scope="module")
def issuer() -> Iterator[LocalIssuer]:
    with running_issuer() as running:
        yield running


def verifier(issuer: LocalIssuer, **config: Any) -> OidcVerifier:
    options = {"audiences": ("rhumbline",), "scope_prefix": "rhumbline/", "default_projects": ("acme/shop",), **config}
    return OidcVerifier(OidcConfig(issuer=issuer.url, **options), cooldown=0)


def test_claims_map_to_principal_projects_scopes_and_toolsets(issuer: LocalIssuer) -> None:
    token = issuer.token(
        aud="rhumbline", scope="openid rhumbline/read rhumbline/cypher other/write", email="ann@example.com",
        rhumbline_projects=["acme/web", "acme/api"], rhumbline_toolsets=["code", "review"],
    )
    verified = verifier(issuer, principal_claim="email").verify(token)
    assert verified.caller.principal == "ann@example.com"
    assert verified.caller.scopes == ("cypher", "read")
    assert verified.caller.projects == ("acme/web", "acme/api")
    assert verified.toolsets == ("code", "review")
    # One stable id per user of the issuer, within the audit column's 16 characters.
    assert verified.caller.token_id.startswith("oidc_") and len(verified.caller.token_id) == 16
    assert verifier(issuer).verify(issuer.token(client_id="rhumbline", scope="rhumbline/read")).caller.token_id == verified.caller.token_id


def test_absent_projects_claim_takes_the_default_and_the_jwks_is_fetched_once(issuer: LocalIssuer) -> None:
    checker = verifier(issuer)
    before = issuer.jwks_fetches
    for _ in range(3):
        caller = checker.verify(issuer.token(client_id="rhumbline", scope="rhumbline/read")).caller
        assert caller.projects == ("acme/shop",) and caller.principal == "user-1"
    assert issuer.jwks_fetches == before + 1


def test_a_rotated_key_is_fetched_when_a_token_names_its_kid(issuer: LocalIssuer) -> None:
    checker = verifier(issuer)
    checker.verify(issuer.token(aud="rhumbline", scope="rhumbline/read"))
    fetched = issuer.jwks_fetches
    new_key = issuer.rotate()
    assert checker.verify(issuer.token(key=new_key, aud="rhumbline", scope="rhumbline/read")).caller.scopes == ("read",)
    assert issuer.jwks_fetches == fetched + 1


@pytest.mark.parametrize(
    ("make", "reason", "detail"),
    [
        (lambda i: i.token(aud="rhumbline", scope="rhumbline/read", lifetime=-120), "expired", "expired"),
        (lambda i: i.token(aud="someone-else", scope="rhumbline/read"), "unknown", "another audience"),
        (lambda i: i.token(aud="rhumbline", scope="openid profile"), "unknown", "none of the scopes"),
        (lambda i: i.token(aud="rhumbline", scope="rhumbline/read", iss="https://evil.example"), "unknown", "issuer"),
        (lambda i: i.token(aud="rhumbline", scope="rhumbline/read", token_use="id"), "unknown", "ID token"),
        (lambda i: i.token(key=SigningKey.generate(i.keys[0].kid), aud="rhumbline", scope="rhumbline/read"), "unknown", "Signature"),
        (lambda i: i.token(key=SigningKey.generate("stranger"), aud="rhumbline", scope="rhumbline/read"), "unknown", "kid"),
        (lambda i: jwt.encode({"iss": i.url, "sub": "x", "exp": 9999999999}, None, algorithm="none"), "unknown", "key id"),
        (lambda i: jwt.encode({"iss": i.url, "sub": "x", "exp": 9999999999}, "a-shared-secret-of-thirty-two-bytes!", algorithm="HS256"), "unknown", "key id"),
        (lambda i: "not.a.jwt", "malformed_token", "not a JWT"),
    ],
)
def test_bad_tokens_are_refused_with_their_reason(issuer: LocalIssuer, make: Any, reason: str, detail: str) -> None:
    with pytest.raises(OidcRefusal) as refused:
        verifier(issuer).verify(make(issuer))
    assert refused.value.reason == reason and detail in str(refused.value)


def test_an_unreachable_issuer_is_an_outage_not_a_bad_token(gateway_stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    checker = OidcVerifier(OidcConfig(issuer="http://127.0.0.1:9", jwks_uri="http://127.0.0.1:9/jwks"))
    with running_issuer() as other:
        token = other.token(scope="read")
    with pytest.raises(IssuerUnreachable, match="cannot fetch the issuer's keys"):
        checker.verify(token)
    # The gateway says so (its edge answers 503 with Retry-After), as for a token store outage.
    monkeypatch.setenv("RHUMBLINE_OIDC_ISSUER", "http://127.0.0.1:9")
    monkeypatch.setattr(authentication, "_verifier", None)
    settings.cache_clear()
    try:
        identity = Authenticator(RelationalMeter(gateway_stores), utcnow).authenticate(f"Bearer {token}", counted=False)
        assert identity == Identity(caller=None, reason="unavailable")
    finally:
        settings.cache_clear()


def test_the_gateway_accepts_issuer_tokens_beside_static_ones(
    issuer: LocalIssuer, gateway_stores: Stores, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    monkeypatch.setenv("RHUMBLINE_OIDC_ISSUER", issuer.url)
    monkeypatch.setenv("RHUMBLINE_OIDC_DEFAULT_PROJECTS", "*")
    monkeypatch.setattr(authentication, "_verifier", None)
    settings.cache_clear()
    authenticate = Authenticator(RelationalMeter(gateway_stores), utcnow).authenticate
    try:
        identity = authenticate(f"Bearer {issuer.token(scope='read write', rhumbline_toolsets=['code'])}", counted=True)
        assert identity.caller is not None and identity.admitted and identity.refusal is None
        assert (identity.caller.principal, identity.caller.projects, identity.caller.scopes) == ("user-1", ("*",), ("read", "write"))
        assert identity.caller.token_id.startswith("oidc_") and identity.toolsets == ("code",)
        expired = authenticate(f"Bearer {issuer.token(scope='read', lifetime=-120)}", counted=False)
        assert expired == Identity(caller=None, reason="expired")
        with session_scope(gateway_stores.relational()) as session:
            plaintext, _ = tokens.create(session, principal="bob", projects=["acme/shop"], scopes=["read"])
        static = authenticate(f"Bearer {plaintext}", counted=False)
        assert static.caller is not None and static.caller.principal == "bob" and static.toolsets == ()
    finally:
        settings.cache_clear()
