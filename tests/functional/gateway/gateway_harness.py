"""Test helpers for driving the gateway Lambda handler with API Gateway HTTP API v2 events.

The events are written out by hand (not built by rhumbline.local.apigw), so these tests also check
that the gateway accepts what API Gateway really sends. A caller is described as a dict (principal,
token_id, projects, scopes, toolsets: comma-separated); a request of it carries the bearer token of
a real row in the test's store, made on first use (`token_for`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine

from rhumbline.errors import InvalidArguments
from rhumbline.runtime.context import Stores
from rhumbline.runtime.spec import ToolSpec, module_name
from rhumbline.tools.common import StrictInput

HANDSHAKE_VERSION = "2025-06-18"
MODERN_VERSION = "2026-07-28"

FULL_CALLER = {"principal": "alice@example.com", "token_id": "tk_alice00001", "projects": "*", "scopes": "read,write,cypher"}


def plaintext_of(token_id: str) -> str:
    """A token's secret, derived from its id (`tk_` + 10 characters): tests need no table of them."""
    return f"rhl_{token_id.removeprefix('tk_')}_{hashlib.sha256(token_id.encode()).hexdigest()[:43]}"


def split(value: str | None) -> list[str]:
    return [item for item in (value or "").split(",") if item]


@dataclass(frozen=True)
class Gateway:
    """A gateway handler a test built (conftest's `make_gateway`), and the stores its meter, audit
    log and in-process tools reach: a request's token is made in them."""

    handle: Callable[[dict[str, Any], Any], dict[str, Any]]
    stores: Stores

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        return self.handle(event, context)


def token_for(caller: Mapping[str, str], *, engine: Engine | None = None, **limits: Any) -> str:
    """The plaintext of `caller`'s token: its row in the relational store of `engine` (default: the
    container's, rhumbline.runtime.resources), made on first use with `limits` (rate_per_minute,
    rate_burst, monthly_quota, expires_at ...)."""
    from rhumbline.runtime import resources
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.schema.base import utcnow
    from rhumbline.stores.relational.schema.core import ApiToken
    from rhumbline.stores.relational.session import session_scope

    token_id = caller["token_id"]
    plaintext = plaintext_of(token_id)
    wanted = (caller["principal"], split(caller["projects"]), sorted(split(caller["scopes"])), split(caller.get("toolsets")) or None)
    with session_scope(engine or resources.relational_engine()) as session:
        row = tokens.get(session, token_id)
        if row is None:
            principal, projects, scopes, toolsets = wanted
            session.add(
                ApiToken(
                    id=token_id, token_hash=tokens.presented(plaintext)[1], principal=principal, projects=projects,
                    scopes=scopes, toolsets=toolsets, created_at=utcnow(), **limits,
                )
            )  # fmt: skip
        else:
            assert (row.principal, row.projects, sorted(row.scopes), row.toolsets) == wanted, f"give {caller} a token_id of its own"
    return plaintext


def v2_event(
    body: Any,
    *,
    method: str = "POST",
    path: str = "/mcp",
    headers: dict[str, str] | None = None,
    token: str | None = None,
    base64_body: bool = False,
    request_id: str = "req-0001",
) -> dict[str, Any]:
    raw = json.dumps(body).encode() if body is not None else b""
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "host": "abc123.execute-api.eu-west-1.amazonaws.com",
            "user-agent": "pytest",
            "x-forwarded-proto": "https",
            "x-forwarded-port": "443",
            **({"authorization": f"Bearer {token}"} if token is not None else {}),
            **(headers or {}),
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": "abc123.execute-api.eu-west-1.amazonaws.com",
            "domainPrefix": "abc123",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.9", "userAgent": "pytest"},
            "requestId": request_id,
            "routeKey": f"{method} {path}",
            "stage": "$default",
            "time": "30/Nov/2026:04:00:00 +0000",
            "timeEpoch": 1795924800000,
        },
        "isBase64Encoded": base64_body,
    }
    if raw:
        event["body"] = base64.b64encode(raw).decode() if base64_body else raw.decode()
    return event


