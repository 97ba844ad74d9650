"""HTTP request <-> API Gateway v2 event, checked against Mangum (what the gateway really reads)."""

from __future__ import annotations

import base64

from mangum.handlers import HTTPGateway

from datetime import datetime, timezone

from rhumbline.local.apigw import (
    HttpRequest,
    build_event,
    proxy_response,
    request_time,
)

MANGUM_CONFIG = {"api_gateway_base_path": "/", "text_mime_types": ["text/", "application/json"], "exclude_headers": []}


def sample_request(body: bytes = b'{"jsonrpc":"2.0"}', content_type: str = "application/json") -> HttpRequest:
    return HttpRequest(
        method="POST",
        path="/mcp",
        query_string="a=1&a=2&b=",
        headers=[
            ("Host", "127.0.0.1:8080"),
            ("Content-Type", content_type),
            ("Accept", "application/json"),
            ("Accept", "text/event-stream"),
            ("Cookie", "one=1; two=2"),
            ("User-Agent", "pytest"),
        ],
        body=body,
        source_ip="10.1.2.3",
    )


def test_the_event_has_the_v2_shape() -> None:
    event = build_event(sample_request(), route_key="POST /mcp", request_id="rid", now=1_700_000_000.5)
    assert event["version"] == "2.0"
    assert event["routeKey"] == "POST /mcp"
    assert (event["rawPath"], event["rawQueryString"]) == ("/mcp", "a=1&a=2&b=")
    assert event["headers"] == {
        "host": "127.0.0.1:8080",
        "content-type": "application/json",
        "accept": "application/json,text/event-stream",
        "user-agent": "pytest",
        # What API Gateway adds: how the client reached it.
        "x-forwarded-proto": "http",
        "x-forwarded-for": "10.1.2.3",
    }
    assert event["cookies"] == ["one=1", "two=2"]
    assert event["queryStringParameters"] == {"a": "1,2", "b": ""}
    assert (event["body"], event["isBase64Encoded"]) == ('{"jsonrpc":"2.0"}', False)
    context = event["requestContext"]
    assert context["http"] == {"method": "POST", "path": "/mcp", "protocol": "HTTP/1.1", "sourceIp": "10.1.2.3", "userAgent": "pytest"}
    assert (context["requestId"], context["accountId"], context["apiId"], context["stage"]) == ("rid", "000000000000", "local", "$default")
    assert context["timeEpoch"] == 1_700_000_000_500
    assert context["time"] == "14/Nov/2023:22:13:20 +0000"
    assert "authorizer" not in context


def test_the_time_text_is_api_gateways_clf_time() -> None:
    for second in (0, 1_700_000_000, 1_700_000_000, 1_700_000_001, 951_782_400, 1_700_000_000):
        expected = datetime.fromtimestamp(second, timezone.utc).strftime("%d/%b/%Y:%H:%M:%S +0000")
        assert request_time(second) == expected
    first = build_event(sample_request(), route_key="POST /mcp", now=1_700_000_000.1)
    second = build_event(sample_request(), route_key="POST /mcp", now=1_700_000_001.9)
    assert (first["requestContext"]["time"], second["requestContext"]["time"]) == (
        "14/Nov/2023:22:13:20 +0000",
        "14/Nov/2023:22:13:21 +0000",
    )
    assert first["requestContext"]["requestId"] != second["requestContext"]["requestId"]


def test_no_query_string_means_no_query_parameters() -> None:
    request = HttpRequest(method="POST", path="/mcp", headers=[("Host", "h")], body=b"{}")
    event = build_event(request, route_key="POST /mcp")
    assert event["rawQueryString"] == ""
    assert "queryStringParameters" not in event


def test_mangum_reads_back_the_request_it_was_built_from() -> None:
    request = sample_request()
    event = build_event(request, route_key="POST /mcp")
    handler = HTTPGateway(event, None, MANGUM_CONFIG)
    scope = handler.scope
    assert (scope["method"], scope["path"], scope["query_string"]) == ("POST", "/mcp", b"a=1&a=2&b=")
    headers = dict((name.decode(), value.decode()) for name, value in scope["headers"])
    assert headers["accept"] == "application/json,text/event-stream"
    assert headers["cookie"] == "one=1; two=2"
    assert scope["client"] == ("10.1.2.3", 0)
    assert scope["server"] == ("127.0.0.1", 8080)
    assert handler.body == request.body


def test_binary_bodies_travel_base64_encoded() -> None:
    binary = bytes(range(256))
    event = build_event(sample_request(binary, "application/octet-stream"), route_key="POST /mcp")
    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == binary
    assert HTTPGateway(event, None, MANGUM_CONFIG).body == binary
    # Text that is not valid UTF-8 cannot travel as text either.
    event = build_event(sample_request(b"\xff\xfe", "text/plain"), route_key="POST /mcp")
    assert event["isBase64Encoded"] is True


def test_an_empty_body_is_left_out() -> None:
    event = build_event(HttpRequest(method="GET", path="/mcp"), route_key="GET /mcp")
    assert "body" not in event
    assert event["isBase64Encoded"] is False
    assert "cookies" not in event and "queryStringParameters" not in event


def test_mangum_responses_come_back_as_they_were_sent() -> None:
    sent = {"status": 201, "headers": [[b"content-type", b"application/json"], [b"set-cookie", b"a=1"], [b"set-cookie", b"b=2"], [b"x-thing", b"y"]], "body": b'{"ok":true}'}
    handler = HTTPGateway(build_event(sample_request(), route_key="POST /mcp"), None, MANGUM_CONFIG)
    response = proxy_response(handler(sent))
    assert response.status == 201
    assert response.body == b'{"ok":true}'
    assert sorted(response.headers) == [("content-type", "application/json"), ("set-cookie", "a=1"), ("set-cookie", "b=2"), ("x-thing", "y")]


def test_binary_and_multi_value_proxy_responses() -> None:
    response = proxy_response(
        {"statusCode": 200, "isBase64Encoded": True, "body": base64.b64encode(b"\x00\x01").decode(),
         "multiValueHeaders": {"X-A": ["1", "2"]}}
    )
    assert response.body == b"\x00\x01"
    assert response.headers == [("x-a", "1"), ("x-a", "2")]


def test_results_that_are_not_proxy_shaped_are_json_bodies() -> None:
    response = proxy_response({"hello": "world"})
    assert (response.status, response.headers, response.body) == (200, [("content-type", "application/json")], b'{"hello": "world"}')
    assert proxy_response("plain").body == b"plain"
