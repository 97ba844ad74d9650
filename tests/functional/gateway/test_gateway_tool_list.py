"""tools/list shows a token only the tools its scopes allow, on both protocol generations, from a
per-(version, tool set) cache that never hands one caller's list to another."""

from __future__ import annotations

from typing import Any

import pytest
from tests.functional.gateway.gateway_harness import FULL_CALLER, call_legacy, call_modern

from rhumbline.runtime.spec import all_specs, load_spec

TOOL_NAMES = [spec.name for spec in all_specs()]

READ_CALLER = {**FULL_CALLER, "token_id": "tk_aliceread1", "scopes": "read"}
CYPHER_CALLER = {**FULL_CALLER, "token_id": "tk_alicecyph1", "scopes": "read,cypher"}
WRITE_CALLER = {**FULL_CALLER, "token_id": "tk_alicewrit1", "scopes": "read,write"}
ADMIN_CALLER = {**FULL_CALLER, "token_id": "tk_aliceadmi1", "scopes": "admin"}
WRITE_TOOLS = {"ingest", "add_annotation", "record_review"}


def tools_needing(*scopes: str) -> list[str]:
    return [name for name in TOOL_NAMES if load_spec(name).scope in scopes]


@pytest.fixture
def handler(make_gateway: Any) -> Any:
    return make_gateway()


def names(answer: Any) -> list[str]:
    return [tool["name"] for tool in answer.result["tools"]]


@pytest.mark.parametrize("call", [call_legacy, call_modern], ids=["2025-06-18", "2026-07-28"])
def test_each_token_sees_only_the_tools_its_scopes_allow(handler: Any, call: Any) -> None:
    # Admin first: its (complete) cached list must not leak to the narrower tokens after it.
    assert names(call(handler, "tools/list", caller=ADMIN_CALLER)) == list(TOOL_NAMES)
    read_only = names(call(handler, "tools/list", caller=READ_CALLER))
    assert read_only == tools_needing("read")
    assert not WRITE_TOOLS & set(read_only) and "query" not in read_only
    assert "search" in read_only and "get_node" in read_only
    with_cypher = names(call(handler, "tools/list", caller=CYPHER_CALLER))
    assert with_cypher == tools_needing("read", "cypher") and "query" in with_cypher
    assert not WRITE_TOOLS & set(with_cypher)
    with_write = names(call(handler, "tools/list", caller=WRITE_CALLER))
    assert WRITE_TOOLS <= set(with_write) and "query" not in with_write
    # Asked again (now from the cache), every token gets the same answer as the first time.
    assert names(call(handler, "tools/list", caller=READ_CALLER)) == read_only
    assert names(call(handler, "tools/list", caller=ADMIN_CALLER)) == list(TOOL_NAMES)


@pytest.mark.parametrize("call", [call_legacy, call_modern], ids=["2025-06-18", "2026-07-28"])
def test_a_cached_answer_is_the_sdks_own_answer(handler: Any, call: Any) -> None:
    first = call(handler, "tools/list", caller=READ_CALLER)
    second = call(handler, "tools/list", caller=READ_CALLER)
    assert second.status == first.status == 200
    assert second.json["result"] == first.json["result"]
    search = next(tool for tool in second.result["tools"] if tool["name"] == "search")
    assert search["inputSchema"] == load_spec("search").input_schema()
    assert search["outputSchema"] == load_spec("search").output_schema()


def test_hidden_tools_still_get_the_clear_scope_error(handler: Any) -> None:
    for call in (call_legacy, call_modern):
        call(handler, "tools/list", caller=READ_CALLER)
        annotate = call(
            handler, "tools/call",
            {"name": "add_annotation", "arguments": {"project": "acme/shop", "node_id": "x", "content": "note"}},
            caller=READ_CALLER,
        ).result  # fmt: skip
        assert annotate["isError"] is True
        assert annotate["content"][0]["text"] == "forbidden: this token lacks the 'write' scope"
        query = call(
            handler, "tools/call", {"name": "query", "arguments": {"cypher": "MATCH (n) RETURN n"}}, caller=READ_CALLER
        ).result
        assert query["content"][0]["text"] == "forbidden: this token lacks the 'cypher' scope"


def test_malformed_params_are_refused_even_when_the_list_is_cached(handler: Any) -> None:
    assert call_legacy(handler, "tools/list", caller=READ_CALLER).status == 200
    for _ in range(2):
        refused = call_legacy(handler, "tools/list", {"cursor": 5}, caller=READ_CALLER)
        assert refused.json["error"]["code"] == -32602, refused.json
