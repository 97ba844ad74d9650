"""The gateway's project check also covers the review tools' `repo` argument."""

from __future__ import annotations

from rhumbline.contract import Caller
from rhumbline.gateway.calls import CallRequest, check_call
from rhumbline.gateway.catalog import Catalog

CALLER = Caller(principal="p", token_id="t", projects=("acme/shop",), scopes=("read",))


def request(arguments: dict) -> CallRequest:
    return CallRequest(tool="get_pr_verdict", arguments=arguments, caller=CALLER, request_id="r")


def test_repo_is_the_project_of_a_call() -> None:
    assert request({"repo": "acme/shop", "pr_number": 1}).project == "acme/shop"
    assert request({"project": "acme/x", "repo": "acme/shop"}).project == "acme/x"
    assert request({"repo": 5}).project is None


def test_a_repo_outside_the_token_is_refused_before_dispatch() -> None:
    catalog = Catalog.from_registry()
    refused = check_call(catalog, request({"repo": "rival/shop", "pr_number": 1}))
    assert refused is not None and (refused.code, refused.message) == ("forbidden", "this token has no access to project 'rival/shop'")
    assert check_call(catalog, request({"repo": "acme/shop", "pr_number": 1})) is None
