"""HTTP request <-> API Gateway HTTP API (payload 2.0) event and Lambda proxy response.

Shapes follow what API Gateway sends and accepts: header names lower-cased with repeated values
joined by commas, cookies in their own list, binary bodies base64-encoded.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from rhumbline.local.functions import ACCOUNT_ID

API_ID = "local"
STAGE = "$default"
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "+json", "+xml")


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    query_string: str = ""
    raw_path: str = ""  # as sent, percent-encoded: what a SigV4 signature covers
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    source_ip: str = "127.0.0.1"
    protocol: str = "HTTP/1.1"


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def json_response(status: int, body: Any, headers: list[tuple[str, str]] | None = None) -> HttpResponse:
    return HttpResponse(status, [("content-type", "application/json"), *(headers or [])], json.dumps(body).encode())


def join_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    joined: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        joined[key] = f"{joined[key]},{value}" if key in joined else value
    return joined


def is_text(content_type: str) -> bool:
    content_type = content_type.lower()
    return any(marker in content_type for marker in TEXT_TYPES)


def encode_body(body: bytes, content_type: str) -> tuple[str, bool]:
    if is_text(content_type):
        try:
            return body.decode("utf-8"), False
        except UnicodeDecodeError:
            pass
    return base64.b64encode(body).decode("ascii"), True


def request_context(
    request: HttpRequest, route_key: str, request_id: str, headers: Mapping[str, str], now: float
) -> dict[str, Any]:
    host = headers.get("host", "localhost")
    return {
        "accountId": ACCOUNT_ID,
        "apiId": API_ID,
        "domainName": host,
        "domainPrefix": host.split(".", 1)[0],
        "http": {
            "method": request.method,
            "path": request.path,
            "protocol": request.protocol,
            "sourceIp": request.source_ip,
            "userAgent": headers.get("user-agent", ""),
        },
        "requestId": request_id,
        "routeKey": route_key,
        "stage": STAGE,
        "time": request_time(int(now)),
        "timeEpoch": int(now * 1000),
    }


def request_time(second: int) -> str:
    """API Gateway's `time` field (CLF format, UTC) for a unix second."""
    return time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(second))


def build_event(
    request: HttpRequest,
    *,
    route_key: str,
    path_parameters: Mapping[str, str] | None = None,
    request_id: str | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """The v2 event for a Lambda proxy integration."""
    headers = join_headers(request.headers)
    # API Gateway says how the client reached it; this endpoint is plain HTTP.
    headers.setdefault("x-forwarded-proto", "http")
    headers.setdefault("x-forwarded-for", request.source_ip)
    cookie_header = headers.pop("cookie", "")
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": request.path,
        "rawQueryString": request.query_string,
        "headers": headers,
        "requestContext": request_context(
            request, route_key, request_id or str(uuid.uuid4()), headers, time.time() if now is None else now
        ),
        "isBase64Encoded": False,
    }
    cookies = [cookie.strip() for cookie in cookie_header.split(";") if cookie.strip()]
    if cookies:
        event["cookies"] = cookies
    query = join_headers(parse_qsl(request.query_string, keep_blank_values=True)) if request.query_string else {}
    if query:
        event["queryStringParameters"] = query
    if path_parameters:
        event["pathParameters"] = dict(path_parameters)
    if request.body:
        event["body"], event["isBase64Encoded"] = encode_body(request.body, headers.get("content-type", ""))
    return event


def proxy_response(result: Any) -> HttpResponse:
    """A Lambda result -> HTTP response, with HTTP API's rules for results that are not proxy-shaped."""
    if not (isinstance(result, Mapping) and "statusCode" in result):
        # Payload 2.0: anything else is taken as a JSON body with status 200.
        body = result if isinstance(result, str) else json.dumps(result)
        return HttpResponse(200, [("content-type", "application/json")], body.encode())
    headers = [(str(name).lower(), str(value)) for name, value in (result.get("headers") or {}).items()]
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((str(name).lower(), str(value)) for value in values)
    headers.extend(("set-cookie", str(cookie)) for cookie in result.get("cookies") or ())
    raw = result.get("body") or ""
    if result.get("isBase64Encoded"):
        body = base64.b64decode(raw)
    else:
        body = raw.encode() if isinstance(raw, str) else json.dumps(raw).encode()
    return HttpResponse(int(result["statusCode"]), headers, body)
