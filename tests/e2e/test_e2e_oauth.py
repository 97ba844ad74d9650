"""OAuth against a real `rhumbline serve`: an SDK client with no token finds the authorization
server through the 401 challenge and the protected-resource metadata, registers, is authorized,
asks a local test issuer for a token, and calls tools with the JWT it got. And toolsets over HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from tests.e2e.conftest import RHUMBLINE, SHOP_SOURCE, free_port, run_cli, wait_until_serving
from tests.oidc_issuer import LocalIssuer, running_issuer

from rhumbline.runtime.spec import all_specs

REDIRECT_URI = "http://127.0.0.1:1/callback"  # never reached: the test reads the redirect itself


@dataclass(frozen=True)
class OAuthServer:
    url: str
    base: str
    issuer: LocalIssuer
    static_token: str
    home: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthServer]:
    root = tmp_path_factory.mktemp("oauth")
    with running_issuer() as issuer:
        issuer.claims = {"rhumbline_projects": ["acme/shop"], "email": "ann@example.com"}
        env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
        env.update(
            RHUMBLINE_HOME=str(root / "home"), PYTHONUNBUFFERED="1", RHUMBLINE_OIDC_ISSUER=issuer.url,
            RHUMBLINE_OIDC_PRINCIPAL_CLAIM="email",
        )
        (root / "shop" / "pkg").mkdir(parents=True)
        (root / "shop" / "pkg" / "shop.py").write_text(SHOP_SOURCE)
        assert run_cli(env, "ingest", str(root / "shop"), "--project", "acme/shop").returncode == 0
        created = run_cli(env, "token", "create", "--principal", "ci", "--projects", "*", "--scopes", "read,write")
        port = free_port()
        log = (root / "serve.log").open("wb")
        process = subprocess.Popen(
            [str(RHUMBLINE), "serve", "--port", str(port)], env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_serving(process, base)
            yield OAuthServer(
                url=f"{base}/mcp", base=base, issuer=issuer, static_token=created.stdout.strip(), home=root / "home"
            )
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def test_every_401_names_the_metadata_which_names_the_issuer(served: OAuthServer) -> None:
    metadata_url = f"{served.base}/.well-known/oauth-protected-resource/mcp"
    for headers in ({}, {"Authorization": "Bearer rhl_nope_nope"}, {"Authorization": "Basic eDp5"}):
        answer = httpx.post(served.url, json={}, headers=headers, timeout=10)
        assert answer.status_code == 401
        assert f'resource_metadata="{metadata_url}"' in answer.headers["www-authenticate"]
    document = httpx.get(metadata_url, timeout=10).json()
    assert document["resource"] == served.url
    assert document["authorization_servers"] == [served.issuer.url]
    assert httpx.get(f"{served.base}/.well-known/oauth-protected-resource", timeout=10).json() == document


def test_an_sdk_client_discovers_the_issuer_gets_a_jwt_and_calls_a_tool(served: OAuthServer) -> None:
    storage = MemoryStorage()
    redirected: list[str] = []

    async def redirect_handler(url: str) -> None:
        # The user's browser: the test issuer approves at once and redirects with a code.
        async with httpx2.AsyncClient() as browser:
            answer = await browser.get(url)
        redirected.append(answer.headers["location"])

    async def callback_handler() -> AuthorizationCodeResult:
        query = {name: values[-1] for name, values in parse_qs(urlsplit(redirected[-1]).query).items()}
        return AuthorizationCodeResult(code=query["code"], state=query["state"], iss=query.get("iss"))

    auth = OAuthClientProvider(
        served.url,
        OAuthClientMetadata(client_name="e2e", redirect_uris=[REDIRECT_URI], grant_types=["authorization_code"]),
        storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )

    async def session() -> dict[str, Any]:
        async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
            async with Client(streamable_http_client(served.url, http_client=http), mode="legacy") as client:
                tools = await client.list_tools()
                search = await client.call_tool("search", {"query": "Cart", "project": "acme/shop", "limit": 1})
                other = await client.call_tool("search", {"query": "Cart", "project": "acme/other"})
                return {
                    "tools": {tool.name for tool in tools.tools},
                    "search": search.structured_content,
                    "other": other.content[0].text,
                }

    seen = anyio.run(session)
    # The token request reached the issuer with the PKCE verifier and the resource (RFC 8707).
    [token_request] = served.issuer.token_requests
    assert token_request["grant_type"] == "authorization_code" and token_request["code_verifier"]
    assert token_request.get("resource") == served.url
    # The metadata's scopes were asked for; the JWT carries them, and the issuer's projects claim.
    assert set(storage.tokens.scope.split() if storage.tokens and storage.tokens.scope else ()) <= {"read", "write", "admin", "cypher"}
    assert seen["search"]["hits"][0]["id"] == "class:pkg/shop.py:Cart"
    assert seen["other"] == "forbidden: this token has no access to project 'acme/other'"
    assert "search" in seen["tools"]


def sdk_tools(url: str, token: str, headers: dict[str, str] | None = None) -> set[str]:
    async def session() -> set[str]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}", **(headers or {})}, timeout=30)
        async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(session)


def family(name: str) -> set[str]:
    """The family's tools a read,write token may call (`query` needs `cypher`)."""
    return {spec.name for spec in all_specs() if name in spec.families and spec.scope in ("read", "write")}


def test_toolset_filtered_clients_see_only_their_families(served: OAuthServer) -> None:
    token = served.static_token
    assert sdk_tools(f"{served.url}?toolsets=review", token) == family("review")
    assert sdk_tools(served.url, token, {"X-Rhumbline-Toolsets": "code,exploration"}) == family("code") | family("exploration")
    read_only = sdk_tools(served.url, token, {"X-Rhumbline-Read-Only": "true"})
    assert read_only == {spec.name for spec in all_specs() if spec.read_only and spec.scope in ("read", "write")}
    # A token's default toolsets apply unless the request chooses: an rhl_ token's, a JWT's claim.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
    env["RHUMBLINE_HOME"] = str(served.home)
    created = run_cli(env, "token", "create", "--principal", "rev", "--projects", "*", "--scopes", "read", "--toolsets", "review")
    assert created.returncode == 0, created.stderr
    assert sdk_tools(served.url, created.stdout.strip()) == {name for name in family("review") if name != "record_review"}
    refused = run_cli(env, "token", "create", "--principal", "x", "--projects", "*", "--scopes", "read", "--toolsets", "nope")
    assert refused.returncode == 1 and "unknown toolsets nope: choose from code, exploration, review, admin" in refused.stderr
    jwt_token = served.issuer.token(scope="read", rhumbline_projects=["*"], rhumbline_toolsets=["review"])
    assert sdk_tools(served.url, jwt_token) == {name for name in family("review") if name != "record_review"}
    assert sdk_tools(f"{served.url}?toolsets=all", jwt_token) == {spec.name for spec in all_specs() if spec.scope == "read"}
