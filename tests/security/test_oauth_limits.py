"""OAuth (OIDC) callers are held to the deployment's default token limits, end to end: a real JWT
from a local issuer, verified by the gateway wired as its Lambda entry wires it
(`RelationalMeter.from_settings`, the `DefaultToken*` parameters' environment), on SQLite and on
PostgreSQL. Once, 60 calls of one OIDC user ran in 0.26 s under a default of 10 a minute."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from tests.functional.gateway.gateway_harness import call_legacy
from tests.functional.gateway.test_gateway_metering import store  # noqa: F401 - the fixture is used by name
from tests.oidc_issuer import LocalIssuer, running_issuer

from rhumbline.config import settings
from rhumbline.gateway import authentication
from rhumbline.gateway.audit import RelationalAuditLog
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.container import GatewayContainer
from rhumbline.gateway.dispatch import InProcessDispatcher
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.gateway.server import build_gateway_app
from rhumbline.runtime.context import Stores

RATE = 10


@pytest.fixture(scope="module")
def issuer() -> Iterator[LocalIssuer]:
    with running_issuer() as running:
        yield running


@pytest.fixture
def send(store: Stores, issuer: LocalIssuer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Any]]:  # noqa: F811
    """A request with a bearer token through a gateway built from the settings."""
    monkeypatch.setenv("RHUMBLINE_OIDC_ISSUER", issuer.url)
    monkeypatch.setenv("RHUMBLINE_OIDC_DEFAULT_PROJECTS", "*")
    monkeypatch.setenv("RHUMBLINE_DEFAULT_RATE_PER_MINUTE", str(RATE))
    settings.cache_clear()
    monkeypatch.setattr(authentication, "_verifier", None)
    current = settings()
    catalog = Catalog.from_registry()
    calls = ToolCalls(catalog, InProcessDispatcher(store), RelationalAuditLog(store), RelationalMeter.from_settings(current, store), tool_timeout=10.0)
    container = GatewayContainer(*build_gateway_app(replace(current, mode="hosted"), catalog, calls)).start()
    handler = container.lambda_handler()

    def request(token: str, method: str, params: dict[str, Any] | None = None) -> Any:
        return call_legacy(handler, method, params, token=token)

    yield request
    container.stop()
    settings.cache_clear()


def test_an_oidc_user_gets_the_default_rate_limit(send: Callable[..., Any], issuer: LocalIssuer) -> None:
    alice, bob = issuer.token(scope="read", sub="alice"), issuer.token(scope="read", sub="bob")
    started = time.perf_counter()
    answers = [send(alice, "tools/call", {"name": "list_projects", "arguments": {}}).result for _ in range(60)]
    elapsed = time.perf_counter() - started
    passed = sum(not answer["isError"] for answer in answers)
    print(f"60 calls of one OIDC user in {elapsed:.2f} s under {RATE}/min: {passed} answered")
    assert passed == RATE
    assert {answer["content"][0]["text"].split(":")[0] for answer in answers[RATE:]} == {"rate_limited"}
    # tools/list is throttled too; another user of the issuer has a bucket of their own.
    assert send(alice, "tools/list").json["error"]["data"]["code"] == "rate_limited"
    assert "result" in send(bob, "tools/list").json
