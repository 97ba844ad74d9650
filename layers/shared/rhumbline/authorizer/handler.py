"""API Gateway HTTP API Lambda REQUEST authorizer (payload 2.0, simple responses).

It always answers `isAuthorized: true` and puts its verdict in the context: an HTTP API authorizer
cannot add headers to a denial (a `false` becomes a bare 403 with no WWW-Authenticate), so the
gateway reads `authenticated` and answers a proper 401 itself. For the same reason the authorizer
has no identity source (API Gateway would answer a request without one with its own bare 401) and
so no API Gateway cache: it runs on every request. The token is never logged.

Two kinds of bearer token are accepted: the static `rhl_` tokens of the relational store, and,
when an OIDC issuer is configured, OAuth access tokens (JWTs) verified against its JWKS (oidc.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rhumbline.contract import Caller
from rhumbline.observability import lambda_entry

if TYPE_CHECKING:
    from rhumbline.authorizer.oidc import OidcVerifier

logger = logging.getLogger("rhumbline.authorizer")

REASONS = frozenset({"malformed", "malformed_token", "unknown", "expired", "revoked", "missing", "unavailable", "invalid_claims"})


def authorization_header(event: Mapping[str, Any]) -> str | None:
    headers = event.get("headers") or {}
    for name, value in headers.items():
        if name.lower() == "authorization" and value:
            return str(value)
    # The identity source is the Authorization header; API Gateway passes its value here too.
    identity = event.get("identitySource") or []
    return str(identity[0]) if identity and identity[0] else None


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and not token.startswith("rhl_")


def bearer_token(header: str | None) -> tuple[str | None, str]:
    """(token, "") or (None, reason)."""
    if header is None or not header.strip():
        return None, "missing"
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None, "malformed"
    return token, ""


def refused(reason: str) -> dict[str, Any]:
    return {"isAuthorized": True, "context": {"authenticated": "false", "reason": reason if reason in REASONS else "unknown"}}


_verifier: "OidcVerifier | None" = None


def oidc_verifier() -> "OidcVerifier | None":
    """One verifier per container (its JWKS cache lives as long), None without a configured issuer.
    PyJWT and cryptography are imported only then: a deployment without an issuer never pays them."""
    global _verifier
    from rhumbline.config import settings

    if not settings().oidc_issuer:
        return None
    from rhumbline.authorizer.oidc import OidcConfig, OidcVerifier

    config = OidcConfig.from_settings(settings())
    if config is None:
        return None
    if _verifier is None or _verifier.config != config:
        _verifier = OidcVerifier(config)
    return _verifier


def authorized(caller: Caller, toolsets: tuple[str, ...] = ()) -> dict[str, Any]:
    logger.info("authorized %s with token %s", caller.principal, caller.token_id)
    context = {
        "authenticated": "true",
        "principal": caller.principal,
        "token_id": caller.token_id,
        "projects": ",".join(caller.projects),
        "scopes": ",".join(caller.scopes),
    }
    if toolsets:
        context["toolsets"] = ",".join(toolsets)
    return {"isAuthorized": True, "context": context}


def authorize(event: dict[str, Any], context: Any) -> dict[str, Any]:
    from rhumbline.runtime import resources
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    token, reason = bearer_token(authorization_header(event))
    if token is None:
        logger.info("refused: %s authorization header", reason)
        return refused(reason)
    verifier = oidc_verifier()
    if verifier is not None and looks_like_jwt(token):
        from rhumbline.authorizer.oidc import IssuerUnreachable, OidcRefusal

        # An unreachable issuer is an outage, as a token store that is down: the gateway answers 503.
        try:
            verified = verifier.verify(token)
        except OidcRefusal as refusal:
            logger.info("refused: %s access token (%s)", refusal.reason, refusal)
            return refused(refusal.reason)
        except IssuerUnreachable as outage:
            logger.warning("OIDC issuer unreachable: %s", outage)
            return refused("unavailable")
        return authorized(verified.caller, verified.toolsets)
    # A store outage is neither a bad token (401) nor a crash (API Gateway's bare 500): the gateway
    # answers 503, and the next request asks again.
    from rhumbline.runtime.failures import expected_failure

    try:
        with session_scope(resources.relational_engine()) as session:
            check = tokens.verify(session, token)
            if not check.ok or check.token is None:
                logger.info("refused: %s token", check.reason)
                return refused(check.reason)
            caller = tokens.to_caller(check.token)
            toolsets = tuple(check.token.toolsets or ())
    except Exception as error:
        failure = expected_failure(error)
        if failure is None:
            raise
        logger.warning("token store unavailable: %s", failure.message)
        return refused("unavailable")
    return authorized(caller, toolsets)


handler = lambda_entry(authorize, function="authorizer")
