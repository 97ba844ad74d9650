"""Property-based fuzzing of every tool through the real gateway: 0 internal errors, 0 5xx.

For each tool, Hypothesis draws arguments from the input schema the gateway advertises (what a
model would send), steered towards the seeded project and its real node ids so that calls reach
the stores, mixed with arbitrary JSON objects (what a confused or hostile client sends). Each
draw goes through the gateway Lambda handler as API Gateway delivers it (authorizer context of an
admin token that sees every project), the tool function in-process, and the real stores of both
deployment shapes. A fixed seed and a bounded number of examples keep the run short and stable.

Hosted sources are answered by a real HTTP server in the test (GitHub's API and S3 both 404), so
no draw reaches the network.
"""

from __future__ import annotations

import http.server
import shutil
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from rhumbline.config import settings as rhumbline_settings
from rhumbline.gateway.audit import RelationalAuditLog
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.container import GatewayContainer
from rhumbline.gateway.dispatch import InProcessDispatcher
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.gateway.server import build_gateway_app
from rhumbline.runtime.spec import all_specs
from tests.functional.gateway.gateway_harness import Answer, legacy_request, token_for, v2_event

PYPROJ = Path(__file__).resolve().parents[1] / "fixtures" / "ingest" / "pyproj"
EXAMPLES = {"embedded": 40, "production": 15}
# What no answer may be: a crash reported as such, a failure to reach or hear the tool, or the
# meter's refusal of the test's own live token (the draw would never have reached the tool).
FORBIDDEN_CODES = ("internal_error", "dispatch_failed", "function_error", "unauthenticated")
JSON_RPC_INTERNAL_ERROR = -32603
NODE_IDS = ["class:shop/cart.py:ShoppingCart", "method:shop/cart.py:ShoppingCart.total",
            "function:shop/pricing.py:price_of", "file:shop/cart.py", "repository:", "nope", ""]  # fmt: skip
NAMES = ["ShoppingCart", "total", "add_item", "price_of", "cart.py", "/", "\\", "", "*", ".."]
FILES = ["shop/cart.py", "shop/pricing.py", "/", "\\", "", "../../etc/passwd", "shop", "cart.py"]
CYPHER = ["MATCH (n) RETURN n LIMIT 3", "MATCH (a)-[r]->(b) RETURN type(r), count(*)", "RETURN 1", "MATCH (",
          "MATCH (n) WHERE n.name = $x RETURN n", "CALL db.labels()", "MATCH p=(a)-[*1..3]-(b) RETURN p LIMIT 2"]  # fmt: skip

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


class _NotFound(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server interface
        self.send_response(404)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"message": "Not Found"}')

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def external(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    for name, value in {"RHUMBLINE_GITHUB_API_URL": url, "AWS_ENDPOINT_URL_S3": url, "AWS_ACCESS_KEY_ID": "fuzz",
                        "AWS_SECRET_ACCESS_KEY": "fuzz", "AWS_DEFAULT_REGION": "eu-west-1"}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    yield url
    server.shutdown()


@pytest.fixture
def gateway(world, external: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    tree = tmp_path / "tree"
    shutil.copytree(PYPROJ, tree)
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", str(tmp_path))
    rhumbline_settings.cache_clear()
    # A real token: the gateway authenticates and admits each call against its row (gateway/meter.py).
    caller = {"principal": "fuzz@example.com", "token_id": f"tk_fuzz{uuid.uuid4().hex[:6]}", "projects": "*", "scopes": "admin,cypher"}
    token = token_for(caller, engine=world.engine)
    catalog = Catalog.from_registry()
    stores = world.stores
    calls = ToolCalls(catalog, InProcessDispatcher(stores), RelationalAuditLog(stores), RelationalMeter(stores), tool_timeout=20.0)
    container = GatewayContainer(*build_gateway_app(replace(rhumbline_settings(), mode="hosted"), catalog, calls)).start()
    try:
        yield container.lambda_handler(), catalog, world, tree, token
    finally:
        container.stop()


def _steered(arguments: dict[str, Any], project: str, tree: Path, draw: Any) -> dict[str, Any]:
    """Point some drawn values at what exists, so calls get past "not found" into the stores."""
    choices = {"project": [project, "rival/none"], "repo": [project], "node_id": NODE_IDS, "from_node": NODE_IDS,
               "to_node": NODE_IDS, "name": NAMES, "file": FILES, "cypher": CYPHER, "path": [str(tree), "/etc", "/proc/self"]}  # fmt: skip
    steered = dict(arguments)
    for key, options in choices.items():
        if key in steered:
            steered[key] = draw(st.sampled_from([steered[key], *options]))
    return steered


def _value(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of a (pydantic-generated) JSON schema: enums, anyOf, strings with their pattern or
    length, bounded numbers, arrays, booleans, null; anything else is arbitrary JSON."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([_value(option) for option in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "string":
        text = st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 60), 60))
        return st.from_regex(schema["pattern"], fullmatch=True) | text if "pattern" in schema else text
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))
    if kind == "number":
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        return st.floats(min_value=low, max_value=schema.get("maximum"), allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(_value(schema.get("items", {})), max_size=min(schema.get("maxItems", 4), 4))
    return json_values


def _arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    valid = st.fixed_dictionaries(
        {name: _value(field) for name, field in properties.items() if name in required},
        optional={name: _value(field) for name, field in properties.items() if name not in required},
    )
    junk = st.dictionaries(st.text(max_size=12), json_values, max_size=5)
    return st.one_of(valid, valid, junk)


TOOLS = sorted(spec.name for spec in all_specs())


@pytest.mark.parametrize("tool", TOOLS)
def test_no_draw_crashes_a_tool_or_the_gateway(gateway: Any, tool: str) -> None:
    handler, catalog, world, tree, token = gateway
    schema = catalog.input_schema(tool)
    assert schema is not None

    @seed(15)
    @settings(
        max_examples=EXAMPLES[world.shape], deadline=None, database=None, derandomize=False,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )  # fmt: skip
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        drawn = data.draw(_arguments(schema), label="arguments")
        arguments = _steered(drawn, world.project, tree, data.draw)
        message = legacy_request("tools/call", {"name": tool, "arguments": arguments})
        answer = Answer(handler(v2_event(message, headers={"mcp-protocol-version": "2025-06-18"}, token=token), None))
        assert answer.status < 500, (answer.status, answer.text[:500])
        if answer.status != 200:
            return
        body = answer.json
        assert body.get("error", {}).get("code") != JSON_RPC_INTERNAL_ERROR, body
        result = body.get("result") or {}
        if result.get("isError"):
            text = result["content"][0]["text"]
            assert not text.startswith(FORBIDDEN_CODES), (arguments, text)

    fuzz()
