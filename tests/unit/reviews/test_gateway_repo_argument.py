"""The gateway checks the project argument each spec names: `repo` for the review tools."""

from __future__ import annotations

from rhumbline.contract import Caller
from rhumbline.gateway.calls import CallRequest, check_call, project_of
from rhumbline.gateway.catalog import Catalog

CALLER = Caller(principal="p", token_id="t", projects=("acme/shop",), scopes=("read",))


def request(arguments: dict) -> CallRequest:
    return CallRequest(tool="get_pr_verdict", arguments=arguments, caller=CALLER, request_id="r")


def test_repo_is_the_project_of_a_review_call() -> None:
    catalog = Catalog.from_registry()
    assert project_of(catalog, request({"repo": "acme/shop", "pr_number": 1})) == "acme/shop"
    # Only the argument the spec names: a stray `project` is no project of this tool.
    assert project_of(catalog, request({"project": "acme/x", "repo": "acme/shop"})) == "acme/shop"
    assert project_of(catalog, request({"repo": 5})) is None
    search = CallRequest(tool="search", arguments={"repo": "acme/x", "project": "acme/y"}, caller=CALLER, request_id="r")
    assert project_of(catalog, search) == "acme/y"


def test_a_repo_outside_the_token_is_refused_before_dispatch() -> None:
    catalog = Catalog.from_registry()
    refused = check_call(catalog, request({"repo": "rival/shop", "pr_number": 1}))
    assert refused is not None and (refused.code, refused.message) == ("forbidden", "this token has no access to project 'rival/shop'")
    assert check_call(catalog, request({"repo": "acme/shop", "pr_number": 1})) is None
