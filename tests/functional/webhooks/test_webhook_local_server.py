"""`rhumbline serve` routes POST /webhooks/github from template.yaml to the webhook function (GitHub
signs instead of sending a token), and /mcp to the gateway, which asks for a bearer token."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from rhumbline.local.functions import FunctionRunner
from rhumbline.local.server import LocalApi
from rhumbline.local.template import load_template
from rhumbline.webhooks.signature import sign
from tests.functional.reviews.review_world import DEFAULT_SECRET, ReviewWorld, payload

TEMPLATE = Path(__file__).resolve().parents[3] / "template.yaml"


@pytest.fixture
def local_api() -> LocalApi:
    template = load_template(TEMPLATE)
    return LocalApi(template, FunctionRunner(template))


def post(api: LocalApi, path: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=api)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as client:
            return await client.post(path, content=body, headers=headers)

    return asyncio.run(send())


def github_headers(body: bytes, event: str, **extra: Any) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "x-github-event": event,
        "x-github-delivery": "5f1c3a10-cc78-11e3-81ab-4c9367dc0958",
        "x-hub-signature-256": sign(DEFAULT_SECRET, body),
        **extra,
    }


def test_the_template_routes_the_webhook_and_mcp(local_api: LocalApi) -> None:
    route, _ = local_api.template.route_for("POST", "/webhooks/github")  # type: ignore[misc]
    assert route.function == "GitHubWebhookFunction"
    mcp, _ = local_api.template.route_for("POST", "/mcp")  # type: ignore[misc]
    assert mcp.function == "GatewayFunction"


# The local server is the embedded shape.
@pytest.mark.parametrize("review_world", ["embedded"], indirect=True)
def test_a_signed_delivery_goes_through_the_local_server(review_world: ReviewWorld, local_api: LocalApi) -> None:
    body = json.dumps(payload("pull_request.opened", review_world.repo)).encode()
    response = post(local_api, "/webhooks/github", body, github_headers(body, "pull_request"))
    assert response.status_code == 200, response.text
    assert response.json()["outcome"] == "processed"
    verdict = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 1347})
    assert verdict["error"]["code"] == "not_reviewed"  # the PR is recorded (not "PR not found")


# The local server is the embedded shape.
@pytest.mark.parametrize("review_world", ["embedded"], indirect=True)
def test_an_unsigned_delivery_is_refused_by_the_function(review_world: ReviewWorld, local_api: LocalApi) -> None:
    body = json.dumps(payload("pull_request.opened", review_world.repo)).encode()
    headers = github_headers(body, "pull_request")
    del headers["x-hub-signature-256"]
    response = post(local_api, "/webhooks/github", body, headers)
    assert (response.status_code, response.json()) == (
        401, {"error": "missing or malformed X-Hub-Signature-256 header: expected sha256=<64 hex digits>"})  # fmt: skip
    # /mcp without a bearer token is the gateway's 401, with the OAuth challenge.
    mcp = post(local_api, "/mcp", b"{}", {"content-type": "application/json"})
    assert (mcp.status_code, mcp.json()["error_description"]) == (401, "no bearer token was sent")
    assert "resource_metadata=" in mcp.headers["www-authenticate"]