def legacy_request(method: str, params: dict[str, Any] | None = None, *, id: int = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def modern_request(method: str, params: dict[str, Any] | None = None, *, id: int = 1) -> tuple[dict[str, Any], dict[str, str]]:
    """A 2026-07-28 request (per-request envelope in `_meta`) and the routing headers it needs."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": id, "method": method, "params": {**(params or {}), "_meta": meta}}
    headers = {"mcp-protocol-version": MODERN_VERSION, "mcp-method": method}
    if method == "tools/call":
        headers["mcp-name"] = params["name"] if params else ""
    return body, headers


class Answer:
    """A Lambda proxy response, decoded."""

    def __init__(self, response: dict[str, Any]) -> None:
        self.status: int = response["statusCode"]
        self.headers: dict[str, str] = response.get("headers") or {}
        raw = response.get("body") or ""
        if response.get("isBase64Encoded"):
            raw = base64.b64decode(raw).decode()
        self.text: str = raw
        try:
            self.json: Any = json.loads(raw) if raw else None
        except ValueError:
            # The SDK's plain-text refusals (421, 400) reach here labelled application/json by Mangum.
            self.json = None

    @property
    def result(self) -> dict[str, Any]:
        assert self.status == 200, (self.status, self.json)
        assert "result" in self.json, self.json
        return self.json["result"]


def with_token(handler: Any, event_options: dict[str, Any]) -> dict[str, Any]:
    """`caller=` (default FULL_CALLER) as the `token` of its row in the stores of `handler` (a
    `Gateway`; otherwise the container's), unless a `token` is given."""
    caller = event_options.pop("caller", FULL_CALLER)
    if "token" not in event_options:
        engine = handler.stores.relational() if isinstance(handler, Gateway) else None
        event_options["token"] = token_for(caller, engine=engine)
    return event_options


def call_legacy(handler: Any, method: str, params: dict[str, Any] | None = None, **event_options: Any) -> Answer:
    event_options = with_token(handler, event_options)
    headers = {"mcp-protocol-version": HANDSHAKE_VERSION, **event_options.pop("headers", {})}
    return Answer(handler(v2_event(legacy_request(method, params), headers=headers, **event_options), None))


def call_modern(handler: Any, method: str, params: dict[str, Any] | None = None, **event_options: Any) -> Answer:
    event_options = with_token(handler, event_options)
    body, headers = modern_request(method, params)
    return Answer(handler(v2_event(body, headers={**headers, **event_options.pop("headers", {})}, **event_options), None))


# ---------------------------------------------------------------- a test-double tool


class EchoInput(StrictInput):
    text: str
    project: str | None = None
    fail: bool = False
    sleep: float = 0.0


class EchoOutput(BaseModel):
    echo: str
    principal: str


def run_echo(arguments: EchoInput, context: Any) -> EchoOutput:
    import time

    if arguments.fail:
        raise InvalidArguments("told to fail", details={"fail": True})
    if arguments.sleep:
        time.sleep(arguments.sleep)
    return EchoOutput(echo=arguments.text, principal=context.caller.principal)


ECHO_SPEC = ToolSpec(
    name="echo",
    title="Echo",
    description="Echo the text back (test double).",
    input_model=EchoInput,
    output_model=EchoOutput,
    run=run_echo,
    families=("exploration",),
)

ADMIN_SPEC = ToolSpec(
    name="admin_echo",
    title="Admin echo",
    description="Echo, for admins only (test double).",
    input_model=EchoInput,
    output_model=EchoOutput,
    run=run_echo,
    families=("admin",),
    scope="admin",
    read_only=False,
    destructive=True,
    idempotent=False,
    open_world=True,
)


def tool_module(spec: ToolSpec) -> types.ModuleType:
    module = types.ModuleType(module_name(spec.name))
    module.SPEC = spec  # type: ignore[attr-defined]
    return module
