"""Who is calling: the identity the edge established from the request's bearer token
(gateway/authentication.py), and what its admission said.

Every refusal reason has one description here (RFC 6750 error_description), which the 401's body and
its `WWW-Authenticate` challenge both carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rhumbline.contract import Caller, ToolErrorBody

# What a client is told for each refusal reason (RFC 6750 error_description).
REASON_DESCRIPTIONS: dict[str, str] = {
    "missing": "no bearer token was sent",
    "malformed": "the Authorization header must be 'Bearer <token>'",
    "malformed_token": "the bearer token is not a token this server issues (rhl_ and 54 characters) nor an OAuth access token: was it copied whole?",
    "unknown": "the token is not recognized",
    "expired": "the token has expired",
    "revoked": "the token has been revoked",
    "invalid_claims": "the access token's claims are malformed: lists must be JSON arrays of strings, projects 'owner/repo' or '*' alone",
    "unavailable": "the token could not be checked (the token store or the OAuth issuer is unreachable); retry in a few seconds",
}
# The token could not be checked (its store or issuer is down): neither a bad token nor a caller.
UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class Identity:
    caller: Caller | None
    reason: str = ""  # why `caller` is None: a key of REASON_DESCRIPTIONS
    toolsets: tuple[str, ...] = ()  # the token's default toolsets (gateway/toolsets.py)
    # The edge authenticated the token in its admission (gateway/authentication.py): the request
    # is admitted unless `refusal` says why not (a limit). False: not admitted yet (stdio), the
    # request's handler admits it.
    admitted: bool = False
    refusal: ToolErrorBody | None = None

    @property
    def authenticated(self) -> bool:
        return self.caller is not None

    def description(self) -> str:
        return REASON_DESCRIPTIONS.get(self.reason, "the token was refused")


# Where the edge leaves the request's identity in the ASGI scope for the MCP handlers.
SCOPE_KEY = "rhumbline.identity"
NOBODY = Identity(caller=None, reason="missing")


def identity_of_scope(scope: Mapping[str, Any]) -> Identity:
    """The request's identity, as the edge left it (the SDK hands the handlers the same scope);
    nobody when no edge authenticated the request."""
    identity = scope.get(SCOPE_KEY)
    return identity if isinstance(identity, Identity) else NOBODY


def request_id_of(event: Mapping[str, Any] | None) -> str | None:
    """API Gateway's request id: the one id that ties the access log, the audit row and the tool's logs."""
    if not isinstance(event, Mapping):
        return None
    request_context = event.get("requestContext")
    if isinstance(request_context, Mapping) and request_context.get("requestId"):
        return str(request_context["requestId"])
    return None
