"""Who is calling, read from the API Gateway authorizer context of the raw Lambda event.

The authorizer (rhumbline.authorizer.handler) always authorizes the HTTP request and passes its
verdict as context, so the gateway can answer a proper 401. Context values are strings: lists are
comma-separated, booleans are "true"/"false". Splitting them back is lossless because no item can
hold a comma: the authorizer admits only project slugs (or `*`), our scope names and toolset names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from rhumbline.contract import Caller

# What a client is told for each authorizer failure reason (RFC 6750 error_description).
REASON_DESCRIPTIONS: dict[str, str] = {
    "missing": "no bearer token was sent",
    "malformed": "the Authorization header must be 'Bearer <token>'",
    "malformed_token": "the bearer token is not a token this server issues (rhl_ and 54 characters) nor an OAuth access token: was it copied whole?",
    "unknown": "the token is not recognized",
    "expired": "the token has expired",
    "revoked": "the token has been revoked",
    "invalid_claims": "the access token's claims are malformed: lists must be JSON arrays of strings, projects 'owner/repo' or '*' alone",
    "no_context": "the request carries no authorizer verdict",
    "bad_context": "the authorizer verdict is malformed",
    "unavailable": "the token could not be checked (the token store or the OAuth issuer is unreachable); retry in a few seconds",
}
# The authorizer could not check the token (its store or issuer is down): neither a bad token nor a caller.
UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class Identity:
    caller: Caller | None
    reason: str = ""  # why `caller` is None: a key of REASON_DESCRIPTIONS
    toolsets: tuple[str, ...] = ()  # the token's default toolsets (gateway/toolsets.py)

    @property
    def authenticated(self) -> bool:
        return self.caller is not None

    def description(self) -> str:
        return REASON_DESCRIPTIONS.get(self.reason, "the token was refused")


def authorizer_context(event: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The Lambda authorizer's context in an HTTP API v2 event, or None when there is none."""
    if not isinstance(event, Mapping):
        return None
    request_context = event.get("requestContext")
    if not isinstance(request_context, Mapping):
        return None
    authorizer = request_context.get("authorizer")
    if not isinstance(authorizer, Mapping):
        return None
    context = authorizer.get("lambda")
    return context if isinstance(context, Mapping) else None


def split_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, str):
        return ()
    return tuple(item.strip() for item in value.split(",") if item.strip())


def identity_from_context(context: Mapping[str, Any] | None) -> Identity:
    if context is None:
        return Identity(caller=None, reason="no_context")
    # API Gateway may hand simple-response booleans through as booleans, our authorizer sends strings.
    if str(context.get("authenticated", "")).lower() != "true":
        return Identity(caller=None, reason=str(context.get("reason") or "unknown"))
    try:
        caller = Caller(
            principal=str(context.get("principal") or ""),
            token_id=str(context.get("token_id") or ""),
            projects=split_list(context.get("projects")),
            scopes=split_list(context.get("scopes")),  # type: ignore[arg-type]
        )
    except ValidationError:
        return Identity(caller=None, reason="bad_context")
    if not caller.principal or not caller.token_id:
        return Identity(caller=None, reason="bad_context")
    return Identity(caller=caller, toolsets=split_list(context.get("toolsets")))


def identity_from_event(event: Mapping[str, Any] | None) -> Identity:
    return identity_from_context(authorizer_context(event))


# Where the edge leaves the request's identity in the ASGI scope for the MCP handlers.
SCOPE_KEY = "rhumbline.identity"


def identity_of_scope(scope: Mapping[str, Any]) -> Identity:
    """The request's identity: the one the edge read from the event (the SDK hands the handlers the
    same scope), else read from the event here (an app driven without the edge, in tests)."""
    identity = scope.get(SCOPE_KEY)
    if isinstance(identity, Identity):
        return identity
    return identity_from_event(scope.get("aws.event"))


def request_id_of(event: Mapping[str, Any] | None) -> str | None:
    """API Gateway's request id: the one id that ties the access log, the audit row and the tool's logs."""
    if not isinstance(event, Mapping):
        return None
    request_context = event.get("requestContext")
    if isinstance(request_context, Mapping) and request_context.get("requestId"):
        return str(request_context["requestId"])
    return None
