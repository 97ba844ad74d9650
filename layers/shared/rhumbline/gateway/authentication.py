"""The gateway authenticates each request itself, from its `Authorization: Bearer` header: no
Lambda authorizer runs before it.

Two kinds of bearer token are accepted: the static `rhl_` tokens of the relational store, and,
when an OIDC issuer is configured, OAuth access tokens (JWTs) verified against its JWKS (oidc.py,
one verifier and so one key cache per container). An `rhl_` token is checked by its admission
(gateway/meter.py): the one statement that meters the request finds the token's row by id and hash,
so authentication adds no round trip. A header that is missing, malformed or not in a token format
we issue is refused before any query. The token is never logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from rhumbline.gateway.identity import UNAVAILABLE, Identity

if TYPE_CHECKING:
    from rhumbline.gateway.meter import Meter
    from rhumbline.gateway.oidc import OidcVerifier
    from rhumbline.stores.relational import limits

logger = logging.getLogger("rhumbline.gateway")
# The prefix of the relational store's tokens (stores/relational/tokens.py, checked equal by a
# test): the store's modules, and SQLAlchemy with them, load with the first admission, not at init.
TOKEN_PREFIX = "rhl_"


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and not token.startswith(TOKEN_PREFIX)


def bearer_token(header: str | None) -> tuple[str | None, str]:
    """(token, "") or (None, reason)."""
    if header is None or not header.strip():
        return None, "missing"
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None, "malformed"
    return token, ""


_verifier: "OidcVerifier | None" = None


def oidc_verifier() -> "OidcVerifier | None":
    """One verifier per container (its JWKS cache lives as long), None without a configured issuer.
    PyJWT and cryptography are imported only then: a deployment without an issuer never pays them."""
    global _verifier
    from rhumbline.config import settings

    if not settings().oidc_issuer:
        return None
    from rhumbline.gateway.oidc import OidcConfig, OidcVerifier

    config = OidcConfig.from_settings(settings())
    if config is None:
        return None
    if _verifier is None or _verifier.config != config:
        _verifier = OidcVerifier(config)
    return _verifier


def refused(reason: str) -> Identity:
    return Identity(caller=None, reason=reason)


def admitted(verdict: "limits.Admission", identity: Identity) -> Identity:
    """`identity` with the admission's verdict: a refusal names the limit and when to retry."""
    from rhumbline.gateway.meter import refusal_of

    refusal = None if verdict.admitted else refusal_of(verdict)
    return Identity(caller=identity.caller, toolsets=identity.toolsets, admitted=True, refusal=refusal)


class Authenticator:
    """Blocking: run on a worker thread, as the admission it performs queries the store."""

    def __init__(self, meter: "Meter", clock: Callable[[], datetime]) -> None:
        self.meter = meter
        self.clock = clock

    def authenticate(self, header: str | None, *, counted: bool) -> Identity:
        """The caller the header's token names, admitted (`counted`: a tool call); or why not."""
        token, reason = bearer_token(header)
        if token is None:
            logger.info("refused: %s authorization header", reason)
            return refused(reason)
        # A store or issuer outage is neither a bad token (401) nor a crash: the edge answers 503.
        from rhumbline.runtime.failures import expected_failure

        try:
            verifier = oidc_verifier()
            if verifier is not None and looks_like_jwt(token):
                return self.oauth(verifier, token, counted=counted)
            return self.static(token, counted=counted)
        except Exception as error:  # noqa: BLE001 - fail closed: an unchecked token is never let through
            failure = expected_failure(error)
            if failure is None:
                logger.exception("the token could not be checked")
            else:
                logger.warning("token store unavailable: %s", failure.message)
            return refused(UNAVAILABLE)

    def static(self, token: str, *, counted: bool) -> Identity:
        from rhumbline.stores.relational import limits, tokens

        presented = tokens.presented(token)
        if presented is None:
            logger.info("refused: malformed token")
            return refused("malformed_token")
        verdict = self.meter.admit_token(presented, self.clock(), counted=counted)
        if verdict.holder is None:
            logger.info("refused: %s token", verdict.reason)
            return refused(verdict.reason if verdict.reason in limits.DEAD else "unknown")
        holder = verdict.holder
        logger.info("authenticated %s with token %s", holder.caller.principal, holder.caller.token_id)
        return admitted(verdict, Identity(caller=holder.caller, toolsets=holder.toolsets))

    def oauth(self, verifier: "OidcVerifier", token: str, *, counted: bool) -> Identity:
        from rhumbline.gateway.oidc import IssuerUnreachable, OidcRefusal

        try:
            verified = verifier.verify(token)
        except OidcRefusal as refusal:
            logger.info("refused: %s access token (%s)", refusal.reason, refusal)
            return refused(refusal.reason)
        except IssuerUnreachable as outage:
            logger.warning("OIDC issuer unreachable: %s", outage)
            return refused(UNAVAILABLE)
        caller = verified.caller
        logger.info("authenticated %s with an access token (%s)", caller.principal, caller.token_id)
        verdict = self.meter.admit(caller.token_id, self.clock(), counted=counted)
        return admitted(verdict, Identity(caller=caller, toolsets=verified.toolsets))
