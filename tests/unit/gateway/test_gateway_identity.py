from __future__ import annotations

import pytest

from rhumbline.contract import Caller
from rhumbline.gateway.identity import authorizer_context, identity_from_context, identity_from_event, request_id_of, split_list

CONTEXT = {"authenticated": "true", "principal": "alice", "token_id": "tk_1", "projects": "acme/shop, acme/web", "scopes": "read,write"}


def test_an_authenticated_context_becomes_a_caller() -> None:
    identity = identity_from_context(CONTEXT)
    assert identity.authenticated
    assert identity.caller == Caller(principal="alice", token_id="tk_1", projects=("acme/shop", "acme/web"), scopes=("read", "write"))


def test_api_gateway_booleans_are_accepted_as_well_as_strings() -> None:
    assert identity_from_context({**CONTEXT, "authenticated": True}).authenticated


@pytest.mark.parametrize(
    ("context", "reason", "description"),
    [
        (None, "no_context", "the request carries no authorizer verdict"),
        ({"authenticated": "false", "reason": "expired"}, "expired", "the token has expired"),
        ({"authenticated": "false", "reason": "revoked"}, "revoked", "the token has been revoked"),
        ({"authenticated": "false"}, "unknown", "the token is not recognized"),
        ({**CONTEXT, "scopes": "read,superuser"}, "bad_context", "the authorizer verdict is malformed"),
        ({**CONTEXT, "principal": ""}, "bad_context", "the authorizer verdict is malformed"),
        ({"authenticated": "false", "reason": "strange"}, "strange", "the token was refused"),
    ],
)
def test_refusals_carry_a_reason(context: dict | None, reason: str, description: str) -> None:
    identity = identity_from_context(context)
    assert not identity.authenticated
    assert (identity.reason, identity.description()) == (reason, description)


def test_the_context_is_read_from_the_v2_event() -> None:
    event = {"requestContext": {"requestId": "abc", "authorizer": {"lambda": CONTEXT}}}
    assert authorizer_context(event) == CONTEXT
    assert identity_from_event(event).caller.principal == "alice"
    assert request_id_of(event) == "abc"
    assert authorizer_context({"requestContext": {"authorizer": {"jwt": {}}}}) is None
    assert authorizer_context(None) is None
    assert request_id_of({"requestContext": {}}) is None


def test_lists_are_comma_separated_and_trimmed() -> None:
    assert split_list(" a , b,,c ") == ("a", "b", "c")
    assert split_list("") == ()
    assert split_list(None) == ()
