from __future__ import annotations

import pytest

from rhumbline.gateway.identity import REASON_DESCRIPTIONS, Identity, identity_of_scope, request_id_of


@pytest.mark.parametrize(
    ("reason", "description"),
    [
        ("missing", "no bearer token was sent"),
        ("expired", "the token has expired"),
        ("revoked", "the token has been revoked"),
        ("unknown", "the token is not recognized"),
        ("strange", "the token was refused"),
    ],
)
def test_refusals_carry_a_reason(reason: str, description: str) -> None:
    identity = Identity(caller=None, reason=reason)
    assert not identity.authenticated
    assert (identity.reason, identity.description()) == (reason, description)


def test_every_reason_has_one_description() -> None:
    from rhumbline.stores.relational import limits

    assert limits.DEAD <= set(REASON_DESCRIPTIONS)


def test_nobody_is_calling_without_the_edge_and_the_request_id_is_api_gateways() -> None:
    assert identity_of_scope({"aws.event": {}}) == Identity(caller=None, reason="missing")
    assert request_id_of({"requestContext": {"requestId": "abc"}}) == "abc"
    assert request_id_of({"requestContext": {}}) is None
    assert request_id_of(None) is None
