"""functions/gateway/app.py's handler, driven with API Gateway v2 events in both MCP generations."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.functional.gateway.conftest import audit_log
from tests.functional.gateway.gateway_harness import (
    FULL_CALLER,
    HANDSHAKE_VERSION,
    MODERN_VERSION,
    Answer,
    call_legacy,
    call_modern,
    legacy_request,
    token_for,
    v2_event,
)

from rhumbline.gateway.identity import REASON_DESCRIPTIONS
from rhumbline.runtime import resources
from rhumbline.runtime.spec import all_specs, load_spec
from rhumbline.stores.relational import tokens
from rhumbline.stores.relational.session import session_scope

# What FULL_CALLER (read, write, cypher) sees: every tool but the admin ones (delete_project, get_usage).
TOOL_NAMES = [spec.name for spec in all_specs() if spec.scope != "admin"]

GATEWAY_APP = Path(__file__).resolve().parents[3] / "functions" / "gateway" / "app.py"


@pytest.fixture(scope="module")
def gateway_app() -> Any:
    """The real gateway function module, loaded once per module like a warm Lambda container.

    Hosted mode, as deployed (API Gateway's Host is accepted), but dispatching in-process: the
    Lambda dispatch path has its own tests.
    """
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("RHUMBLINE_DISPATCH", "inprocess")
    monkeypatch.setenv("RHUMBLINE_MODE", "hosted")
    resources.reset()
    spec = importlib.util.spec_from_file_location("gateway_app_under_test", GATEWAY_APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules["rhumbline.gateway.lambda_entry"].container.stop()
    del sys.modules["rhumbline.gateway.lambda_entry"]
    monkeypatch.undo()


@pytest.fixture
def handler(gateway_app: Any, local_store: Path) -> Any:
    return gateway_app.handler


@pytest.fixture
def audit_rows(local_store: Path) -> Any:
    """The audit log of the function's container (its stores: runtime/resources.py), oldest first."""
    return lambda: audit_log(resources.relational_engine())


def test_initialize_handshake_then_list_and_call(handler: Any, audit_rows: Any) -> None:
    init = call_legacy(
        handler,
        "initialize",
        {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"}},
    )
    assert init.result["protocolVersion"] == HANDSHAKE_VERSION
    assert init.result["serverInfo"]["name"] == "rhumbline"
    assert init.result["capabilities"]["tools"] == {"listChanged": False}

    initialized = Answer(handler(v2_event({"jsonrpc": "2.0", "method": "notifications/initialized"},
                                          headers={"mcp-protocol-version": HANDSHAKE_VERSION}, token=token_for(FULL_CALLER)), None))
    assert initialized.status == 202

    tools = call_legacy(handler, "tools/list").result["tools"]
    assert [tool["name"] for tool in tools] == list(TOOL_NAMES)
    search = next(tool for tool in tools if tool["name"] == "search")
    spec = load_spec("search")
    assert search["inputSchema"] == spec.input_schema()
    assert search["outputSchema"] == spec.output_schema()
    assert search["title"] == spec.title
    assert search["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }

    called = call_legacy(handler, "tools/call", {"name": "list_projects", "arguments": {}}, request_id="req-list-1")
    assert called.result["isError"] is False
    assert called.result["structuredContent"] == {"projects": [], "total": 0}
    assert json.loads(called.result["content"][0]["text"]) == {"projects": [], "total": 0}

    [row] = audit_rows()
    assert (row.request_id, row.principal, row.token_id, row.tool, row.outcome, row.error_code) == (
        "req-list-1", "alice@example.com", "tk_alice00001", "list_projects", "ok", None
    )
    assert row.result_bytes == len('{"projects":[],"total":0}')


def test_base64_encoded_body(handler: Any) -> None:
    answer = call_legacy(handler, "tools/list", base64_body=True)
    assert len(answer.result["tools"]) == len(TOOL_NAMES)


def test_modern_protocol_without_handshake(handler: Any, audit_rows: Any) -> None:
    discover = call_modern(handler, "server/discover").result
    assert MODERN_VERSION in discover["supportedVersions"]
    assert discover["capabilities"]["tools"] == {"listChanged": False}

    tools = call_modern(handler, "tools/list").result["tools"]
    assert {tool["name"] for tool in tools} == set(TOOL_NAMES)

    called = call_modern(handler, "tools/call", {"name": "list_projects", "arguments": {}}, request_id="req-modern")
    assert called.result["isError"] is False
    assert called.result["structuredContent"] == {"projects": [], "total": 0}
    assert [(row.request_id, row.outcome) for row in audit_rows()] == [("req-modern", "ok")]


def test_mcp_error_responses_keep_their_http_status(handler: Any) -> None:
    no_accept = Answer(handler(v2_event(legacy_request("tools/list"), token=token_for(FULL_CALLER), headers={"accept": ""}), None))
    assert no_accept.status == 406
    batch = Answer(handler(v2_event([legacy_request("tools/list")], token=token_for(FULL_CALLER)), None))
    assert batch.status == 400


def test_unauthenticated_request_gets_401_with_challenge(handler: Any, audit_rows: Any) -> None:
    token = token_for(FULL_CALLER)
    with session_scope(resources.relational_engine()) as session:
        tokens.revoke(session, FULL_CALLER["token_id"])
    answer = Answer(handler(v2_event(legacy_request("tools/list"), token=token), None))
    assert answer.status == 401
    metadata = "https://abc123.execute-api.eu-west-1.amazonaws.com/.well-known/oauth-protected-resource/mcp"
    assert answer.headers["www-authenticate"] == (
        f'Bearer realm="rhumbline", resource_metadata="{metadata}", error="invalid_token", '
        'error_description="the token has been revoked"'
    )
    assert answer.json == {"error": "invalid_token", "error_description": "the token has been revoked"}

    missing = Answer(handler(v2_event(legacy_request("tools/list")), None))
    assert missing.status == 401
    assert missing.headers["www-authenticate"] == f'Bearer realm="rhumbline", resource_metadata="{metadata}"'
    for token, reason in (("rhl_aaaaaaaaaa_" + "b" * 43, "unknown"), ("not-one-of-ours", "malformed_token")):
        other = Answer(handler(v2_event(legacy_request("tools/call", {"name": "list_projects", "arguments": {}}), token=token), None))
        assert other.status == 401
        assert other.json == {"error": "invalid_token", "error_description": REASON_DESCRIPTIONS[reason]}
        assert other.headers["www-authenticate"].endswith(f'error_description="{REASON_DESCRIPTIONS[reason]}"')
    assert audit_rows() == []


def test_get_is_405_and_other_paths_404(handler: Any) -> None:
    get = Answer(handler(v2_event(None, method="GET", token=token_for(FULL_CALLER)), None))
    assert get.status == 405
    assert get.headers["allow"] == "POST"
    elsewhere = Answer(handler(v2_event(legacy_request("tools/list"), path="/other", token=token_for(FULL_CALLER)), None))
    assert elsewhere.status == 404
    assert elsewhere.json["error"] == "not_found"


def test_warm_calls_reuse_one_session_manager(handler: Any) -> None:
    # The second and later warm calls are where a per-invocation lifespan used to fail.
    for _ in range(5):
        assert call_legacy(handler, "tools/list").status == 200
        assert call_modern(handler, "tools/list").status == 200
