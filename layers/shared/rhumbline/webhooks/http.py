"""API Gateway HTTP API (payload 2.0) event → the parts of a GitHub delivery, and responses back."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Lambda accepts 6 MB of request payload; GitHub caps deliveries at 25 MB and drops larger ones.
MAX_BODY_BYTES = 5 * 1024 * 1024


class HttpError(Exception):
    """A request answered with `status` and a specific message (never a stack trace)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Delivery:
    """The raw delivery: the exact body bytes (what GitHub signed) and the headers we use."""

    body: bytes
    content_type: str
    signature: str | None
    event: str | None
    delivery_id: str | None


def delivery_from_event(event: Any) -> Delivery:
    if not isinstance(event, Mapping):
        raise HttpError(400, "expected an API Gateway HTTP API (payload 2.0) event")
    headers = {str(name).lower(): str(value) for name, value in (event.get("headers") or {}).items()}
    raw = event.get("body") or ""
    if not isinstance(raw, str):
        raise HttpError(400, "the request body must be text")
    if len(raw) > MAX_BODY_BYTES * 4 // 3 + 4:
        raise HttpError(413, f"the payload exceeds {MAX_BODY_BYTES} bytes")
    if event.get("isBase64Encoded"):
        try:
            body = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise HttpError(400, "the body is flagged base64 but does not decode") from None
    else:
        body = raw.encode("utf-8")
    if len(body) > MAX_BODY_BYTES:
        raise HttpError(413, f"the payload exceeds {MAX_BODY_BYTES} bytes")
    return Delivery(
        body=body,
        content_type=headers.get("content-type", "application/json").split(";", 1)[0].strip().lower(),
        signature=headers.get("x-hub-signature-256"),
        event=headers.get("x-github-event"),
        delivery_id=headers.get("x-github-delivery"),
    )


def response(status: int, body: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json"},
        "body": json.dumps(body, ensure_ascii=False, default=str),
    }


def error_response(error: HttpError) -> dict[str, Any]:
    return response(error.status, {"error": error.message})
